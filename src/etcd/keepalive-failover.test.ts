// One stuck etcd member must not fence a holder while a quorum is healthy (issue 11 L6). On a real 3-member
// cluster the member the client talks to is SIGSTOPped (alive, silent: a long GC pause, a stuck disk).
// Keepalives used to wait their whole 8 s deadline on it before failing over, longer than the fence
// budget; now a keepalive not answered within 500 ms is also sent to the next member (a keepalive may be
// sent twice: it renews and writes nothing), and the member that answers becomes the one the client uses.
import { actingAs, authenticated } from '../../core/ports/caller.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FenceReason } from '../../core/client/client-session.js';
import { LockClient } from '../../core/client/lock-client.js';
import type { LeaseKeepAliveResponse, LockLog } from '../../core/ports/lock-log.js';
import type { LeaseId } from '../../core/units.js';
import { createRealClock } from '../clock/index.js';
import { ALICE, FENCED, FENCED_SHORT, NAMESPACE, fixtureArbiter } from '../testing/arbiter-fixture.js';
import { DelegatingLockLog } from '../testing/delegating-lock-log.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { DEFAULT_REQUEST_TIMEOUT_MS, type EtcdLockLogOptions, createEtcdLockLog, initEtcdLog } from './index.js';

const clock = createRealClock();
const REAL_CLUSTER_TIMEOUT_MS = 180_000;

/** Records the member that answered each keepalive, and when it was sent. */
class KeepAliveWitness extends DelegatingLockLog {
  readonly answered: Array<{ sentMs: number; memberId: bigint }> = [];

  override async leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    const sentMs = clock.now();
    const response = await super.leaseKeepAlive(id);
    this.answered.push({ sentMs, memberId: response.header.memberId });
    return response;
  }
}

