import { describe, expect, it } from 'vitest';
import { compileDistribution, standardNormalQuantile, type DistributionSpec } from './distribution.js';
import { Rng } from './rng.js';

function sample(spec: DistributionSpec, count: number): number[] {
  const quantile = compileDistribution(spec);
  const stream = new Rng('distribution-test').stream(spec.kind);
  return Array.from({ length: count }, () => quantile(stream.next())).sort((a, b) => a - b);
}

describe('distributions', () => {
  it('constant and uniform', () => {
    expect(sample({ kind: 'constant', ms: 2 }, 10)).toEqual(Array(10).fill(2));
    const uniform = sample({ kind: 'uniform', minMs: 1, maxMs: 3 }, 10_000);
    expect(uniform[0]!).toBeGreaterThanOrEqual(1);
    expect(uniform.at(-1)!).toBeLessThanOrEqual(3);
    expect(uniform[5000]!).toBeCloseTo(2, 1);
  });

  it('lognormal is fitted by its median and p99', () => {
    const draws = sample({ kind: 'lognormal', medianMs: 0.5, p99Ms: 2 }, 100_000);
    expect(draws[50_000]!).toBeGreaterThan(0.48);
    expect(draws[50_000]!).toBeLessThan(0.52);
    expect(draws[99_000]!).toBeGreaterThan(1.85);
    expect(draws[99_000]!).toBeLessThan(2.15);
    const quantile = compileDistribution({ kind: 'lognormal', medianMs: 0.5, p99Ms: 2 });
    expect(quantile(0.5)).toBeCloseTo(0.5, 6);
    expect(quantile(0.99)).toBeCloseTo(2, 6);
    expect(Number.isFinite(quantile(0))).toBe(true);
  });

  it('empirical interpolates between sorted samples', () => {
    const quantile = compileDistribution({ kind: 'empirical', samplesMs: [4, 1, 2] });
    expect(quantile(0)).toBe(1);
    expect(quantile(0.25)).toBe(1.5);
    expect(quantile(0.5)).toBe(2);
    expect(quantile(0.75)).toBe(3);
    expect(quantile(0.9999)).toBeLessThanOrEqual(4);
    expect(compileDistribution({ kind: 'empirical', samplesMs: [7] })(0.3)).toBe(7);
  });

  it('is plain data: a spec survives JSON', () => {
    const spec: DistributionSpec = { kind: 'lognormal', medianMs: 0.5, p99Ms: 2 };
    const copy = JSON.parse(JSON.stringify(spec)) as DistributionSpec;
    expect(compileDistribution(copy)(0.7)).toBe(compileDistribution(spec)(0.7));
  });

  it('names the field to fix in a bad spec', () => {
    expect(() => compileDistribution({ kind: 'uniform', minMs: 3, maxMs: 1 }, 'link a->b latency')).toThrow('link a->b latency: uniform.maxMs (1) must be >= minMs (3)');
    expect(() => compileDistribution({ kind: 'lognormal', medianMs: 2, p99Ms: 1 })).toThrow('lognormal.p99Ms');
    expect(() => compileDistribution({ kind: 'empirical', samplesMs: [] })).toThrow('at least one sample');
    expect(() => compileDistribution({ kind: 'constant', ms: -1 })).toThrow('constant.ms');
    expect(() => compileDistribution({ kind: 'pareto' } as unknown as DistributionSpec)).toThrow('unknown distribution kind "pareto"');
  });

  it('standard normal quantile is accurate', () => {
    expect(standardNormalQuantile(0.5)).toBeCloseTo(0, 9);
    expect(standardNormalQuantile(0.975)).toBeCloseTo(1.959964, 5);
    expect(standardNormalQuantile(0.01)).toBeCloseTo(-2.326348, 5);
  });
});
