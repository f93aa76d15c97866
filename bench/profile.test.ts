import { describe, expect, it } from 'vitest';
import { quantilePoints, servedHopCosts } from './profile.js';
import type { WorkloadRun } from './report.js';

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

describe('servedHopCosts (issue 32, the served lock.v1 hop)', () => {
  const run = (cpu: WorkloadRun['cpu']): WorkloadRun => ({ concurrency: 1, cpu, latency: { p50Ms: 4.1434, p99Ms: 13.2627 } }) as unknown as WorkloadRun;
  it("is per lock.v1 call (two per cycle): the service path's client CPU, and serve's beyond the in-process arbiter's; with the service path's acquire p50 and p99 (the fit's target)", () => {
    expect(servedHopCosts(run({ clientUs: 3000 }), run({ clientUs: 1400, serveUs: 7400 }))).toEqual({ hopClientCostMsPerCall: 0.7, hopServeCostMsPerCall: 2.2, serviceAcquireP50Ms: 4.143, serviceAcquireP99Ms: 13.263 });
    expect(servedHopCosts(run({ clientUs: 3000 }), run({ clientUs: 1400, serveUs: 2000 }))).toEqual({ hopClientCostMsPerCall: 0.7, hopServeCostMsPerCall: 0, serviceAcquireP50Ms: 4.143, serviceAcquireP99Ms: 13.263 }); // never below 0
  });

  it("takes the latency from the fit target (bench/fit-target.ts) at its concurrency, with its sample count; not at another", () => {
    const target = { concurrency: 1 as const, samples: 2500, p50Ms: 5.0004, p99Ms: 15.2 };
    expect(servedHopCosts(run({ clientUs: 3000 }), run({ clientUs: 1400, serveUs: 7400 }), target)).toEqual({ hopClientCostMsPerCall: 0.7, hopServeCostMsPerCall: 2.2, serviceAcquireP50Ms: 5, serviceAcquireP99Ms: 15.2, serviceAcquireSamples: 2500 });
    const atEight = { ...run({ clientUs: 1400, serveUs: 7400 }), concurrency: 8 } as WorkloadRun;
    expect(servedHopCosts(run({ clientUs: 3000 }), atEight, target)?.serviceAcquireP99Ms).toBe(13.263);
  });

  it('is absent without serve\'s CPU or without a service run at that concurrency (the hop then stays unpriced)', () => {
    expect(servedHopCosts(run({ clientUs: 3000 }), run({ clientUs: 1400 }))).toBeUndefined();
    expect(servedHopCosts(run({ clientUs: 3000 }), undefined)).toBeUndefined();
  });
});
