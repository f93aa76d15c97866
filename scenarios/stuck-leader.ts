// etcd#15247, end to end: the etcd leader's disk stalls while a partition cuts it (and the arbiter that
// talks to it) off from the other two members. Its raft loop is stuck on the fsync, so it never learns
// that the majority has elected a new leader, and it keeps answering keepalives from its own lessor.
// The holder renews through it; the majority's new leader promotes the lease (TTL + 1 s), nobody renews
// it there, so it expires, and a second holder, whose arbiter sits with the majority, is granted the key.
// etcd 3.4.23 renews anyway: the first holder's canStart() stays true after the second grant, and both
// write to the (unfenced) ledger. etcd 3.5.13 confirms leadership before renewing (ADR-10): the renewal
// fails, the first holder stops starting work and fences at its deadline (ADR-12), before the second grant.
import type { BeliefInterval } from '../core/checkers/index.js';
import type { SimResource } from '../sim/world/resource.js';
import { type ClientNode, World } from '../sim/world/world.js';
import { LEDGER_CLASS, LeaderLog, type ProbedClient, arbiterConnections, arbiterName, fencedAtMs, keepalives, ledgerPolicy, probedClient, sinceMs, settleLeaderOn } from './cluster-fault-kit.js';
import { runHolder } from './holder.js';
import { DeadlineProbe } from './deadline-probe.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, worldBasics } from './scenario.js';
import { faultOutcome, ledgerHolds, ledgerWork, runTwoHolders, startFaults, unfencedLedger } from './two-holders.js';

const TTL_SECONDS = 5;
/**
 * Other traffic on the stalled leader, through another arbiter replica connected to it: any write makes
 * the leader's next Ready need an fsync, so its raft loop sticks. (Through the holder's own arbiter, the
 * write's timeout would move that arbiter's etcd connection to the next member, taking the holder's
 * keepalives away from the stuck leader: a different, kinder run.)
 */
const BYSTANDER_KEY = 'payments/ledger-9';
const FAULT_AT_MS = 2_000;
const STALL_MS = 20_000;
const HEAL_AT_MS = 25_000;
const SECOND_HOLDER_AT_MS = 2_500;
const RUN_FOR_MS = 40_000;
const PARTITION_ID = 'cut-old-leader';

export const stuckLeader: Scenario = {
  name: 'stuck-leader',
  description: 'A leader stuck on a stalled disk, cut off from the majority, keeps renewing a lease the majority expired and re-granted (etcd#15247, ADR-10).',
  variants: [
    { name: 'etcd-3.4.23', expect: 'violation', shows: ['belief', 'fence'], description: 'no leadership check on renew: the deposed leader extends the lease; two holders believe and write at once (checks: belief, fence)' },
    { name: 'etcd-3.5.13', expect: 'pass', description: 'the leader confirms leadership before renewing: the renewal fails and the first holder fences before the second grant' },
  ],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const confirmLeadershipOnRenew = context.variant.name === 'etcd-3.5.13';
    const leaders = new LeaderLog();
    const world = new World({
      ...worldBasics(context),
      ...ledgerPolicy(TTL_SECONDS, ['alice', 'bob', 'carol']),
      arbiters: 3,
      cluster: { confirmLeadershipOnRenew, observer: leaders.observer },
    });
    leaders.bind(world.kernel);
    const probe = new DeadlineProbe(world);
    await world.start();
    const roles = chooseArbiters(world);
    const { oldLeader } = roles;
    await settleLeaderOn(world, oldLeader);
    const majority = world.cluster.members.map((m) => m.name).filter((name) => name !== oldLeader);
    const resource = unfencedLedger(world);
    const alice = probedClient(world, probe, 'alice', { arbiter: roles.holder });
    const carol = probedClient(world, probe, 'carol', { arbiter: roles.bystander });
    const bob = probedClient(world, probe, 'bob', { arbiter: roles.second });
    const schedule = startFaults(world, context, [
      { atMs: FAULT_AT_MS, kind: 'stall-disk', target: oldLeader, durationMs: STALL_MS },
      { atMs: FAULT_AT_MS, kind: 'partition', id: PARTITION_ID, from: [oldLeader, arbiterName(world, roles.holder), arbiterName(world, roles.bystander)], to: [...majority, arbiterName(world, roles.second)] },
      { atMs: HEAL_AT_MS, kind: 'heal', id: PARTITION_ID },
    ]);
    const faultAtMs = schedule.startMs + FAULT_AT_MS;
    const beliefs: BeliefInterval[] = [];
    const { first, second } = await runTwoHolders({
      world,
      work: ledgerWork(resource, TTL_SECONDS),
      beliefs,
      first: { node: alice.node, units: 60 },
      second: { node: bob.node, atMs: SECOND_HOLDER_AT_MS, waitMs: 20_000, units: 10 },
      alongside: () => void bystander(carol.node, beliefs, faultAtMs + 1_000),
      untilMs: schedule.startMs + RUN_FOR_MS,
    });

    return faultOutcome(
      { world, schedule, beliefs, probe },
      {
        etcd: context.variant.name,
        confirmLeadershipOnRenew,
        ttlSeconds: TTL_SECONDS,
        oldLeader,
        holderArbiter: arbiterName(world, roles.holder),
        secondHolderArbiter: arbiterName(world, roles.second),
        faultAtMs: FAULT_AT_MS,
        stallMs: STALL_MS,
        healAtMs: HEAL_AT_MS,
        resource: 'unfenced',
      },
      {
        newLeaderAfterFaultMs: sinceMs(leaders.firstLeaderAfter(faultAtMs, oldLeader)?.atMs, faultAtMs),
        ...holderMetrics({ world, resource, beliefs, alice, bob, faultAtMs }),
        firstHolderUnits: first?.unitsDone,
        secondHolderAttempts: second?.attempts,
        secondHolderWritesAccepted: second?.result.writesAccepted,
      },
    );
  },
};

