import { describe, expect, it } from 'vitest';
import type { ClosedLoopResult } from './closed-loop.js';
import type { LatencySummary } from './histogram.js';
import { computeRatios, judgeGoals, ratio, workloadReport } from './report.js';

const latency = (p50Ms: number): LatencySummary => ({ count: 100, p50Ms, p99Ms: p50Ms * 3, p999Ms: p50Ms * 5, maxMs: p50Ms * 6, meanMs: p50Ms * 1.2 });

function run(concurrency: number, throughputPerS: number, phases: Record<string, number>): ClosedLoopResult {
  return {
    concurrency,
    measuredMs: 1000,
    operations: throughputPerS,
    throughputPerS,
    phases: Object.fromEntries(Object.entries(phases).map(([name, p50]) => [name, latency(p50)])),
    errors: 0,
  };
}

describe('ratios and goals', () => {
  const raw = workloadReport('rawTxn', [run(64, 1000, { create: 8, delete: 8, cycle: 16 }), run(1, 300, { create: 1, delete: 1, cycle: 2 })]);
  const grant = workloadReport('grant', [run(1, 280, { acquire: 1.1, release: 1, cycle: 2.1 }), run(64, 900, { acquire: 9, release: 9, cycle: 18 })]);
  const service = workloadReport('service', [run(1, 150, { acquire: 3.1, release: 3, cycle: 6.1 }), run(64, 450, { acquire: 18, release: 18, cycle: 36 })]);
  const peer = workloadReport('peerLock', [run(1, 100, { acquire: 3, release: 1.5, cycle: 4.5 }), run(64, 500, { acquire: 20, release: 10, cycle: 30 })]);

  it('puts runs in concurrency order, with headline latency at the lowest and throughput at the highest', () => {
    expect(raw.runs.map((r) => r.concurrency)).toEqual([1, 64]);
    expect(raw.p50Ms).toBe(1);
    expect(raw.throughputPerS).toBe(1000);
    expect(grant.primaryPhase).toBe('acquire');
  });

  it('computes the issue ratios: grant/raw p50 at the lowest concurrency, throughput at the highest, peer/grant cycle', () => {
    const ratios = computeRatios(raw, grant, peer, service);
    expect(ratios.grantP50OverRaw).toBe(1.1);
    expect(ratios.grantThroughputOverRaw).toBe(0.9);
    expect(ratios.peerP50OverGrant).toBe(2.143);
    expect(ratios.byConcurrency).toHaveLength(2);
    // The service hop (ADR-18): service over in-process at each concurrency, and the p50 difference in ms.
    expect(ratios.byConcurrency.map((r) => [r.serviceP50OverGrant, r.serviceThroughputOverGrant, r.serviceHopP50Ms])).toEqual([[2.818, 0.536, 2], [2, 0.5, 9]]);
    const goals = judgeGoals(ratios, { status: 'compared', worstLatencyDeviation: 0.2 }, { members: 3, local: true });
    expect(goals.map((g) => g.met)).toEqual([true, true, true, true, true]);
  });

  it('marks a missed goal and an unmeasurable ratio', () => {
    expect(ratio(1, 0)).toBeNull();
    expect(ratio(undefined, 1)).toBeNull();
    const slowGrant = workloadReport('grant', [run(1, 200, { acquire: 1.5, release: 1, cycle: 2.5 }), run(64, 700, { acquire: 12, release: 9, cycle: 21 })]);
    const slowService = workloadReport('service', [run(1, 50, { acquire: 6, release: 6, cycle: 12 }), run(64, 150, { acquire: 140, release: 150, cycle: 290 })]);
    const goals = judgeGoals(computeRatios(raw, slowGrant, peer, slowService), { status: 'compared', worstLatencyDeviation: 0.4 }, { members: 1, local: true });
    expect(goals.map((g) => g.met)).toEqual([false, false, false, false, false]);
    expect(goals[4]?.note).toMatch(/local 3-member cluster; this was local with 1 member/);
    // No service run: its ratios and its goal are unmeasured, not zero.
    const withoutService = judgeGoals(computeRatios(raw, slowGrant, peer), { status: 'not-requested' }, { members: 3, local: true });
    expect(withoutService[3]).toMatchObject({ met: null, value: null });
    expect(withoutService[4]).toMatchObject({ met: null, note: 'not measured: run with --compare-sim' });
  });
});
