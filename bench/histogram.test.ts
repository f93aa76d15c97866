import { describe, expect, it } from 'vitest';
import { LatencyHistogram } from './histogram.js';

describe('LatencyHistogram', () => {
  it('reports ordered percentiles within 0.1% of the samples', () => {
    const histogram = new LatencyHistogram();
    for (let i = 1; i <= 10_000; i++) histogram.record(i / 1000); // 0.001 .. 10 ms
    const s = histogram.summary();
    expect(s.count).toBe(10_000);
    expect(s.p50Ms).toBeCloseTo(5, 1);
    expect(s.p99Ms).toBeCloseTo(9.9, 1);
    expect(s.p999Ms).toBeCloseTo(9.99, 1);
    expect(s.p50Ms).toBeLessThanOrEqual(s.p99Ms);
    expect(s.p99Ms).toBeLessThanOrEqual(s.p999Ms);
    expect(s.p999Ms).toBeLessThanOrEqual(s.maxMs);
  });

  it('is all zeros when empty, and refuses a negative or non-finite latency', () => {
    const histogram = new LatencyHistogram();
    expect(histogram.summary()).toEqual({ count: 0, p50Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0, meanMs: 0 });
    expect(() => histogram.record(-1)).toThrow(/finite number of ms/);
    expect(() => histogram.record(Number.NaN)).toThrow(/finite number of ms/);
  });

  it('records sub-microsecond latencies as 1 us and huge ones at the ceiling, never throwing', () => {
    const histogram = new LatencyHistogram();
    histogram.record(0);
    histogram.record(10 * 3_600_000);
    expect(histogram.summary().count).toBe(2);
    expect(histogram.summary().maxMs).toBeGreaterThanOrEqual(599_000);
  });
});
