import { describe, expect, it } from 'vitest';
import { BoundedCache } from './bounded-cache.js';

describe('BoundedCache', () => {
  it('computes a key once while it is cached, undefined results included', () => {
    const cache = new BoundedCache<string, number | undefined>(4);
    let calls = 0;
    const compute = (key: string): number | undefined => {
      calls += 1;
      return key === 'none' ? undefined : key.length;
    };
    expect(cache.get('abc', compute)).toBe(3);
    expect(cache.get('abc', compute)).toBe(3);
    expect(cache.get('none', compute)).toBeUndefined();
    expect(cache.get('none', compute)).toBeUndefined();
    expect(calls).toBe(2);
  });

  it('keeps at most its capacity, forgetting the oldest insertion first', () => {
    const cache = new BoundedCache<number, number>(2);
    const computed: number[] = [];
    const square = (n: number): number => {
      computed.push(n);
      return n * n;
    };
    cache.get(1, square);
    cache.get(2, square);
    cache.get(3, square); // 1 goes
    expect(cache.size).toBe(2);
    cache.get(2, square); // still cached
    cache.get(1, square); // computed again (and 2 goes)
    expect(computed).toEqual([1, 2, 3, 1]);
  });

  it('hands out a cached object frozen, so no caller can change what the next one gets', () => {
    const cache = new BoundedCache<string, { n: number }>(2);
    const first = cache.get('a', () => ({ n: 1 }));
    expect(Object.isFrozen(first)).toBe(true);
    expect(() => {
      (first as { n: number }).n = 2;
    }).toThrow(TypeError);
    expect(cache.get('a', () => ({ n: 9 })).n).toBe(1);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new BoundedCache(0)).toThrow(/capacity/);
  });
});
