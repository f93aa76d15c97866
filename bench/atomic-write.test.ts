import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkWritableTarget, writeFileAtomically } from './atomic-write.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

describe('writeFileAtomically', () => {
  it('writes, replaces, and leaves no temp file behind', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'lockstep-atomic-'));
    dirs.push(dir);
    const path = join(dir, 'report.json');
    await writeFileAtomically(path, '{"a":1}\n');
    await writeFileAtomically(path, '{"a":2}\n');
    expect(await readFile(path, 'utf8')).toBe('{"a":2}\n');
    expect(await readdir(dir)).toEqual(['report.json']);
  });

  it('fails without leaving anything when the directory is missing; checkWritableTarget says so first', async () => {
    const path = join(tmpdir(), 'lockstep-no-such-dir-4e1f', 'report.json');
    expect(await checkWritableTarget(path)).toMatch(/does not exist or is not writable/);
    await expect(writeFileAtomically(path, 'x')).rejects.toThrow();
    expect(await checkWritableTarget(join(tmpdir(), 'report.json'))).toBeUndefined();
  });
});
