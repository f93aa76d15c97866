import { describe, expect, it } from 'vitest';
import { createCryptoRandom, createSeededRandom } from './real-random.js';

const draw = (next: () => number, count: number) => Array.from({ length: count }, next);

describe('real Random sources', () => {
  it('replays a seeded stream exactly and differs between seeds', () => {
    const a = createSeededRandom('seed-1');
    const b = createSeededRandom('seed-1');
    const c = createSeededRandom('seed-2');
    const first = draw(() => a.next(), 20);
    expect(draw(() => b.next(), 20)).toEqual(first);
    expect(draw(() => c.next(), 20)).not.toEqual(first);
  });

  it('draws floats in [0, 1) from both sources', () => {
    for (const random of [createSeededRandom('x'), createCryptoRandom()]) {
      const values = draw(() => random.next(), 2000);
      expect(values.every((v) => v >= 0 && v < 1)).toBe(true);
      expect(new Set(values).size).toBeGreaterThan(1990);
      const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
      expect(mean).toBeGreaterThan(0.4);
      expect(mean).toBeLessThan(0.6);
    }
  });
});
