import { describe, expect, it } from 'vitest';
import type { HardwareProfile } from '../profile.js';
import { workloadReport } from '../report.js';
import { calibrate } from './calibration.js';
import { predictGrant } from './predict.js';

const profile: HardwareProfile = {
  kind: 'lockstep-hardware-profile',
  version: 1,
  measuredAt: '2025-01-01T00:00:00.000Z',
  env: { etcdVersion: '3.4.23', members: 3, cores: 2, cpuModel: 'test', disk: { dir: '/tmp' }, platform: 'linux-x64' },
  walFsync: { kind: 'empirical', samplesMs: [0.2, 0.3, 0.5, 2] },
  loopbackRtt: { kind: 'empirical', samplesMs: [0.04, 0.06, 0.1] },
};

const latency = { count: 10, p50Ms: 1, p99Ms: 2, p999Ms: 3, maxMs: 3, meanMs: 1.2 };
const grant = workloadReport('grant', [
  { concurrency: 1, measuredMs: 1000, operations: 300, throughputPerS: 300, phases: { acquire: latency, release: latency, cycle: latency }, errors: 0, cpu: { clientUs: 600, leaderUs: 500, followerUs: 300, etcdUs: 1100 } },
]);

describe('compare-sim calibration and prediction', () => {
  it('derives per-write CPU costs from the grant run and halves the RTT for one-way links', () => {
    const { calibration, notes } = calibrate(profile, grant.runs[0], 3);
    expect(calibration).toMatchObject({ members: 3, clientCostMsPerCall: 0.3, applyCostMs: 0.15, requestCostMs: 0.1, fromConcurrency: 1 });
    expect(calibration.oneWayLink.samplesMs).toEqual([0.02, 0.03, 0.05]);
    expect(notes).toEqual([]);
    const remote = calibrate(profile, { ...grant.runs[0]!, cpu: { clientUs: 600 } }, 3);
    expect(remote.calibration).toMatchObject({ requestCostMs: 0, applyCostMs: 0 });
    expect(remote.notes[0]).toMatch(/no per-member CPU/);
  });

  it('predicts ordered, positive figures, the same for the same seed', async () => {
    const { calibration } = calibrate(profile, grant.runs[0], 3);
    const run = () => predictGrant({ calibration, concurrency: 2, durationMs: 300, warmupMs: 100, seed: 'predict-test' });
    const first = await run();
    expect(first.acquire.count).toBeGreaterThan(10);
    expect(first.acquire.p50Ms).toBeGreaterThan(0);
    expect(first.acquire.p50Ms).toBeLessThanOrEqual(first.acquire.p99Ms);
    // At least the client CPU, a round trip and one fsync per acquire.
    expect(first.acquire.p50Ms).toBeGreaterThan(0.3 + 0.04 + 0.2);
    expect(first.throughputPerS).toBeGreaterThan(0);
    const second = await run();
    expect({ ...second, wallMs: 0 }).toEqual({ ...first, wallMs: 0 });
  });
});
