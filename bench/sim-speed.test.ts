// The simulator benchmark's report, from a short run of the command itself (no figure is asserted: speed
// is for the benchmark to measure, not for a test to time).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../src/repo-root.js';

const run = promisify(execFile);

async function bench(args: readonly string[], nodeFlags: readonly string[] = []): Promise<Record<string, unknown>> {
  const { stdout } = await run(process.execPath, [...nodeFlags, 'bin/run-compiled.mjs', 'bench/sim-speed.ts', '--json', ...args], { cwd: REPO_ROOT, maxBuffer: 1 << 20 });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as Record<string, unknown>;
}

describe('npm run bench:sim', () => {
  it('reports speed, memory by simulated minute and the retained heap, with one trace hash per seed', async () => {
    const [first, again] = await Promise.all([bench(['--minutes', '0.1'], ['--expose-gc', '--max-old-space-size=160']), bench(['--minutes', '0.1'])]);
    expect(first.simulatedSeconds).toBe(6);
    expect(first.grants).toBeGreaterThan(300); // 100 grants/s for 6 s
    expect(first.errors).toEqual({});
    expect(first.traceHash).toMatch(/^[0-9a-f]{16}$/);
    expect(again.traceHash).toBe(first.traceHash);
    for (const field of ['rssMbByMinute', 'heapMbByMinute', 'retainedMbByMinute']) expect((first[field] as number[]).length).toBe(1);
    expect(first.heapLimitMb).toBeLessThan(260); // the cap the npm scripts pass: old generation 160 MB plus the young
    // Without --expose-gc there is no retained heap to report, and the report says so rather than guess.
    expect(again.retainedMbByMinute).toBeNull();
    expect(again.heapLimitMb).toBeGreaterThan(first.heapLimitMb as number);
  }, 120_000);

  it('refuses a bad --minutes or an unknown flag with exit 2, naming it', async () => {
    await expect(bench(['--minutes', '0'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/--minutes 0: must be a positive number/) });
    await expect(bench(['--minuets', '5'])).rejects.toMatchObject({ code: 2, stderr: expect.stringMatching(/Unknown option '--minuets'/) });
  });
});
