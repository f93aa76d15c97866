import { describe, expect, it } from 'vitest';
import { deadlineAfter, interestEndMs, lastInterestEndMs } from './liveness-time.js';
import { disturbance, interest } from './liveness-fixtures.js';

describe('liveness time: deadlines stretch through disturbances, interests end at release or crash', () => {
  it('gives the allowance from the start when nothing disturbs', () => {
    expect(deadlineAfter(1_000, 2_000, [])).toBe(3_000);
  });

  it('moves the deadline to a disturbance end plus the allowance, chaining disturbances that start before the moved deadline', () => {
    expect(deadlineAfter(1_000, 2_000, [disturbance(2_000, 5_000)])).toBe(7_000);
    expect(deadlineAfter(1_000, 2_000, [disturbance(2_000, 5_000), disturbance(6_500, 9_000)])).toBe(11_000);
    expect(deadlineAfter(1_000, 2_000, [disturbance(2_000)])).toBe(Number.POSITIVE_INFINITY);
  });

  it('is not moved by a disturbance that starts after the deadline, ended before the start, or is not counted (negative controls)', () => {
    expect(deadlineAfter(1_000, 2_000, [disturbance(3_000, 9_000)])).toBe(3_000);
    expect(deadlineAfter(1_000, 2_000, [disturbance(0, 1_000)])).toBe(3_000);
    expect(deadlineAfter(1_000, 2_000, [disturbance(2_000, 5_000, true)], (d) => !d.quorumHealthy)).toBe(3_000);
  });

  it("ends a task's interest at its release, or at its process's crash, whichever comes first", () => {
    const task = interest('a', { fromMs: 1_000, outcome: 'granted', releasedMs: 4_000 });
    expect(interestEndMs(task, [])).toBe(4_000);
    expect(interestEndMs(task, [{ holder: 'a', kind: 'crash', fromMs: 3_000 }])).toBe(3_000);
    expect(interestEndMs(task, [{ holder: 'a', kind: 'pause', fromMs: 3_000 }])).toBe(4_000);
    expect(interestEndMs(interest('a', { fromMs: 1_000, outcome: 'granted' }), [])).toBeUndefined();
    expect(lastInterestEndMs([task, interest('a', { fromMs: 2_000, outcome: 'granted', releasedMs: 6_000 })], [])).toBe(6_000);
    expect(lastInterestEndMs([task, interest('a', { fromMs: 2_000, outcome: 'granted' })], [])).toBeUndefined();
  });
});
