import { describe, expect, it } from 'vitest';
import { summarise } from '../../core/planner/percentiles.js';
import { specAt } from '../../core/planner/topology.js';
import { type BenchShape, benchShapeTopology, fitHostTiming, schedulingDelaySpec } from './host-fit.js';
import type { HostTiming } from './host-timing.js';
import { simulateAcquisitions } from './quorum-run.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

// A made-up profile: every CPU term of the priced path, a fast disk, one client on loopback.
const shape: BenchShape = { members: 3, clients: 1, loopbackRttP50Ms: 0.04, loopbackRttP99Ms: 0.08 };
const costs: HostTiming = {
  source: 'made up',
  walFsync: { kind: 'constant', ms: 0.2 },
  requestCostMs: 0.4,
  applyCostMs: 0.5,
  arbiterCostMsPerCall: 1.2,
  servedHop: { clientMsPerCall: 0.8, serveMsPerCall: 1.5 },
  fromConcurrency: 1,
};
const benchP50 = async (host: HostTiming): Promise<{ p50Ms: number; p99Ms: number }> => {
  const sim = await simulateAcquisitions(benchShapeTopology(shape, { kind: 'constant', ms: 0.2 }), { runs: 1, samplesPerRun: 200, seed: 'check', yieldToHost, host });
  return summarise(sim.latenciesMs);
};

describe('fitHostTiming (issue 32: the share of CPU per op on the grant\'s path, fitted to the bench)', () => {
  it('fits share ~0.5 to a bench that measured half the CPU-priced latency above the CPU-free floor, and reproduces it', async () => {
    const none = await benchP50({ ...costs, cpuOnPathShare: 0 });
    const all = await benchP50(costs);
    const measuredP50Ms = none.p50Ms + (all.p50Ms - none.p50Ms) / 2; // the CPU per op twice what the path shows
    const fitted = await fitHostTiming({ ...costs, benchAcquire: { p50Ms: measuredP50Ms, p99Ms: measuredP50Ms } }, shape, yieldToHost);
    expect(fitted.cpuOnPathShare).toBeGreaterThan(0.45);
    expect(fitted.cpuOnPathShare).toBeLessThan(0.55);
    expect(fitted.schedulingDelay).toBeUndefined(); // p99 = p50: no tail to add
    const again = await benchP50(fitted);
    expect(Math.abs(again.p50Ms / measuredP50Ms - 1)).toBeLessThanOrEqual(0.02); // by construction
    expect(again.p50Ms).toBeLessThan(all.p50Ms * 0.8); // control: the unfitted model prices it higher
  });

  it('clamps the share to [0, 1] and adds the measured tail beyond the model\'s own as a scheduling delay', async () => {
    const slow = await fitHostTiming({ ...costs, benchAcquire: { p50Ms: 100, p99Ms: 100 } }, shape, yieldToHost);
    expect(slow.cpuOnPathShare).toBe(1);
    const fast = await fitHostTiming({ ...costs, benchAcquire: { p50Ms: 0.01, p99Ms: 9 } }, shape, yieldToHost);
    expect(fast.cpuOnPathShare).toBe(0);
    expect(fast.fit?.schedulingDelayP99Ms).toBeGreaterThan(8);
    expect(fast.fit?.schedulingDelayP99Ms).toBeLessThan(9);
  });

  it('reproduces the bench\'s p99 with the scheduling delay, which the model alone misses (the control)', async () => {
    const measured = { p50Ms: 5, p99Ms: 14 };
    const fitted = await fitHostTiming({ ...costs, benchAcquire: measured }, shape, yieldToHost);
    const priced = await benchP50(fitted);
    expect(Math.abs(priced.p50Ms / measured.p50Ms - 1)).toBeLessThanOrEqual(0.05);
    expect(Math.abs(priced.p99Ms / measured.p99Ms - 1)).toBeLessThanOrEqual(0.2);
    const { schedulingDelay: _none, ...withoutDelay } = fitted;
    expect((await benchP50(withoutDelay)).p99Ms).toBeLessThan(measured.p99Ms * 0.6);
  });

  it('leaves a host without the bench\'s measured latency unchanged: not fitted', async () => {
    expect(await fitHostTiming(costs, shape, yieldToHost)).toBe(costs);
  });
});

describe('schedulingDelaySpec', () => {
  it('is zero for half the draws and the tail at p99; none for no tail', () => {
    const spec = schedulingDelaySpec(4, 9)!;
    const points = spec.kind === 'empirical' ? spec.samplesMs : [];
    expect(points.filter((ms) => ms === 0).length).toBeGreaterThanOrEqual(points.length / 2 - 1);
    expect(specAt(spec, 0.5)).toBeLessThan(0.05);
    expect(specAt(spec, 0.99)).toBeGreaterThan(8.8);
    expect(specAt(spec, 0.99)).toBeLessThan(9.2);
    expect(schedulingDelaySpec(4, 0)).toBeUndefined();
  });
});
