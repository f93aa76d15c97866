import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ETCDCTL_BINARY_ENV, findEtcdctl } from './etcdctl.js';

describe('findEtcdctl', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'lockstep-etcdctl-bin-'));
    await writeFile(join(dir, 'etcdctl'), '#!/bin/sh\n');
    await chmod(join(dir, 'etcdctl'), 0o755);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes the first etcdctl on PATH', async () => {
    expect(await findEtcdctl({ PATH: `/nonexistent:${dir}` })).toBe(join(dir, 'etcdctl'));
  });

  it('honours an explicit binary and refuses a wrong one', async () => {
    expect(await findEtcdctl({ PATH: '', [ETCDCTL_BINARY_ENV]: join(dir, 'etcdctl') })).toBe(join(dir, 'etcdctl'));
    await expect(findEtcdctl({ PATH: '', [ETCDCTL_BINARY_ENV]: join(dir, 'nope') })).rejects.toThrow(ETCDCTL_BINARY_ENV);
  });
});
