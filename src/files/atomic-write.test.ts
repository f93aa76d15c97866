import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OperationError } from '../cli-errors.js';
import { writeFileAtomically } from './atomic-write.js';
import { outputDirectoryProblem, outputFileProblem } from './output-path.js';

const dirs: string[] = [];
afterAll(async () => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));
const scratch = async (): Promise<string> => {
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-atomic-'));
  dirs.push(dir);
  return dir;
};

describe('writeFileAtomically', () => {
  it('writes, replaces, and leaves no temp file behind', async () => {
    const dir = await scratch();
    const path = join(dir, 'report.json');
    await writeFileAtomically(path, '{"a":1}\n');
    await writeFileAtomically(path, '{"a":2}\n');
    expect(await readFile(path, 'utf8')).toBe('{"a":2}\n');
    expect(await readdir(dir)).toEqual(['report.json']);
  });

  it('fails naming the operation and the file, leaving nothing, when the target is a directory', async () => {
    const dir = await scratch();
    const attempt = writeFileAtomically(dir, 'x');
    await expect(attempt).rejects.toThrow(OperationError);
    await expect(writeFileAtomically(dir, 'x')).rejects.toThrow(`cannot write ${dir}: it is a directory (EISDIR)`);
    expect(await readdir(dir)).toEqual([]);
  });

  it('fails when the directory is missing', async () => {
    const path = join(await scratch(), 'no-such-dir', 'report.json');
    await expect(writeFileAtomically(path, 'x')).rejects.toThrow(/cannot write .*report\.json: no such file or directory \(ENOENT\)/);
  });
});

describe('outputFileProblem and outputDirectoryProblem', () => {
  it('say why a path cannot take the file, before anything runs', async () => {
    const dir = await scratch();
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    expect(await outputFileProblem('')).toMatch(/^is empty; give a file name/);
    expect(await outputFileProblem(dir)).toBe(`is a directory; give a file in it, e.g. ${join(dir, 'run.json')}`);
    expect(await outputFileProblem(join(dir, 'missing', 'run.json'))).toBe(`its directory ${join(dir, 'missing')} does not exist; create it or choose another path`);
    expect(await outputFileProblem(join(file, 'run.json'))).toBe(`its directory ${file} is a file, not a directory; choose another path`);
    expect(await outputFileProblem(join(dir, 'run.json'))).toBeUndefined();
    expect(await outputFileProblem(file)).toBeUndefined(); // replaced atomically
  });

  it('accept a directory still to be made, not one under a file', async () => {
    const dir = await scratch();
    const file = join(dir, 'a-file');
    await writeFile(file, 'x');
    expect(await outputDirectoryProblem(join(dir, 'new', 'deeper'))).toBeUndefined();
    expect(await outputDirectoryProblem(dir)).toBeUndefined();
    expect(await outputDirectoryProblem(file)).toBe('is a file, not a directory; choose another path');
    expect(await outputDirectoryProblem(join(file, 'out'))).toBe(`${file}, on its path, is a file, not a directory; choose another path`);
    expect(await outputDirectoryProblem(' ')).toMatch(/^is empty/);
  });
});