describe('keepalives with one stuck member on a real 3-member etcd', () => {
  let cluster: EtcdCluster;
  const memberIds: bigint[] = [];
  let leader = -1;
  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 3 });
    await initEtcdLog(cluster.endpoints);
    for (const endpoint of cluster.endpoints) {
      const log = createEtcdLockLog({ endpoints: [endpoint] });
      memberIds.push((await log.status()).header.memberId);
      await log.close();
    }
    leader = await leaderNow();
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  /** The member leading now: a test that stopped the leader moved leadership on. */
  async function leaderNow(): Promise<number> {
    const log = createEtcdLockLog({ endpoints: [...cluster.endpoints] });
    try {
      return memberIds.indexOf((await log.status()).leader);
    } finally {
      await log.close();
    }
  }

  /**
   * Holds a key with the stuck member first in the client's endpoint list, SIGSTOPs that member for
   * `holdMs`, and reports whether the holder was fenced and which members answered its keepalives.
   */
  async function holdWhileStuck(stuck: number, ttl: { name: string; ttlSeconds: number }, holdMs: number, logOptions: Partial<EtcdLockLogOptions> = {}) {
    const order = [stuck, ...[0, 1, 2].filter((i) => i !== stuck)];
    const witness = new KeepAliveWitness(createEtcdLockLog({ endpoints: order.map((i) => cluster.endpoints[i] ?? ''), ...logOptions }));
    const arbiter = fixtureArbiter(witness as LockLog);
    const client = new LockClient({ arbiter: actingAs(arbiter, authenticated(ALICE)), clock, identity: ALICE });
    const fences: FenceReason[] = [];
    try {
      const handle = await client.acquire({ key: `${NAMESPACE}/l6-${stuck}-${ttl.ttlSeconds}-${Date.now()}`, className: ttl.name, ttlSeconds: ttl.ttlSeconds, onFence: (reason) => fences.push(reason) });
      cluster.pauseMember(stuck);
      const stoppedAtMs = clock.now();
      try {
        await clock.sleep(holdMs);
      } finally {
        cluster.resumeMember(stuck);
      }
      const afterStop = witness.answered.filter((k) => k.sentMs >= stoppedAtMs);
      return { fences: [...fences], canStart: handle.canStart(), afterStop, stuckId: memberIds[stuck] }; // before close() fences it
    } finally {
      await client.close().catch(() => undefined);
      arbiter.close();
      await witness.target.close();
      await cluster.waitUntilHealthy();
    }
  }

  it('a TTL-5 s holder (the platform minimum) is not fenced when its member, a follower, stops; keepalives move to a healthy member', async () => {
    const follower = [0, 1, 2].find((i) => i !== leader) ?? 0;
    const held = await holdWhileStuck(follower, FENCED_SHORT, 12_000);
    expect(held.fences).toEqual([]);
    expect(held.canStart).toBe(true);
    expect(held.afterStop.length).toBeGreaterThanOrEqual(5); // one every TTL/3 = 1.67 s
    expect(held.afterStop.map((k) => k.memberId)).not.toContain(held.stuckId);
  }, REAL_CLUSTER_TIMEOUT_MS);

  it('the control: with the old keepalive (8 s deadline, no hedge) the same holder is fenced', async () => {
    const follower = [0, 1, 2].find((i) => i !== leader) ?? 0;
    const held = await holdWhileStuck(follower, FENCED_SHORT, 8_000, { keepAliveTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS, hedgeAfterMs: Number.POSITIVE_INFINITY });
    expect(held.fences).toEqual(['deadline']);
  }, REAL_CLUSTER_TIMEOUT_MS);

  it('a TTL-15 s holder is not fenced when its member is the leader and stops: the others elect one and renew', async () => {
    const held = await holdWhileStuck(leader, FENCED, 20_000);
    expect(held.fences).toEqual([]);
    expect(held.afterStop.length).toBeGreaterThanOrEqual(3);
    expect(held.afterStop.map((k) => k.memberId)).not.toContain(held.stuckId);
  }, REAL_CLUSTER_TIMEOUT_MS);

  /**
   * Issue 35 (swarm seed 71316): a keepalive that reaches an arbiter which did not open the session first
   * reads the session's record (core/arbiter/sessions.ts ownedBy). Arbiter A, whose endpoints leave the
   * stuck member last, opens the session and grants the hold; arbiter B, whose first endpoint is the
   * stuck member, serves every keepalive, so its first call is that read, sent to the stopped member.
   */
  async function renewThroughAnotherArbiter(stuck: number, holdMs: number, logOptions: Partial<EtcdLockLogOptions> = {}) {
    const healthy = [0, 1, 2].filter((i) => i !== stuck);
    const opener = createEtcdLockLog({ endpoints: [...healthy, stuck].map((i) => cluster.endpoints[i] ?? '') });
    const witness = new KeepAliveWitness(createEtcdLockLog({ endpoints: [stuck, ...healthy].map((i) => cluster.endpoints[i] ?? ''), ...logOptions }));
    const [arbiterA, arbiterB] = [fixtureArbiter(opener), fixtureArbiter(witness as LockLog)];
    const renewer = actingAs(arbiterB, authenticated(ALICE));
    const client = new LockClient({ arbiter: { ...actingAs(arbiterA, authenticated(ALICE)), keepAlive: (request) => renewer.keepAlive(request) }, clock, identity: ALICE });
    const fences: FenceReason[] = [];
    cluster.pauseMember(stuck);
    try {
      const handle = await client.acquire({ key: `${NAMESPACE}/issue35-${stuck}-${Date.now()}`, className: FENCED_SHORT.name, ttlSeconds: FENCED_SHORT.ttlSeconds, onFence: (reason) => fences.push(reason) });
      await clock.sleep(holdMs);
      return { fences: [...fences], canStart: handle.canStart(), renewals: [...witness.answered], stuckId: memberIds[stuck] }; // before close() fences it
    } finally {
      cluster.resumeMember(stuck);
      await client.close().catch(() => undefined);
      arbiterA.close();
      arbiterB.close();
      await Promise.all([opener.close(), witness.target.close()]);
      await cluster.waitUntilHealthy();
    }
  }

  it('a TTL-5 s holder renewed through an arbiter that must first read its session is not fenced when that arbiter\'s member stops (issue 35)', async () => {
    const current = await leaderNow();
    const follower = [0, 1, 2].find((i) => i !== current) ?? 0;
    const held = await renewThroughAnotherArbiter(follower, 8_000);
    expect(held.fences).toEqual([]);
    expect(held.canStart).toBe(true);
    expect(held.renewals.length).toBeGreaterThanOrEqual(3); // one every TTL/3 = 1.67 s
    expect(held.renewals.map((k) => k.memberId)).not.toContain(held.stuckId);
  }, REAL_CLUSTER_TIMEOUT_MS);

  it('the control: with reads unhedged, the session read waits on the stopped member and the same holder is fenced', async () => {
    const current = await leaderNow();
    const follower = [0, 1, 2].find((i) => i !== current) ?? 0;
    const held = await renewThroughAnotherArbiter(follower, 6_000, { hedgeAfterMs: Number.POSITIVE_INFINITY });
    expect(held.fences).toEqual(['deadline']);
    expect(held.renewals).toEqual([]);
  }, REAL_CLUSTER_TIMEOUT_MS);
});
