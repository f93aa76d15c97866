import { describe, expect, it } from 'vitest';
import { quantilePoints } from './profile.js';

describe('quantilePoints', () => {
  it('keeps min and max, sorts, and caps the count', () => {
    const samples = Array.from({ length: 5000 }, (_, i) => ((i * 7919) % 5000) / 100);
    const points = quantilePoints(samples, 100);
    expect(points).toHaveLength(100);
    expect(points[0]).toBe(0);
    expect(points[99]).toBe(49.99);
    expect([...points].sort((a, b) => a - b)).toEqual(points);
  });

  it('returns every sample (sorted) when there are fewer than the cap, and nothing for nothing', () => {
    expect(quantilePoints([3, 1, 2])).toEqual([1, 2, 3]);
    expect(quantilePoints([4.12345678])).toEqual([4.123]);
    expect(quantilePoints([])).toEqual([]);
  });
});
