// libfaketime on real node child processes: a rate slows the child's timers, a step moves its wall
// clock and no timer, and without the environment (the control) nothing changes.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClockSteps, ensureLibfaketime, rateEnvironment, rateOfDrift } from './faketime.js';

let library = '';
let dir = '';
beforeAll(async () => {
  library = await ensureLibfaketime();
  dir = await mkdtemp(join(tmpdir(), 'lockstep-faketime-'));
}, 600_000);
afterAll(async () => {
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

/** Runs a node script in a child, returning its last line as JSON and the real time it took. */
function runChild(script: string, env: Record<string, string>, onStart?: () => void): Promise<{ output: Record<string, number>; realMs: number }> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(process.execPath, ['-e', script], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('started')) onStart?.();
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`child exited ${code}`));
      const last = out.trim().split('\n').at(-1) ?? '{}';
      resolve({ output: JSON.parse(last) as Record<string, number>, realMs: performance.now() - startedAt });
    });
  });
}

const ONE_SECOND_TIMER = "const p=performance.now();setTimeout(()=>console.log(JSON.stringify({ms:performance.now()-p})),1000)";

describe('libfaketime', () => {
  it('a rate of 0.5 makes a 1 s timer take about 2 s of real time; the control without it, about 1 s', async () => {
    const slow = await runChild(ONE_SECOND_TIMER, rateEnvironment(library, 0.5));
    const control = await runChild(ONE_SECOND_TIMER, {});
    expect(slow.output.ms).toBeGreaterThanOrEqual(990); // the child believes a second passed
    expect(slow.realMs / control.realMs).toBeGreaterThan(1.5); // a functional check of the rate, not a speed goal
    expect(control.realMs).toBeLessThan(slow.realMs);
  }, 30_000);

  it('a step moves the wall clock at once and leaves the monotonic clock alone', async () => {
    const steps = new ClockSteps(join(dir, 'steps'));
    const script = "const d=Date.now(),p=performance.now();console.log('started');setTimeout(()=>console.log(JSON.stringify({wall:Date.now()-d,mono:performance.now()-p})),1500)";
    const stepped = await runChild(script, steps.environment(library), () => setTimeout(() => steps.step(5_000), 300));
    expect(stepped.output.wall).toBeGreaterThan(6_000);
    expect(stepped.output.mono).toBeLessThan(3_000);
    const control = await runChild(script, {});
    expect(control.output.wall).toBeLessThan(3_000);
  }, 30_000);

  it('maps a drift in ppm to a rate, and refuses a rate that is not positive', () => {
    expect(rateOfDrift(-700_000)).toBeCloseTo(0.3);
    expect(() => rateEnvironment(library, 0)).toThrow(/positive/);
  });
});
