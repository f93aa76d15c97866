// One leader-kill trial on a real 3-member etcd cluster (issue 12: availability under etcd faults): a
// holder, whose arbiter talks to a follower first (the case that cost 7 s: its release was forwarded to
// the dead leader and waited out etcd's request timeout), holds a key while a second arbiter's waiter
// waits for it in line. The leader is killed (SIGKILL) or paused (SIGSTOP), the holder releases at once,
// and the trial measures from the fault: when the survivors name a new leader, when the release was
// answered, and when the waiter was granted. The leader-kill test and `bench/leader-kill.ts` run it.
import { authenticated } from '../../core/ports/caller.js';
import type { Arbiter } from '../../core/arbiter/arbiter.js';
import type { Grant, ReleaseResponse } from '../../core/ports/arbiter-api.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { createRealClock } from '../clock/index.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { ALICE, BOB, FENCED, NAMESPACE, fixtureArbiter } from './arbiter-fixture.js';
import type { EtcdCluster } from './etcd-cluster.js';

export type LeaderFault = 'kill' | 'pause';

export interface LeaderKillTrial {
  readonly fault: LeaderFault;
  /** Fault to the first status of a survivor naming another leader. */
  readonly electedAfterMs: number | undefined;
  /** Fault to the holder's release answer, and what it was (an error's message when it failed). */
  readonly releaseAnsweredAfterMs: number;
  readonly release: ReleaseResponse | { readonly error: string };
  /** Fault to the waiter's grant, or the error that ended its wait. */
  readonly waiterGrantedAfterMs: number;
  readonly waiter: Grant | { readonly error: string };
  /** The holder key after the trial, read from a survivor: undefined when free (or the waiter's). */
  readonly holderAfter: string | undefined;
}

const clock = createRealClock();
const ELECTION_POLL_MS = 25;
const ELECTION_WATCH_LIMIT_MS = 15_000;

async function memberIds(cluster: EtcdCluster): Promise<{ ids: bigint[]; leader: number }> {
  const ids: bigint[] = [];
  let leaderId = 0n;
  for (const endpoint of cluster.endpoints) {
    const log = createEtcdLockLog({ endpoints: [endpoint] });
    try {
      const status = await log.status();
      ids.push(status.header.memberId);
      leaderId = status.leader;
    } finally {
      await log.close();
    }
  }
  const leader = ids.indexOf(leaderId);
  if (leader < 0) throw new Error(`no member is the leader ${leaderId} (members ${ids.join(', ')})`);
  return { ids, leader };
}

/** Polls the survivors' status until one names a leader other than `oldLeader`; ms after `fromMs`. */
async function watchElection(endpoints: readonly string[], oldLeader: bigint, fromMs: number): Promise<number | undefined> {
  const logs = endpoints.map((endpoint) => createEtcdLockLog({ endpoints: [endpoint], requestTimeoutMs: 500 }));
  try {
    while (clock.now() - fromMs < ELECTION_WATCH_LIMIT_MS) {
      const leaders = await Promise.all(logs.map((log) => log.status().then((s) => s.leader, () => 0n)));
      if (leaders.some((leader) => leader !== 0n && leader !== oldLeader)) return clock.now() - fromMs;
      await clock.sleep(ELECTION_POLL_MS);
    }
    return undefined;
  } finally {
    await Promise.all(logs.map((log) => log.close()));
  }
}

function settleAt<T>(promise: Promise<T>, fromMs: number): Promise<{ afterMs: number; value: T | { error: string } }> {
  return promise.then(
    (value) => ({ afterMs: clock.now() - fromMs, value }),
    (error: unknown) => ({ afterMs: clock.now() - fromMs, value: { error: error instanceof Error ? error.message : String(error) } }),
  );
}

/** Runs one trial and puts the cluster back (the member restarted or resumed, every member healthy). */
export async function runLeaderKillTrial(cluster: EtcdCluster, fault: LeaderFault, label: string): Promise<LeaderKillTrial> {
  await cluster.waitUntilHealthy();
  const { ids, leader } = await memberIds(cluster);
  const followers = [0, 1, 2].filter((i) => i !== leader);
  const endpoint = (i: number | undefined) => cluster.endpoints[i ?? -1] ?? '';
  const logs: LockLog[] = [
    createEtcdLockLog({ endpoints: [followers[0], leader, followers[1]].map(endpoint) }),
    createEtcdLockLog({ endpoints: [followers[1], followers[0], leader].map(endpoint) }),
  ];
  const arbiters: Arbiter[] = logs.map((log) => fixtureArbiter(log));
  const [holderArbiter, waiterArbiter] = arbiters as [Arbiter, Arbiter];
  const key = `${NAMESPACE}/leader-${fault}-${label}`;
  let faulted = false;
  try {
    const holder = await holderArbiter.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds });
    const rival = await waiterArbiter.openSession(authenticated(BOB), { ttlSeconds: FENCED.ttlSeconds });
    const grant = await holderArbiter.acquire(authenticated(ALICE), { sessionId: holder.sessionId, key, className: FENCED.name, waitMs: 0 });
    const waiting = waiterArbiter.acquire(authenticated(BOB), { sessionId: rival.sessionId, key, className: FENCED.name, waitMs: 30_000 });
    await clock.sleep(300); // the waiter has tried once, seen the key held, and waits in line
    const faultMs = clock.now();
    if (fault === 'kill') await cluster.kill(leader);
    else cluster.pauseMember(leader);
    faulted = true;
    const released = settleAt(holderArbiter.release(authenticated(ALICE), { sessionId: holder.sessionId, key, token: grant.token }), faultMs);
    const elected = watchElection(followers.map(endpoint), ids[leader] ?? 0n, faultMs);
    const waited = settleAt(waiting, faultMs);
    const [release, waiter, electedAfterMs] = await Promise.all([released, waited, elected]);
    const after = await logs[1]?.range({ key: `/l/${key}` });
    if ('token' in waiter.value) await waiterArbiter.release(authenticated(BOB), { sessionId: rival.sessionId, key, token: waiter.value.token }).catch(() => undefined);
    await Promise.all([holderArbiter.closeSession(authenticated(ALICE), { sessionId: holder.sessionId }), waiterArbiter.closeSession(authenticated(BOB), { sessionId: rival.sessionId })].map((p) => p.catch(() => undefined)));
    return {
      fault,
      electedAfterMs,
      releaseAnsweredAfterMs: release.afterMs,
      release: release.value,
      waiterGrantedAfterMs: waiter.afterMs,
      waiter: waiter.value,
      holderAfter: after?.kvs[0]?.value,
    };
  } finally {
    for (const arbiter of arbiters) arbiter.close();
    await Promise.all(logs.map((log) => log.close()));
    if (faulted) {
      if (fault === 'kill') await cluster.startMember(leader);
      else cluster.resumeMember(leader);
    }
    await cluster.waitUntilHealthy();
  }
}
