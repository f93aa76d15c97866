// Nearest-rank percentiles: the figure is a sample some run produced, and a quantile outside (0, 1] is a
// programmer error that fails the run (core/assert.ts), never a quietly clamped answer.
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../assert.js';
import { percentile, summarise } from './percentiles.js';

describe('percentiles', () => {
  it('takes the nearest rank: p50 of 1..10 is 5, p99 is 10, and each is a sample', () => {
    const samples = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5];
    expect(percentile(samples, 0.5)).toBe(5);
    expect(percentile(samples, 0.99)).toBe(10);
    expect(summarise(samples)).toMatchObject({ count: 10, minMs: 1, p50Ms: 5, maxMs: 10 });
    expect(percentile([], 0.5)).toBeNaN();
  });

  it('fails on a quantile outside (0, 1] (a programmer error), where a valid one answers', () => {
    expect(() => percentile([1, 2, 3], 0)).toThrow(AssertionError);
    expect(() => percentile([1, 2, 3], 1.5)).toThrow(AssertionError);
    expect(percentile([1, 2, 3], 1)).toBe(3);
  });
});
