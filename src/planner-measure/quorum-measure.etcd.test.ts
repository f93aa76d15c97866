// `lockstep quorum --measure` as a user runs it (the compiled CLI): the regional and stretched presets
// built of real etcd members behind link proxies, a short measurement of each. Structure and sanity only,
// no timed thresholds: every stretched grant waits for a quorum ack across a slowed link (leader etcd-use:
// its nearest peer is 15 ms away each way), so no stretched sample can be under 30 ms if the proxies
// apply their delay, and the stretched p50 is above the regional one.
import { describe, expect, it } from 'vitest';
import { runLockstep } from '../testing/lockstep-process.js';
import type { QuorumMeasurement } from './quorum-report.js';

const SAMPLES = 20;

describe('lockstep quorum --measure (real etcd, link proxies)', () => {
  it('measures regional and stretched beside their predictions, the stretched links slowed by the proxies', async () => {
    const run = await runLockstep(['quorum', '--topology', 'regional-3', '--compare', 'stretched-3-region', '--measure', '--clients', '1', '--runs', '1', '--samples', String(SAMPLES), '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/lockstep quorum: stretched-3-region: run 1\/1: moving the leader to etcd-use/); // progress lines
    const { measurements } = JSON.parse(run.stdout) as { measurements: QuorumMeasurement[] };
    const [regional, stretched] = measurements;
    expect(measurements.map((m) => m.name)).toEqual(['regional-3', 'stretched-3-region']);
    for (const m of measurements) {
      expect(m.measured.samples).toBe(SAMPLES);
      expect(m.byLeader).toHaveLength(1);
      expect(m.measured.p99Ms).toBeGreaterThanOrEqual(m.measured.p50Ms);
      expect(m.predicted.p50Ms).toBeGreaterThan(0);
      expect(m.loadAverage).toHaveLength(3);
    }
    expect(regional!.proxyDelays).toEqual([]); // sub-millisecond links: nothing slowed
    expect(stretched!.proxyDelays).toContain('etcd-use->etcd-usw 15 ms');
    expect(stretched!.byLeader[0]!.leader).toBe('etcd-use');
    // The delay is applied: a grant under leader etcd-use needs etcd-usw's ack, 2 x 15 ms through the proxies.
    expect(stretched!.measured.p50Ms).toBeGreaterThanOrEqual(30);
    expect(stretched!.measured.p50Ms).toBeGreaterThan(regional!.measured.p50Ms);
    expect(stretched!.predicted.p50Ms).toBeGreaterThan(regional!.predicted.p50Ms);
  }, 600_000);
});
