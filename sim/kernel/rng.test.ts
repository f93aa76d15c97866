import { describe, expect, it } from 'vitest';
import { Rng, deriveSeed } from './rng.js';

const draws = (rng: Rng, name: string, count: number): number[] => Array.from({ length: count }, () => rng.stream(name).next());

describe('Rng', () => {
  it('gives each named stream draws that depend only on (seed, name)', () => {
    const alone = new Rng('seed-1');
    const expected = draws(alone, 'net/link/a->b', 100);

    // Another world where other components exist, are made first and draw in between.
    const crowded = new Rng('seed-1');
    draws(crowded, 'disk/etcd-1/disk', 50);
    const interleaved: number[] = [];
    for (let i = 0; i < 100; i++) {
      interleaved.push(crowded.stream('net/link/a->b').next());
      crowded.stream(`net/link/c->${i % 3}`).next();
    }
    expect(interleaved).toEqual(expected);
  });

  it('differs between names and between seeds', () => {
    const rng = new Rng('seed-1');
    expect(draws(rng, 'a', 5)).not.toEqual(draws(rng, 'b', 5));
    expect(draws(new Rng('seed-1'), 'a', 5)).not.toEqual(draws(new Rng('seed-2'), 'a', 5));
    // Length-prefixing keeps (seed, name) pairs from colliding by concatenation.
    expect(deriveSeed('ab', 'c')).not.toBe(deriveSeed('a', 'bc'));
  });

  it('returns the same stream for the same name, with helpers that stay in range', () => {
    const rng = new Rng('x');
    const stream = rng.stream('s');
    expect(rng.stream('s')).toBe(stream);
    for (let i = 0; i < 1000; i++) {
      const value = stream.next();
      expect(value >= 0 && value < 1).toBe(true);
      const int = stream.int(3, 5);
      expect([3, 4, 5]).toContain(int);
    }
    expect(stream.draws).toBe(2000);
    expect(() => stream.pick([])).toThrow('empty');
    expect(rng.streamNames()).toEqual(['s']);
  });
});
