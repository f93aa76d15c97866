// A network partition isolates the etcd leader together with a holder and the arbiter it talks to. The
// leader's raft loop is healthy, so CheckQuorum deposes it within an election timeout or two: it stops
// renewing (even etcd 3.4.23, which does not confirm leadership before a renewal, renews only while raft
// still says it leads). The majority elects a new leader, whose Promote gives the lease TTL + 1 s; nobody
// renews it there, so it expires and a second holder on the majority side is granted the key. The
// holder in the dark stops starting work at its first failed keepalive and fences at send time of its
// last good keepalive + TTL - 1 s (ADR-12), which must come before the majority's expiry. After the
// heal, the first holder queues again and gets the key back with a higher token.
import type { BeliefInterval } from '../core/checkers/index.js';
import { DEFAULT_FENCE_MARGIN_MS } from '../core/client/client-session.js';
import { World } from '../sim/world/world.js';
import {
  LeaderLog,
  RETRY_WHEN_UNREACHABLE,
  type RetriedHolderResult,
  arbiterConnections,
  arbiterName,
  fenceTiming,
  keepalives,
  ledgerPolicy,
  type ProbedClient,
  probedClient,
  runHolderWithRetries,
  settleLeaderOn,
  sinceMs,
} from './cluster-fault-kit.js';
import { DeadlineProbe } from './deadline-probe.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, worldBasics } from './scenario.js';
import { type LedgerHolds, faultOutcome, ledgerHolds, ledgerWork, runTwoHolders, startFaults, unfencedLedger } from './two-holders.js';

const TTL_SECONDS = 5;
const PARTITION_AT_MS = 2_000;
const SECOND_HOLDER_AT_MS = 2_500;
const HEAL_AT_MS = 20_000;
const REJOIN_AFTER_HEAL_MS = 1_000;
const RUN_FOR_MS = 40_000;
const PARTITION_ID = 'isolate-leader';

export const partition: Scenario = {
  name: 'partition',
  description: 'The etcd leader is isolated with a holder and its arbiter: CheckQuorum deposes it, the holder fences before the majority expires its lease, a second holder takes the key (ADR-12).',
  variants: [{ name: 'default', expect: 'pass', description: 'etcd 3.4.23 defaults (CheckQuorum on, no pre-vote, no leadership check on renew): the holder fences before the second grant' }],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const leaders = new LeaderLog();
    const world = new World({ ...worldBasics(context), ...ledgerPolicy(TTL_SECONDS, ['alice', 'bob']), arbiters: 2, cluster: { observer: leaders.observer } });
    leaders.bind(world.kernel);
    const probe = new DeadlineProbe(world);
    await world.start();
    // The leader is the member the first holder's arbiter is connected to, so that its keepalives go to
    // the leader until the partition; the second holder's arbiter is connected elsewhere if it can be.
    const groups = arbiterConnections(world);
    const oldLeader = groups[0]?.member ?? 'etcd-1';
    const holderArbiter = groups[0]?.arbiters[0] ?? 0;
    const secondArbiter = groups[1]?.arbiters[0] ?? groups[0]?.arbiters[1] ?? 1;
    await settleLeaderOn(world, oldLeader);
    const majority = world.cluster.members.map((m) => m.name).filter((name) => name !== oldLeader);
    const work = ledgerWork(unfencedLedger(world), TTL_SECONDS);
    const alice = probedClient(world, probe, 'alice', { arbiter: holderArbiter });
    const bob = probedClient(world, probe, 'bob', { arbiter: secondArbiter });
    const schedule = startFaults(world, context, [
      { atMs: PARTITION_AT_MS, kind: 'partition', id: PARTITION_ID, from: [oldLeader, arbiterName(world, holderArbiter), 'alice'], to: [...majority, arbiterName(world, secondArbiter), 'bob'] },
      { atMs: HEAL_AT_MS, kind: 'heal', id: PARTITION_ID },
    ]);
    const { startMs } = schedule;
    const partitionAtMs = startMs + PARTITION_AT_MS;
    const beliefs: BeliefInterval[] = [];
    let rejoined: RetriedHolderResult | undefined;
    const { first, second } = await runTwoHolders({
      world,
      work,
      beliefs,
      first: { node: alice.node, units: 40 },
      // After the heal the first holder queues again, and gets the key back with a higher token.
      afterFirst: (stopped) =>
        void stopped
          .then(() => world.kernel.sleep(Math.max(0, startMs + HEAL_AT_MS + REJOIN_AFTER_HEAL_MS - world.kernel.now())))
          .then(() => runHolderWithRetries(alice.node, { ...work, waitMs: 15_000, units: 3 }, beliefs, RETRY_WHEN_UNREACHABLE))
          .then((r) => (rejoined = r)),
      second: { node: bob.node, atMs: SECOND_HOLDER_AT_MS, waitMs: 20_000, units: 10 },
      untilMs: startMs + RUN_FOR_MS,
    });

    const holds = ledgerHolds(world, beliefs, alice, bob);
    return faultOutcome(
      { world, schedule, beliefs, probe },
      { ttlSeconds: TTL_SECONDS, fenceMarginMs: DEFAULT_FENCE_MARGIN_MS, oldLeader, partitionAtMs: PARTITION_AT_MS, healAtMs: HEAL_AT_MS, resource: 'unfenced' },
      {
        newLeaderAfterPartitionMs: sinceMs(leaders.firstLeaderAfter(partitionAtMs, oldLeader)?.atMs, partitionAtMs),
        oldLeaderSteppedDownAfterPartitionMs: sinceMs(leaders.steppedDownAfter(oldLeader, partitionAtMs)?.atMs, partitionAtMs),
        ...holderMetrics(holds, alice, partitionAtMs),
        secondHolderAttempts: second?.attempts,
        firstHolderUnits: first?.unitsDone,
        firstHolderRegrantAfterHealMs: sinceMs(world.log.grants.filter((g) => g.key === work.key && g.holder === alice.node.identity)[1]?.grantedAtMs, startMs + HEAL_AT_MS),
        firstHolderRejoinAttempts: rejoined?.attempts,
      },
    );
  },
};

/** The first holder in the dark against the majority's log, in ms after the partition. */
function holderMetrics(holds: LedgerHolds, alice: ProbedClient, partitionAtMs: number): Record<string, number | undefined> {
  const fence = fenceTiming(alice.calls, TTL_SECONDS);
  const since = (atMs: number | undefined): number | undefined => sinceMs(atMs, partitionAtMs);
  return {
    lastRenewalSentAfterPartitionMs: since(fence.lastGoodSendMs),
    firstFailedKeepaliveAfterPartitionMs: since(keepalives(alice.calls).find((c) => c.sentMs >= partitionAtMs && c.outcome !== 'ok')?.answeredMs),
    firstHolderLastStartAfterPartitionMs: since(holds.firstLastStartMs),
    firstHolderFencedAfterPartitionMs: since(fence.fencedMs),
    // The library's fence against ADR-12's deadline (0: fenced exactly at send time + TTL - margin).
    fenceMinusDeadlineMs: sinceMs(fence.fencedMs, fence.deadlineMs),
    leaseExpiredOnMajorityAfterPartitionMs: since(holds.expiredMs),
    // Positive: the holder fenced this long before the majority expired its lease.
    fenceLeadOverExpiryMs: sinceMs(holds.expiredMs, fence.fencedMs),
    secondGrantAfterPartitionMs: since(holds.secondGrantMs),
  };
}
