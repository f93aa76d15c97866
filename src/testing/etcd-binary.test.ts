import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEBIAN_ETCD_PATH, ETCD_BINARY_ENV, findEtcdBinary } from './etcd-binary.js';

describe('findEtcdBinary', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lockstep-etcd-bin-'));
    await writeFile(join(dir, 'etcd'), '#!/bin/sh\n');
    await chmod(join(dir, 'etcd'), 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes the first etcd on PATH', async () => {
    expect(await findEtcdBinary({ PATH: `/nonexistent:${dir}` })).toBe(join(dir, 'etcd'));
  });

  it('honours an explicit binary and refuses a wrong one', async () => {
    expect(await findEtcdBinary({ PATH: '', [ETCD_BINARY_ENV]: join(dir, 'etcd') })).toBe(join(dir, 'etcd'));
    await expect(findEtcdBinary({ PATH: '', [ETCD_BINARY_ENV]: join(dir, 'nope') })).rejects.toThrow(ETCD_BINARY_ENV);
  });

  it('falls back to the Debian path, or finds nothing', async () => {
    const found = await findEtcdBinary({ PATH: '/nonexistent' });
    expect(found === undefined || found === DEBIAN_ETCD_PATH).toBe(true);
  });
});
