// Availability under etcd faults (issue 12), on a real 3-member etcd cluster: when the leader is killed
// or paused under a holder that releases, the release is answered (released: true) instead of waiting
// out etcd's 7 s request timeout on a follower and failing `indeterminate`, and the key goes to the
// waiter in line. An acquire that arrives through a fresh arbiter during the election (its first read
// meets "leader changed", a refusal that wrote nothing) is granted inside its wait instead of failing
// `unavailable`. The figures (time to the new leader, to the release, to the waiter's grant) are the
// bench's to report (bench/leader-kill.ts); this test asserts outcomes only.
import { authenticated } from '../../core/ports/caller.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALICE, FENCED, NAMESPACE, fixtureArbiter } from '../testing/arbiter-fixture.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { runLeaderKillTrial } from '../testing/leader-kill-trial.js';
import { createEtcdLockLog, initEtcdLog } from './index.js';

const REAL_CLUSTER_TIMEOUT_MS = 120_000;

describe('a leader killed or paused under a holder that releases (real 3-member etcd)', () => {
  let cluster: EtcdCluster;
  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 3 });
    await initEtcdLog(cluster.endpoints);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  for (const fault of ['kill', 'pause'] as const) {
    it(`leader ${fault}: the release sent to a follower is answered released, and the waiter is granted`, async () => {
      const trial = await runLeaderKillTrial(cluster, fault, `test-${Date.now()}`);
      expect(trial.release).toEqual({ released: true });
      expect('token' in trial.waiter ? trial.waiter.identity : trial.waiter).toMatch(/\/sa\/bob$/);
      expect(trial.electedAfterMs).toBeDefined();
    }, REAL_CLUSTER_TIMEOUT_MS);
  }

  it('an acquire arriving through a fresh arbiter during the election is granted inside its wait', async () => {
    await cluster.waitUntilHealthy();
    const statuses = await Promise.all(cluster.endpoints.map(async (endpoint) => {
      const log = createEtcdLockLog({ endpoints: [endpoint] });
      try {
        return await log.status();
      } finally {
        await log.close();
      }
    }));
    const leader = statuses.findIndex((s) => s.header.memberId === s.leader);
    const followers = [0, 1, 2].filter((i) => i !== leader);
    const log = createEtcdLockLog({ endpoints: [...followers, leader].map((i) => cluster.endpoints[i] ?? '') });
    const arbiter = fixtureArbiter(log); // nothing cached: its first calls are reads of the epoch record
    try {
      await cluster.kill(leader);
      const session = await arbiter.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds });
      const grant = await arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: `${NAMESPACE}/arrive-${Date.now()}`, className: FENCED.name, waitMs: 10_000 });
      expect(grant.reentered).toBe(false);
      await arbiter.release(authenticated(ALICE), { sessionId: session.sessionId, key: grant.key, token: grant.token });
      await arbiter.closeSession(authenticated(ALICE), { sessionId: session.sessionId });
    } finally {
      arbiter.close();
      await log.close();
      await cluster.startMember(leader);
      await cluster.waitUntilHealthy();
    }
  }, REAL_CLUSTER_TIMEOUT_MS);
});
