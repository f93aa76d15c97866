import { describe, expect, it } from 'vitest';
import { exp, ln } from './portable-math.js';

// Distance in units in the last place between two finite doubles of the same sign.
function ulps(a: number, b: number): number {
  const view = new DataView(new ArrayBuffer(16));
  view.setFloat64(0, a);
  view.setFloat64(8, b);
  return Number(view.getBigInt64(0) - view.getBigInt64(8)) * (a < 0 ? -1 : 1);
}

// A deterministic spread of inputs: every binade from subnormals to the largest doubles, and the
// values the simulator feeds these (uniform draws in (0,1), lognormal exponents of a few units).
function inputs(): number[] {
  const values: number[] = [];
  let seed = 12345;
  const next = (): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  for (let e = -1074; e <= 1023; e += 7) values.push(2 ** e * (1 + next()));
  for (let i = 0; i < 20_000; i += 1) values.push(next());
  for (let i = 0; i < 2_000; i += 1) values.push(1 + (next() - 0.5) * 1e-5); // |f| < 2^-20 paths
  return values.filter((v) => Number.isFinite(v) && v > 0);
}

describe('portable ln and exp', () => {
  it('ln is within one ulp of the engine and exact where the answer is', () => {
    for (const x of inputs()) expect(Math.abs(ulps(ln(x), Math.log(x))), `ln(${x})`).toBeLessThanOrEqual(1);
    expect(ln(1)).toBe(0);
    expect(ln(2)).toBe(Math.LN2);
    expect(ln(0)).toBe(-Infinity);
    expect(ln(-1)).toBeNaN();
    expect(ln(Infinity)).toBe(Infinity);
    expect(ln(Number.MIN_VALUE)).toBeCloseTo(-744.4400719213813, 10);
  });

  it('exp is within one ulp of the engine across its whole range, and handles the edges', () => {
    const xs = [...inputs().map((v) => (v - 0.5) * 40), ...Array.from({ length: 1_400 }, (_, i) => -745 + i * 1.0643), 1e-30, -1e-30];
    for (const x of xs) {
      const mine = exp(x);
      const engine = Math.exp(x);
      if (engine === 0 || mine === 0) expect(Math.abs(mine - engine), `exp(${x})`).toBeLessThanOrEqual(Number.MIN_VALUE);
      else expect(Math.abs(ulps(mine, engine)), `exp(${x})`).toBeLessThanOrEqual(1);
    }
    expect(exp(0)).toBe(1);
    expect(Math.abs(ulps(exp(1), Math.E))).toBeLessThanOrEqual(1); // fdlibm's exp(1) is one ulp above the nearest double
    expect(exp(-Infinity)).toBe(0);
    expect(exp(Infinity)).toBe(Infinity);
    expect(exp(710)).toBe(Infinity);
    expect(exp(Number.NaN)).toBeNaN();
  });

  it('inverts: exp(ln(x)) comes back to x (ln\'s half-ulp rounding, magnified |ln x| times by exp)', () => {
    for (const x of inputs().filter((v) => v > 1e-300 && v < 1e300)) expect(Math.abs(ulps(exp(ln(x)), x)), `x=${x}`).toBeLessThanOrEqual(Math.max(2, Math.abs(ln(x)) * 2));
  });
});
