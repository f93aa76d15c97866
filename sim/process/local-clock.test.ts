import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LocalClock, nextUp } from './local-clock.js';

describe('LocalClock', () => {
  it('runs at 1 + drift/1e6 of true time, from its offset', () => {
    const clock = new LocalClock(100, { driftPpm: 500, offsetMs: 1000 });
    expect(clock.localAt(100)).toBe(1100);
    expect(clock.localAt(1100)).toBeCloseTo(2100.5, 9);
  });

  it('keeps local time continuous across a rate change, and jumps by a step', () => {
    const clock = new LocalClock(0);
    clock.setDriftPpm(-1000, 1000);
    expect(clock.localAt(1000)).toBe(1000);
    expect(clock.localAt(2000)).toBeCloseTo(1999, 9);
    clock.stepMonotonic(-500, 2000);
    expect(clock.localAt(2000)).toBeCloseTo(1499, 9);
  });

  it('steps the wall clock alone: the monotonic clock does not move (issue 32, as libfaketime)', () => {
    const clock = new LocalClock(0, { driftPpm: 1000 });
    clock.stepWall(60_000);
    expect(clock.localAt(1000)).toBeCloseTo(1001, 9);
    expect(clock.wallAt(1000)).toBeCloseTo(61_001, 9);
    clock.stepMonotonic(10, 1000); // the control: a monotonic step moves both
    expect([clock.localAt(1000), clock.wallAt(1000)].map((ms) => Math.round(ms))).toEqual([1011, 61_011]);
    expect(() => clock.stepWall(Number.NaN)).toThrow('finite');
  });

  it('places any local due time on the earliest true time that reaches it exactly', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -500, max: 500, noNaN: true }),
        fc.double({ min: 0, max: 1e6, noNaN: true }),
        fc.double({ min: 0, max: 1e5, noNaN: true }),
        (driftPpm, nowMs, delayMs) => {
          const clock = new LocalClock(0, { driftPpm, offsetMs: 0.1 });
          const dueLocal = clock.localAt(nowMs) + delayMs;
          const at = clock.trueTimeOf(dueLocal, nowMs);
          expect(at).toBeGreaterThanOrEqual(nowMs);
          expect(clock.localAt(at)).toBeGreaterThanOrEqual(dueLocal);
        },
      ),
    );
  });

  it('rejects a clock that would run backwards', () => {
    expect(() => new LocalClock(0, { driftPpm: -1e6 })).toThrow('driftPpm');
    expect(nextUp(0)).toBe(Number.MIN_VALUE);
    expect(nextUp(1)).toBe(1 + Number.EPSILON);
  });
});
