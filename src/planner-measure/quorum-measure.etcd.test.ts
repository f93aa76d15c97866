// `lockstep quorum --measure` as a user runs it (the compiled CLI): the regional and stretched presets
// built of real etcd members behind link proxies, a short measurement of each. Structure and sanity only,
// no timed thresholds: every stretched grant waits for a quorum ack across a slowed link (leader etcd-use:
// its nearest peer is 15 ms away each way), so no stretched grant can be faster than 30 ms if the proxies
// apply their delay, however idle the host. (Stretched p50 above regional's is not asserted: at load
// 20-30 on 2 cores the host's own cost per grant varies by more than 30 ms between two runs of 20.)
import { describe, expect, it } from 'vitest';
import { childrenOf, processAlive } from '../testing/process-reaper.js';
import { runLockstep, startLockstep } from '../testing/lockstep-process.js';
import type { QuorumMeasurement } from './quorum-report.js';

const SAMPLES = 20;

describe('lockstep quorum --measure (real etcd, link proxies)', () => {
  it('measures regional and stretched beside their predictions, the stretched links slowed by the proxies', async () => {
    // --warmup 1s: the default 8 s per run would add 16 s to the suite; the warm-up's rule is the same.
    const run = await runLockstep(['quorum', '--topology', 'regional-3', '--compare', 'stretched-3-region', '--measure', '--clients', '1', '--runs', '1', '--samples', String(SAMPLES), '--warmup', '1s', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/0\/20 acquisitions \(the restarted arbiter warms up: its first 1s are not recorded\)/);
    expect(run.stderr).toMatch(/lockstep quorum: stretched-3-region: run 1\/1: moving the leader to etcd-use/); // progress lines
    expect(run.stderr).toMatch(/lockstep quorum: regional-3: rig: \+[\d.]+ ms per message on every link.*taken while the client loop ran \(\d+ pairs\)/); // probed during each measurement
    const { measurements } = JSON.parse(run.stdout) as { measurements: QuorumMeasurement[] };
    const [regional, stretched] = measurements;
    expect(measurements.map((m) => m.name)).toEqual(['regional-3', 'stretched-3-region']);
    for (const m of measurements) {
      expect(m.measured.samples).toBe(SAMPLES);
      expect(m.byLeader).toHaveLength(1);
      expect(m.measured.p99Ms).toBeGreaterThanOrEqual(m.measured.p50Ms);
      expect(m.predicted.p50Ms).toBeGreaterThan(0);
      expect(m.loadAverage).toHaveLength(3);
      expect(m.timing.rigLinkCost?.p99Ms).toBeGreaterThanOrEqual(m.timing.rigLinkCost?.p50Ms ?? Number.NaN); // the rig's term, measured and priced
    }
    expect(regional!.proxyDelays).toEqual([]); // sub-millisecond links: nothing slowed
    expect(stretched!.proxyDelays).toContain('etcd-use->etcd-usw 15 ms');
    expect(stretched!.byLeader[0]!.leader).toBe('etcd-use');
    // The delay is applied: a grant under leader etcd-use needs etcd-usw's ack, 2 x 15 ms through the proxies.
    expect(stretched!.measured.minMs).toBeGreaterThanOrEqual(30);
    expect(stretched!.predicted.p50Ms).toBeGreaterThan(regional!.predicted.p50Ms);
  }, 600_000);

  it('stops every process it started at Ctrl-C (SIGINT) and exits 130', async () => {
    const run = startLockstep(['quorum', '--topology', 'regional-3', '--measure', '--clients', '1', '--samples', '10000']);
    await run.waitForStderr(/acquisitions/, 300_000); // measuring: etcd members and the arbiter are up
    const children = childrenOf(run.pid);
    expect(children.length).toBeGreaterThanOrEqual(4); // three members and lockstep serve
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code, run.stderr()).toBe(130);
    expect(run.stderr()).toMatch(/interrupted; the measured processes were stopped/);
    expect(children.filter(processAlive)).toEqual([]);
  }, 600_000);
});
