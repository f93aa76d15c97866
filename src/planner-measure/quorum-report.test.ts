import { describe, expect, it } from 'vitest';
import { loadTopology } from '../commands/quorum.js';
import { asBuilt, type QuorumMeasurement, renderDifferences, renderMeasurement } from './quorum-report.js';

const measurement = (name: string, predicted: [number, number], measured: [number, number]): QuorumMeasurement => ({
  name, runs: 1, samplesPerRun: 10,
  predicted: { p50Ms: predicted[0], p99Ms: predicted[1] }, predictedAsBuilt: { p50Ms: predicted[0], p99Ms: predicted[1] },
  measured: { p50Ms: measured[0], p99Ms: measured[1], minMs: measured[0] / 2, samples: 10, failures: 0 },
  deviation: { p50Ms: measured[0] / predicted[0] - 1, p99Ms: measured[1] / predicted[1] - 1 },
  withinTolerance: { p50: Math.abs(measured[0] / predicted[0] - 1) <= 0.2, p99: Math.abs(measured[1] / predicted[1] - 1) <= 0.2 },
  timing: { source: 'the simulator\'s defaults', fsyncP50Ms: 1, fsyncP99Ms: 4, requestCostMs: 0.05, applyCostMs: 0, arbiterCostMsPerCall: 0, servedHop: null, fromConcurrency: null, rigLinkCost: { p50Ms: 0.06, p99Ms: 2 }, fit: null },
  proxyDelays: [], byLeader: [{ leader: 'a', leaderAtEnd: 'b', samples: 10, failures: 0, measured: { p50Ms: measured[0], p99Ms: measured[1] }, predicted: null }], loadAverage: [1, 2, 3],
});

describe('the measurement report', () => {
  it('says whether each figure is within ±20% and when the leader moved during a run', () => {
    const text = renderMeasurement(measurement('stretched', [60, 150], [66, 300]));
    expect(text).toMatch(/p50 .*\+10% \(within ±20%\)/);
    expect(text).toMatch(/p99 .*\+100% \(outside ±20%\)/); // negative control
    expect(text).toMatch(/the leader moved to b during the run/);
    expect(text).toMatch(/measured vs as built\n/); // the verdict is against the topology the rig built
    expect(text).toMatch(/links slowed: none/);
    expect(text).toMatch(/host timing: the simulator's defaults\n.*WAL fsync p50 1 \/ p99 4 ms.*\n +lock.v1 hop CPU: not priced.*\n +CPU on the grant's path: all of each term above \(not fitted.*\n {2}rig: \+0.06 ms per message on every link/); // the timing the prediction used
  });

  it('prints what each topology adds over the first, measured beside predicted', () => {
    const lines = renderDifferences([measurement('regional', [2, 5], [50, 200]), measurement('stretched', [62, 150], [110, 400])]);
    expect(lines[0]).toMatch(/added over regional/);
    expect(lines[1]).toBe('  stretched p50: measured +60 ms, predicted +60 ms (+0%)');
    expect(lines[2]).toMatch(/p99: measured \+200 ms, predicted \+145 ms \(\+38%\)/);
    expect(renderDifferences([measurement('alone', [1, 2], [3, 4])])).toEqual([]);
  });

  it('prices the topology as the rig builds it: whole-ms proxy delays, sub-ms links left to loopback, no jitter', async () => {
    const regional = await loadTopology('regional-3');
    expect(asBuilt(regional).rttMs).toEqual([[0, 0, 0], [0, 0, 0], [0, 0, 0]]); // 0.1-0.3 ms one way: no proxy delay
    expect(asBuilt(regional).linkP99OverMedian).toBe(1);
    const stretched = await loadTopology('stretched-3-region');
    expect(asBuilt(stretched).rttMs).toEqual(stretched.rttMs.map((row) => row.map((rtt) => (rtt === null ? null : 2 * Math.round(rtt / 2)))));
    expect(asBuilt(stretched).rttMs).not.toEqual(asBuilt(regional).rttMs); // control: a slowed link stays slowed
  });
});