interface Observed {
  readonly world: World;
  readonly resource: SimResource;
  readonly beliefs: readonly BeliefInterval[];
  readonly alice: ProbedClient;
  readonly bob: ProbedClient;
  readonly faultAtMs: number;
}

/** What the two holders saw, against what the log did, in ms after the fault. */
function holderMetrics({ world, resource, beliefs, alice, bob, faultAtMs }: Observed): Record<string, number | undefined> {
  const { expiredMs, secondGrantMs, firstLastStartMs } = ledgerHolds(world, beliefs, alice, bob);
  const aliceKeepalives = keepalives(alice.calls).filter((c) => c.sentMs >= faultAtMs);
  const since = (atMs: number | undefined): number | undefined => sinceMs(atMs, faultAtMs);
  return {
    leaseExpiredOnMajorityAfterFaultMs: since(expiredMs),
    secondGrantAfterFaultMs: since(secondGrantMs),
    // The bug itself: keepalives answered OK although the majority had already revoked the lease.
    keepalivesRenewedAfterMajorityExpiry: aliceKeepalives.filter((c) => expiredMs !== undefined && c.sentMs > expiredMs && c.outcome === 'ok').length,
    firstFailedKeepaliveAfterFaultMs: since(aliceKeepalives.find((c) => c.outcome !== 'ok')?.answeredMs),
    firstHolderFencedAfterFaultMs: since(fencedAtMs(alice.calls)),
    // Positive: the first holder still started work this long after the second grant (ADR-12 broken).
    firstHolderLastStartAfterSecondGrantMs: sinceMs(firstLastStartMs, secondGrantMs),
    firstHolderWritesAfterSecondGrant: resource.writes.filter((w) => w.holder === alice.node.identity && secondGrantMs !== undefined && w.atMs > secondGrantMs && w.accepted).length,
  };
}

interface Roles {
  /** The member that will lead, stall and be cut off: the one the holder's arbiter is connected to. */
  readonly oldLeader: string;
  /** Arbiter indexes: the holder's and the bystander's (both connected to the old leader), the second holder's. */
  readonly holder: number;
  readonly bystander: number;
  readonly second: number;
}

/**
 * An arbiter's etcd connection goes to one member (SimLockLog's current endpoint, which moves on only
 * after a failure), and the world does not choose it: the arbiter that bootstrapped the epoch during the
 * first election has sometimes moved on. The old leader is the member two arbiters are connected to, so
 * that the holder's keepalives and the bystander's writes both reach it; the second holder gets the
 * third arbiter (connected elsewhere if any is).
 */
function chooseArbiters(world: World): Roles {
  const groups = arbiterConnections(world);
  const shared = groups[0];
  const [holder, bystander] = shared?.arbiters ?? [];
  if (shared === undefined || holder === undefined || bystander === undefined) {
    throw new Error(`stuck-leader setup: no two arbiters share an etcd connection (${world.arbiters.map((a) => `${a.process.name}->${a.log.currentEndpoint}`).join(', ')})`);
  }
  return { oldLeader: shared.member, holder, bystander, second: groups[1]?.arbiters[0] ?? shared.arbiters[2] ?? holder };
}

/** Short holds on another key through the same arbiter until `untilMs`: the service's ordinary write traffic. */
async function bystander(node: ClientNode, beliefs: BeliefInterval[], untilMs: number): Promise<void> {
  const kernel = node.process.kernel;
  const clock = node.process.clock();
  for (let round = 0; round < 100 && kernel.now() < untilMs; round += 1) {
    await runHolder(node, { key: BYSTANDER_KEY, className: LEDGER_CLASS, ttlSeconds: TTL_SECONDS, waitMs: 0, units: 1, prepareMs: 50, gapMs: 0 }, beliefs);
    await clock.sleep(250);
  }
}
