import { describe, expect, it } from 'vitest';
import { fewestDraws, medianInterval } from './median-interval.js';

describe('medianInterval: order-statistic bounds of a median', () => {
  it('says nothing from too few draws: 5 at 95% (even min..max misses 1 time in 16)', () => {
    expect(medianInterval([1, 2, 3, 4, 5])).toBeUndefined();
    expect(medianInterval([])).toBeUndefined();
    expect(fewestDraws()).toBe(6);
    expect(fewestDraws(0.9)).toBe(5);
  });

  it('gives min..max for 6 draws (coverage 1 - 2/64) and inner ranks as draws grow', () => {
    expect(medianInterval([6, 1, 5, 2, 4, 3])).toEqual({ draws: 6, median: 3, low: 1, high: 6, coverage: 1 - 2 / 64 });
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    // The textbook ranks for n = 20 at 95%: x(6)..x(15), coverage 0.9586.
    const i20 = medianInterval(twenty);
    expect([i20?.low, i20?.high]).toEqual([6, 15]);
    expect(i20?.coverage).toBeCloseTo(0.9586, 4);
  });

  it('covers the true median at least as often as it claims (a check of the rule, deterministic draws)', () => {
    let state = 12345;
    const uniform = (): number => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648);
    let covered = 0;
    const trials = 2000;
    for (let t = 0; t < trials; t++) {
      const draws = Array.from({ length: 12 }, () => -Math.log(1 - uniform())); // exponential, median ln 2
      const interval = medianInterval(draws);
      if (interval !== undefined && interval.low <= Math.LN2 && Math.LN2 <= interval.high) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.95);
    // The negative control: the median alone, as an interval of width 0, almost never covers it.
    expect(medianInterval([1, 1, 1, 1, 1, 1])).toMatchObject({ low: 1, high: 1 });
  });

  it('survives many draws (no underflow) and refuses a confidence out of range', () => {
    const many = Array.from({ length: 1_000 }, (_, i) => i);
    const interval = medianInterval(many);
    expect(interval?.low).toBeGreaterThan(460);
    expect(interval?.high).toBeLessThan(540);
    expect(() => medianInterval([1], 1)).toThrow('confidence');
    expect(() => medianInterval(Array.from({ length: 1_001 }, () => 0))).toThrow('at most 1000');
  });
});
