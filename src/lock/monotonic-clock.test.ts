import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createRealClock } from '../clock/index.js';
import { monotonicFrameOf, monotonicNowMs } from './monotonic-clock.js';

describe('the monotonic frame the supervisor and lockstep share', () => {
  it('is one clock across processes: another process reads a time between two of ours', () => {
    const before = monotonicNowMs();
    const theirs = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.hrtime.bigint() / 1000n))'], { encoding: 'utf8' })) / 1_000;
    const after = monotonicNowMs();
    expect(theirs).toBeGreaterThanOrEqual(before);
    expect(theirs).toBeLessThanOrEqual(after);
  });

  it('carries an instant of the real clock (performance.now) to the same instant in the monotonic frame', () => {
    const clock = createRealClock();
    const toMonotonic = monotonicFrameOf(clock);
    const before = monotonicNowMs();
    const converted = toMonotonic(clock.now());
    const after = monotonicNowMs();
    // Within the reads around it; the offset errs only towards earlier (it is read monotonic-first).
    expect(converted).toBeGreaterThanOrEqual(before - 1);
    expect(converted).toBeLessThanOrEqual(after);
  });
});
