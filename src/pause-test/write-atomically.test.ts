import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFileAtomically } from './write-atomically.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-atomic-'));
});
afterEach(async () => rm(dir, { recursive: true, force: true }));

describe('writeFileAtomically', () => {
  it('replaces the file whole and leaves no temporary file', async () => {
    const path = join(dir, 'result.yaml');
    await writeFile(path, 'old');
    await writeFileAtomically(path, 'new text');
    expect([await readFile(path, 'utf8'), await readdir(dir)]).toEqual(['new text', ['result.yaml']]);
  });

  it('fails in a directory that does not exist, writing nothing', async () => {
    await expect(writeFileAtomically(join(dir, 'no', 'result.yaml'), 'x')).rejects.toThrow(/ENOENT/);
    expect(await readdir(dir)).toEqual([]);
  });
});
