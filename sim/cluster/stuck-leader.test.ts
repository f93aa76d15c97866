// etcd#15247, the faithful version: a leader whose raft loop is stuck on a stalled fsync never processes
// another Ready, so it never learns it lost (its `isLeader` and lessor primacy only change there), while
// a partition cuts it off from both followers. A lease holder that can still reach it keeps sending it
// keepalives. The majority elects a new leader, whose Promote gives the lease TTL + 1 s; nobody renews it
// there, so it expires and its keys are revoked on the majority side. etcd 3.4.23 (the switch off) keeps
// answering the holder's keepalives with a full TTL after that; 3.5.13's ensureLeadership (on) cannot
// confirm leadership and answers "not a primary lessor".
import { describe, expect, it } from 'vitest';
import { isLockLogError } from '../../core/ports/lock-log-error.js';
import { UNHEDGED_KEEPALIVE, clusterWorld, settledLeader } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const TTL_SECONDS = 5;
const STALL_MS = 20_000;

interface Renewal {
  readonly sentMs: number;
  readonly answeredMs: number;
  readonly ttlSeconds: number | undefined;
  readonly error: string | undefined;
}

async function stuckLeaderRun(confirmLeadershipOnRenew: boolean) {
  const world = clusterWorld(yieldToHost, `etcd-15247-${confirmLeadershipOnRenew}`, { confirmLeadershipOnRenew }, true);
  const { kernel, cluster, driver } = world;
  const oldLeaderName = await settledLeader(world);
  const oldLeader = cluster.member(oldLeaderName);
  const holder = world.client('holder', { endpoints: [oldLeader], ...UNHEDGED_KEEPALIVE });
  const log = driver.lockLog(holder.log);
  const lease = await log.leaseGrant(TTL_SECONDS);
  const key = '/l/payments/ledger';
  await log.txn({ compare: [], success: [{ type: 'put', key, value: 'holder', lease: lease.id }], failure: [] });
  await driver.runFor(500);

  // The fault: the leader's disk stalls, and a partition cuts it from both followers (not from the holder).
  const faultAtMs = kernel.now();
  cluster.stallDisk(oldLeaderName, faultAtMs + STALL_MS);
  cluster.isolateFromPeers(oldLeaderName);
  // Any write makes the leader's next Ready need an fsync, so its raft loop sticks there.
  const stuckWrite = holder.log.txn({ compare: [], success: [{ type: 'put', key: '/unrelated', value: 'x' }], failure: [] }).catch((e: unknown) => e);

  const majority = cluster.members.filter((m) => m.name !== oldLeaderName);
  const renewals: Renewal[] = [];
  let revokedOnMajorityMs: number | undefined;
  const holderClock = holder.process.clock();
  while (kernel.now() < faultAtMs + STALL_MS - 2_000) {
    const sentMs = kernel.now();
    const answer = await log.leaseKeepAlive(lease.id).then(
      (response) => ({ ttlSeconds: response.ttlSeconds, error: undefined }),
      (error: unknown) => ({ ttlSeconds: undefined, error: isLockLogError(error) ? error.code : String(error) }),
    );
    renewals.push({ sentMs, answeredMs: kernel.now(), ...answer });
    if (revokedOnMajorityMs === undefined && majority.every((m) => m.state?.lessor.has(lease.id) === false)) revokedOnMajorityMs = kernel.now();
    await driver.wait(holderClock.sleep(1_000));
    if (revokedOnMajorityMs === undefined && majority.every((m) => m.state?.lessor.has(lease.id) === false)) revokedOnMajorityMs = kernel.now();
  }
  const newLeader = cluster.leader();
  const promote = kernel.trace.records().find((r) => r.kind === 'etcd.lease.promote' && r.timeMs > faultAtMs);
  const revoke = kernel.trace.records().find((r) => r.kind === 'etcd.lease.revoke' && r.fields['id'] === lease.id && r.process === newLeader?.name);
  const majorityRead = majority[0]!.state!.store.range({ key });
  return { world, oldLeaderName, oldLeader, newLeader, faultAtMs, renewals, revokedOnMajorityMs, promote, revoke, majorityRead, stuckWrite: await driver.wait(stuckWrite) };
}

describe('the stuck leader (etcd#15247) and confirmLeadershipOnRenew', () => {
  it('3.4.23 (switch off): the stuck leader renews the holder after the majority revoked its lease', async () => {
    const run = await stuckLeaderRun(false);
    const { oldLeader, newLeader, faultAtMs, renewals, revokedOnMajorityMs, promote, revoke } = run;
    // The old leader is still stuck and still believes it leads; the majority has a leader of a later term.
    expect(oldLeader.raft()?.readyLoopBusy).toBe(true);
    expect(oldLeader.isLeader()).toBe(true);
    expect(oldLeader.state?.lessor.isPrimary()).toBe(true);
    expect(newLeader).toBeDefined();
    expect(newLeader!.name).not.toBe(run.oldLeaderName);
    expect(newLeader!.raftStatus()!.term).toBeGreaterThan(oldLeader.raftStatus()!.term);
    // The new leader promoted between 1 and 3 s after the fault; the lease then lived TTL + 1 s there and
    // was revoked within the next expiry scan (500 ms) and a commit.
    expect(promote).toBeDefined();
    expect(promote!.timeMs - faultAtMs).toBeGreaterThan(1_000);
    expect(promote!.timeMs - faultAtMs).toBeLessThan(3_500);
    expect(revoke).toBeDefined();
    const lived = revoke!.timeMs - promote!.timeMs;
    expect(lived).toBeGreaterThanOrEqual((TTL_SECONDS + 1) * 1_000);
    expect(lived).toBeLessThan((TTL_SECONDS + 1) * 1_000 + 600);
    expect(revokedOnMajorityMs).toBeDefined();
    expect(run.majorityRead.ok && run.majorityRead.value.kvs).toEqual([]);
    // The bug: keepalives sent after the revoke on the majority side still come back with the full TTL.
    const lateRenewals = renewals.filter((r) => r.sentMs > revokedOnMajorityMs!);
    expect(lateRenewals.length).toBeGreaterThan(3);
    for (const renewal of lateRenewals) expect(renewal.ttlSeconds).toBe(TTL_SECONDS);
    // The write that made it stick timed out at the stuck leader (7 s), outcome unknown.
    expect(isLockLogError(run.stuckWrite, 'timeout') && run.stuckWrite.outcome).toBe('indeterminate');
    expect(run.world.cluster.violations).toEqual([]);
  });

  it('3.5.13 (switch on): the stuck leader cannot confirm its leadership and renews nothing', async () => {
    const run = await stuckLeaderRun(true);
    const { faultAtMs, renewals, revokedOnMajorityMs } = run;
    expect(run.newLeader!.name).not.toBe(run.oldLeaderName);
    expect(revokedOnMajorityMs).toBeDefined();
    const afterFault = renewals.filter((r) => r.sentMs >= faultAtMs);
    expect(afterFault.length).toBeGreaterThan(0);
    for (const renewal of afterFault) {
      expect(renewal.ttlSeconds).toBeUndefined();
      // ensureLeadership's ReadIndex round times out after 7 s: "not a primary lessor".
      expect(renewal.error).toBe('not-leader');
      expect(renewal.answeredMs - renewal.sentMs).toBeGreaterThanOrEqual(7_000);
    }
    expect(run.world.cluster.violations).toEqual([]);
  });
});
