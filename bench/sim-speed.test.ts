// The simulator benchmark's report, from a short run of the command itself (no figure is asserted: speed
// is for the benchmark to measure, not for a test to time).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/repo-root.js';

const run = promisify(execFile);

/** The node flags `npm run bench:sim` starts the benchmark with (package.json): the heap settings the figures are made under. */
async function npmScriptFlags(): Promise<string[]> {
  const { scripts } = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = (scripts['bench:sim'] ?? '').split(/\s+/);
  expect(words[0]).toBe('node');
  return words.slice(1, words.indexOf('bin/run-compiled.mjs'));
}

async function bench(args: readonly string[], nodeFlags: readonly string[] = []): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [...nodeFlags, 'bin/run-compiled.mjs', 'bench/sim-speed.ts', '--json', ...args], { cwd: REPO_ROOT, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
}

describe('npm run bench:sim', () => {
  it('reports speed, memory by simulated minute and the retained heap, with one trace hash per seed', async () => {
    const flags = await npmScriptFlags();
    expect(flags).toContain('--expose-gc');
    const [first, again] = await Promise.all([bench(['--minutes', '0.1'], flags), bench(['--minutes', '0.1'])]);
    expect(first.simulatedSeconds).toBe(6);
    expect(first.grants).toBeGreaterThan(300); // 100 grants/s for 6 s
    expect(first.errors).toEqual({});
    expect(first.traceHash).toMatch(/^[0-9a-f]{16}$/);
    expect(again.traceHash).toBe(first.traceHash);
    for (const field of ['rssMbByMinute', 'heapMbByMinute', 'retainedMbByMinute']) expect((first[field] as number[]).length).toBe(1);
    // Without --expose-gc there is no retained heap to report, and the report says so rather than guess.
    expect(again.retainedMbByMinute).toBeNull();
    // The npm script's cap is V8's limit; without it the limit is V8's default, several times higher.
    expect(again.heapLimitMb as number).toBeGreaterThan(2 * (first.heapLimitMb as number));
  }, 120_000);

  it('refuses a bad --minutes or an unknown flag with exit 2, naming it', async () => {
    await expect(bench(['--minutes', '0'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--minutes 0: must be a positive number/) });
    await expect(bench(['--minuets', '5'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/Unknown option '--minuets'/) });
  });
});
