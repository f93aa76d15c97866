// ADR-04: two of three etcd members crash, so no majority is left. Correctness classes fail closed: no
// grant and no renewal can commit, so acquires are refused or time out (even for a free key), and a
// holder fences at its deadline (ADR-12) rather than carry on. The lone survivor, still leader for an
// election timeout or two until CheckQuorum deposes it, may renew keepalives meanwhile (etcd 3.4.23
// does not confirm leadership first): the holder's deadline counts from those sends, which is still
// safe, since no other member can expire the lease without it. When the members come back, a leader
// is elected, grants resume on the free key at once, and the fenced holder's release, sent again until
// a leader takes it (core/arbiter/log-retry.ts), frees the held key, so a holder waiting for it gets it;
// a holder that is gone leaves its lease (Promote gives it TTL + 1 s, nobody renews it) to expire.
import type { BeliefInterval, GrantRecord } from '../core/checkers/index.js';
import { DEFAULT_FENCE_MARGIN_MS } from '../core/client/client-session.js';
import { World } from '../sim/world/world.js';
import {
  LEDGER_CLASS,
  LeaderLog,
  RETRY_WHEN_UNREACHABLE,
  type RetriedHolderResult,
  fenceTiming,
  ledgerPolicy,
  type ProbedClient,
  probedClient,
  type Refusal,
  runHolderWithRetries,
  sessionsFencedBeforeFirstKeepalive,
  sinceMs,
} from './cluster-fault-kit.js';
import type { Fault } from './faults.js';
import { DeadlineProbe } from './deadline-probe.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, namingChecks, worldBasics } from './scenario.js';
import { CrashingStore, arbiterCrashFaults, failOpenChecks, failOpenPolicy, runCacheHolder } from './quorum-loss-open.js';
import { LEDGER_KEY, faultOutcome, ledgerWork, runTwoHolders, startFaults, unfencedLedger } from './two-holders.js';

const TTL_SECONDS = 5;
const FREE_KEY = 'payments/ledger-9';
const CRASH_AT_MS = 2_000;
const RESTART_AT_MS = 14_000;
const WAITER_AT_MS = 3_000;
const PROBE_FROM_MS = 2_500;
/** The free-key prober tries once a second; a refusal takes up to the 8 s call deadline. */
const PROBE_EVERY_MS = 1_000;
const RUN_FOR_MS = 40_000;

