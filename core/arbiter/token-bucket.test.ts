import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('gives the burst at once, then the rate, and refills to the burst only', () => {
    const bucket = new TokenBucket(0, 3);
    expect([1, 2, 3, 4].map(() => bucket.take(0, 10, 3))).toEqual([true, true, true, false]);
    expect(bucket.take(50, 10, 3)).toBe(false); // half a token
    expect(bucket.take(100, 10, 3)).toBe(true); // one token after 100 ms at 10/s
    expect(bucket.full(10_000, 10, 3)).toBe(true);
    expect([1, 2, 3, 4].map(() => bucket.take(10_000, 10, 3))).toEqual([true, true, true, false]); // never more than the burst
  });
});
