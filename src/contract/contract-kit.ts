// The contract every command keeps under bad input (README, "Commands"; issue 17): it exits with the code
// the README gives (2 for bad input), says why on stderr in lines that name the input and hold no stack
// trace and no raw control character, prints nothing on stdout (a --json refusal may print its JSON), and
// leaves no file behind: no output, no temp file, in the scratch directory or the working directory.
import { mkdtemp, mkdir, readdir, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { type CliRun, runCli } from '../testing/run-cli.js';

/** Files of every bad kind, in a scratch directory of their own. */
export interface Fixtures {
  readonly dir: string;
  readonly missing: string;
  readonly empty: string;
  readonly binary: string;
  /** A file (for paths under it: "a directory" that is a file). */
  readonly file: string;
  /** A sparse file of `hugeBytes`, for limits: refused by its size without being read. */
  huge(name: string, bytes: number): Promise<string>;
  text(name: string, content: string): Promise<string>;
  /** A directory inside the scratch directory. */
  readonly directory: string;
  cleanup(): Promise<void>;
}

export async function fixtures(): Promise<Fixtures> {
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-contract-'));
  const empty = join(dir, 'empty.txt');
  const binary = join(dir, 'binary.bin');
  const file = join(dir, 'a-file.txt');
  const directory = join(dir, 'a-directory');
  await writeFile(empty, '');
  await writeFile(binary, Buffer.from([0x7b, 0x00, 0x1b, 0x5b, 0x33, 0x31, 0x6d, 0xff, 0xfe, 0x07, 0x0a, 0x80, 0x9b]));
  await writeFile(file, 'not a directory\n');
  await mkdir(directory);
  return {
    dir,
    missing: join(dir, 'missing.json'),
    empty,
    binary,
    file,
    directory,
    async huge(name, bytes) {
      const path = join(dir, name);
      await writeFile(path, '');
      await truncate(path, bytes);
      return path;
    },
    async text(name, content) {
      const path = join(dir, name);
      await writeFile(path, content);
      return path;
    },
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}

export interface Refusal {
  readonly code: number;
  /** Each must appear in stderr: the flag or file the message names. */
  readonly names: readonly string[];
  /** A pattern stderr must match: the rule or the fix. */
  readonly says?: RegExp;
  /** A --json refusal prints one JSON object on stdout; others print nothing there. */
  readonly jsonOut?: boolean;
}

const temps = (entries: readonly string[]): string[] => entries.filter((name) => /\.tmp\b|\.tmp-\d+/.test(name));

/** What is on disk now, to compare after a command: the scratch directory's files and the working directory's temp files. */
export async function filesNow(scratch: Fixtures): Promise<(what: string) => Promise<void>> {
  const before = await listing(scratch.dir);
  const cwdTempsBefore = temps(await readdir(process.cwd()));
  return async (what) => {
    expect(await listing(scratch.dir), `${what}\n(files left behind)`).toEqual(before);
    expect(temps(await readdir(process.cwd())), `${what}\n(temp files in the working directory)`).toEqual(cwdTempsBefore);
  };
}

/** Runs `argv` and holds it to the contract; returns the run for further checks. */
export async function expectRefusal(scratch: Fixtures, argv: readonly string[], refusal: Refusal): Promise<CliRun> {
  const unchanged = await filesNow(scratch);
  const run = await runCli(...argv);
  const err = run.err.join('\n');
  const what = `lockstep ${argv.join(' ')}\nstderr: ${err}\nstdout: ${run.out.join('\n')}`;
  expect(run.code, what).toBe(refusal.code);
  expect(run.err.length, what).toBeGreaterThan(0);
  for (const name of refusal.names) expect(err, what).toContain(name);
  if (refusal.says !== undefined) expect(err, what).toMatch(refusal.says);
  // One line per problem: no stack trace, no raw control character (the terminal-safe formatter's work).
  expect(err, what).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
  // eslint-disable-next-line no-control-regex
  expect(err, what).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  if (refusal.jsonOut === true) {
    expect(run.out, what).toHaveLength(1);
    expect(() => JSON.parse(run.out[0] ?? '') as unknown, what).not.toThrow();
  } else {
    expect(run.out.filter((line) => line.trim() !== ''), what).toEqual([]);
  }
  await unchanged(what);
  return run;
}

async function listing(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).map(String).sort();
}

/** The bad files every command that reads one must refuse, each with what its message must say. */
export function badFiles(scratch: Fixtures): [string, string, RegExp][] {
  return [
    ['a missing file', scratch.missing, /no such file; check the path/],
    ['a directory', scratch.directory, /it is a directory/],
    ['an empty file', scratch.empty, /./],
    ['a binary file', scratch.binary, /is not text \(a NUL byte on line 1\)/],
  ];
}