export const quorumLoss: Scenario = {
  name: 'quorum-loss',
  description: 'Two of three etcd members crash: grants fail closed, the holder fences by its deadline, grants resume after recovery (ADR-04, ADR-12).',
  variants: [
    { name: 'default', expect: 'pass', description: 'etcd 3.4.23 defaults: both followers crash for 12 s; no grant during the outage, the holder fences at its deadline, grants resume after the restart' },
    { name: 'pre-vote', expect: 'pass', description: "the same with raft's PreVote (3.5's default): the lone survivor does not raise its term while it campaigns, so it does not disrupt the recovery" },
    {
      name: 'fail-open',
      expect: 'pass',
      description: 'ADR-04: beside the ledger (closed), an efficiency class that fails open: its holders are granted from memory with token 0 during the outage, and every such grant reaches the audit store once, through an arbiter crash in the outage and another mid-shipment; the ledger stays closed',
    },
    {
      name: 'fail-open-no-dedupe',
      expect: 'violation',
      shows: ['unprotected'],
      description: namingChecks('negative control: the same with an audit store that keeps every record it is offered, so the shipment repeated after the crash mid-shipment is stored twice', ['unprotected']),
    },
  ],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const leaders = new LeaderLog();
    const preVote = context.variant.name === 'pre-vote';
    const failOpen = context.variant.name.startsWith('fail-open'); // ADR-04 (quorum-loss-open.ts)
    const store = new CrashingStore(() => world, 'arbiter-1', context.variant.name !== 'fail-open-no-dedupe');
    const policy = failOpen ? { ...failOpenPolicy(TTL_SECONDS, ['alice', 'bob', 'carol'], ['dave', 'erin']), unprotected: { store } } : ledgerPolicy(TTL_SECONDS, ['alice', 'bob', 'carol']);
    const world: World = new World({ ...worldBasics(context), ...policy, cluster: { preVote, observer: leaders.observer } });
    leaders.bind(world.kernel);
    const probe = new DeadlineProbe(world);
    await world.start();
    const survivor = world.cluster.leader()?.name ?? world.cluster.members[0]?.name ?? 'etcd-1';
    const crashed = world.cluster.members.map((m) => m.name).filter((name) => name !== survivor);
    const resource = unfencedLedger(world);
    const alice = probedClient(world, probe, 'alice');
    const bob = probedClient(world, probe, 'bob');
    const carol = probedClient(world, probe, 'carol');
    const cacheHolders = failOpen ? [probedClient(world, probe, 'dave').node, probedClient(world, probe, 'erin').node] : [];
    const schedule = startFaults(world, context, [
      ...crashed.map((target): Fault => ({ atMs: CRASH_AT_MS, kind: 'crash', target })),
      ...crashed.map((target): Fault => ({ atMs: RESTART_AT_MS, kind: 'restart', target })),
      ...(failOpen ? arbiterCrashFaults('arbiter-1') : []),
    ]);
    const { faults, startMs } = schedule;
    const outageFromMs = startMs + (faults.find((f) => f.kind === 'crash')?.atMs ?? CRASH_AT_MS);
    const outageToMs = startMs + (faults.find((f) => f.kind === 'restart')?.atMs ?? RESTART_AT_MS);
    // The survivor's raft term when the others crash and when they come back (these events run after the faults at the same times).
    const survivorTerms = { atCrash: 0, atRestart: 0 };
    const termOfSurvivor = (): number => world.cluster.member(survivor).raftStatus()?.term ?? 0;
    world.kernel.schedule(outageFromMs, () => void (survivorTerms.atCrash = termOfSurvivor()));
    world.kernel.schedule(outageToMs, () => void (survivorTerms.atRestart = termOfSurvivor()));
    const lessorExpiries = leasesTheLessorExpired(world);
    const beliefs: BeliefInterval[] = [];
    const cacheBeliefs: BeliefInterval[] = [];
    for (const node of cacheHolders) void runCacheHolder(node, TTL_SECONDS, cacheBeliefs, startMs + RUN_FOR_MS);
    let prober: RetriedHolderResult | undefined;
    const { first, second: waiter } = await runTwoHolders({
      world,
      work: ledgerWork(resource, TTL_SECONDS),
      beliefs,
      first: { node: alice.node, units: 40 },
      second: { node: bob.node, atMs: WAITER_AT_MS, waitMs: 10_000, units: 5 },
      // A free key, tried with no wait: during the outage nothing can grant it, not even uncontended.
      alongside: () =>
        void world.kernel
          .sleep(PROBE_FROM_MS)
          .then(() => runHolderWithRetries(carol.node, { key: FREE_KEY, className: LEDGER_CLASS, ttlSeconds: TTL_SECONDS, waitMs: 0, units: 1, prepareMs: 50, gapMs: 0 }, beliefs, { ...RETRY_WHEN_UNREACHABLE, retryAfterMs: PROBE_EVERY_MS }))
          .then((r) => (prober = r)),
      untilMs: startMs + RUN_FOR_MS,
    });

    const observed: Observed = { world, leaders, alice, bob, outageFromMs, outageToMs, lessorExpiries };
    const refusals = [...(waiter?.refusals ?? []), ...(prober?.refusals ?? [])];
    const adr04 = failOpen ? failOpenChecks(world, store, cacheBeliefs, beliefs) : undefined;
    const outcome = faultOutcome(
      { world, schedule, beliefs, probe },
      { preVote, ttlSeconds: TTL_SECONDS, fenceMarginMs: DEFAULT_FENCE_MARGIN_MS, survivor, crashed, crashAtMs: CRASH_AT_MS, restartAtMs: RESTART_AT_MS, onQuorumLoss: failOpen ? 'closed, and open for cache/warm-entries' : 'closed', resource: 'unfenced' },
      {
        ...outageMetrics(observed, refusals, survivor),
        // Without PreVote the survivor raises its term at every lone campaign; a member back with a longer
        // log then needs several elections to win over it.
        survivorTermsAddedDuringOutage: survivorTerms.atRestart - survivorTerms.atCrash,
        holderUnits: first?.unitsDone,
        ...recoveryMetrics(observed),
        waiterAttempts: waiter?.attempts,
        freeKeyAttempts: prober?.attempts,
        ...adr04?.metrics,
      },
    );
    return adr04 === undefined ? outcome : { ...outcome, checks: [adr04.check] };
  },
};

interface Observed {
  readonly world: World;
  readonly leaders: LeaderLog;
  readonly alice: ProbedClient;
  readonly bob: ProbedClient;
  readonly outageFromMs: number;
  readonly outageToMs: number;
  /** Lease id to when a leader's lessor first found it expired. */
  readonly lessorExpiries: ReadonlyMap<bigint, number>;
}

/**
 * The leases a leader's lessor found expired (its 500 ms scan, which then proposes their revokes), with
 * when, read off the trace: the log's record of a revoke does not say whether the lessor or the lease's
 * own holder asked for it. Listening does not change the trace or its hash.
 */
