import { describe, expect, it } from 'vitest';
import { wilsonInterval, withinInterval } from './wilson-interval.js';

describe('wilsonInterval', () => {
  it('matches the textbook figures (Newcombe 1998: 81 of 263 -> 0.2553..0.3662)', () => {
    const i = wilsonInterval(81, 263);
    expect(i.low).toBeCloseTo(0.2553, 3);
    expect(i.high).toBeCloseTo(0.3662, 3);
    expect(i.share).toBeCloseTo(81 / 263, 10);
  });

  it('stays inside 0..1 at the edges and is wide with few trials', () => {
    expect(wilsonInterval(0, 10)).toMatchObject({ low: 0 });
    expect(wilsonInterval(0, 10).high).toBeCloseTo(0.2775, 3);
    expect(wilsonInterval(10, 10)).toMatchObject({ high: 1 });
    expect(wilsonInterval(10, 10).low).toBeCloseTo(0.7225, 3);
    expect(wilsonInterval(0, 0)).toMatchObject({ low: 0, high: 1 });
  });

  it('narrows as trials grow', () => {
    const few = wilsonInterval(5, 10);
    const many = wilsonInterval(500, 1000);
    expect(many.high - many.low).toBeLessThan((few.high - few.low) / 5);
  });

  it('says whether a predicted share is inside, and refuses what is not a count', () => {
    const i = wilsonInterval(40, 100);
    expect(withinInterval(i, 0.45)).toBe(true);
    expect(withinInterval(i, 0.6)).toBe(false); // negative control: a prediction far off is outside
    expect(() => wilsonInterval(11, 10)).toThrow(RangeError);
    expect(() => wilsonInterval(1.5, 10)).toThrow(RangeError);
  });
});