function leasesTheLessorExpired(world: World): ReadonlyMap<bigint, number> {
  const found = new Map<bigint, number>();
  world.kernel.trace.subscribe((record) => {
    for (const id of record.fields['ids'] as readonly bigint[]) if (!found.has(id)) found.set(id, record.timeMs);
  }, { kinds: ['etcd.lease.expired'] });
  return found;
}

/** Fail closed (ADR-04) and fence by the deadline (ADR-12), in ms after the crash. */
function outageMetrics({ world, leaders, alice, outageFromMs, outageToMs }: Observed, refusals: readonly Refusal[], survivor: string): Record<string, number | undefined> {
  const during = (atMs: number): boolean => atMs >= outageFromMs && atMs < outageToMs;
  const refused = refusals.filter((r) => during(r.atMs));
  const fence = fenceTiming(alice.calls, TTL_SECONDS);
  const sinceCrash = (atMs: number | undefined): number | undefined => sinceMs(atMs, outageFromMs);
  return {
    outageMs: outageToMs - outageFromMs,
    grantsDuringOutage: world.log.grants.filter((g) => during(g.grantedAtMs)).length,
    refusedAcquiresDuringOutage: refused.length,
    refusedUnavailable: refused.filter((r) => r.code === 'unavailable').length,
    refusedIndeterminate: refused.filter((r) => r.code === 'indeterminate').length,
    survivorSteppedDownAfterCrashMs: sinceCrash(leaders.steppedDownAfter(survivor, outageFromMs)?.atMs),
    lastRenewalSentAfterCrashMs: sinceCrash(fence.lastGoodSendMs),
    holderFencedAfterCrashMs: sinceCrash(fence.fencedMs),
    // The library's fence against ADR-12's deadline (0: fenced exactly at send time + TTL - margin).
    fenceMinusDeadlineMs: sinceMs(fence.fencedMs, fence.deadlineMs),
  };
}

/** How the service came back, in ms after the restart. */
function recoveryMetrics({ world, leaders, alice, bob, outageToMs, lessorExpiries }: Observed): Record<string, number | undefined> {
  const firstGrant = world.log.grants.find((g) => g.grantedAtMs >= outageToMs);
  const heldGrants = world.log.grants.filter((g) => g.key === LEDGER_KEY);
  const heldHold = heldGrants.find((g) => g.holder === alice.node.identity);
  // The leader that served the first grant after the restart, and the candidacies it took to get there.
  const servingLeader = firstGrant === undefined ? undefined : leaders.changes.filter((c) => c.role === 'leader' && c.atMs <= firstGrant.grantedAtMs).at(-1);
  const sinceRecovery = (atMs: number | undefined): number | undefined => sinceMs(atMs, outageToMs);
  return {
    servingLeaderAfterRecoveryMs: sinceRecovery(servingLeader?.atMs),
    campaignsAfterRecovery: servingLeader === undefined ? undefined : leaders.changes.filter((c) => c.atMs >= outageToMs && c.atMs <= servingLeader.atMs && c.role === 'candidate').length,
    firstGrantAfterRecoveryMs: sinceRecovery(firstGrant?.grantedAtMs),
    // The fenced holder's hold ends by its own best-effort revoke (held by the survivor, proposed once a
    // leader is back) or by the lease's expiry (Promote's TTL + 1 s): either way only after the restart.
    heldKeyFreedAfterRecoveryMs: sinceRecovery(heldHold?.endedAtMs),
    heldKeyFreedByExpiry: freedByExpiry(heldHold, lessorExpiries),
    waiterGrantAfterRecoveryMs: sinceRecovery(heldGrants.find((g) => g.holder === bob.node.identity)?.grantedAtMs),
    // An open answered only after the recovery, slower than TTL - margin - TTL/3: fenced unused (see the kit).
    waiterSessionsFencedBeforeFirstKeepalive: sessionsFencedBeforeFirstKeepalive(bob.calls),
  };
}

/**
 * 1 when the lessor freed the held key: it had found the fenced holder's lease expired by the time the
 * hold ended (its revoke, or the holder's own landing just after the lease had run out); 0 when the hold
 * ended first by the holder's own revoke (its fence's best-effort closeSession) or release. Undefined while
 * the hold has not ended.
 */
function freedByExpiry(hold: GrantRecord | undefined, lessorExpiries: ReadonlyMap<bigint, number>): number | undefined {
  if (hold?.endedAtMs === undefined || hold.session === undefined) return undefined;
  const foundMs = lessorExpiries.get(hold.session);
  return foundMs !== undefined && foundMs <= hold.endedAtMs ? 1 : 0;
}
