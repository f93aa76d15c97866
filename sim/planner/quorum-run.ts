// `lockstep quorum`'s Monte Carlo: the full protocol (client -> arbiter -> etcd -> quorum fsync -> apply
// -> reply) on a topology's world, over seeds and over leader placement (run r puts the leader on member
// r mod N with etcd's MoveLeader, so every placement is weighed equally rather than by election luck),
// and what losing each region or hall does to a workload that keeps acquiring.
//
// The deployment modelled (ADR-07/08, docs/planner.md): the arbiter's etcd client sticks to the member
// listed first, the one in its own hall, and moves on only after an error (src/etcd/endpoint-set.ts),
// so cross-region latency is never added by the client's own choice; the leader is not pinned, since
// etcd elects whichever member times out first and has no leader affinity.
import { lossCases, type LossCase } from '../../core/planner/quorum-bounds.js';
import type { Topology } from '../../core/planner/topology.js';
import type { World, ClientNode } from '../world/world.js';
import { compileDistribution, type DistributionSpec } from '../kernel/distribution.js';
import type { HostTiming } from './host-timing.js';
import { PLANNER_NAMESPACE, topologyWorld } from './topology-world.js';
import { TTL_DEFAULT_SECONDS } from '../../core/classes/index.js';

export interface QuorumRunOptions {
  readonly runs: number;
  readonly samplesPerRun: number;
  readonly seed: string;
  readonly yieldToHost: () => Promise<void>;
  /** The host's timing (host-timing.ts); absent: the simulator's defaults. */
  readonly host?: HostTiming;
}

export interface QuorumRun {
  /** The member that led while the run measured. */
  readonly leader: string;
  /** The arbiter's etcd endpoint when measuring began and when it ended (a move would mix two paths). */
  readonly endpointAtStart: string;
  readonly endpointAtEnd: string;
  readonly latenciesMs: number[];
}

export interface QuorumSimulation {
  readonly latenciesMs: number[];
  readonly runs: number;
  /** Which member led each run. */
  readonly leaders: string[];
  /** Each run's own samples, leader and endpoint: the per-placement rows. */
  readonly byRun: QuorumRun[];
}

const MAX_RUN_MS = 120_000; // a bound on each run's virtual time (TigerStyle)
const SETTLE_MS = 200;

interface Loop {
  readonly latenciesMs: number[];
  readonly grantedAtMs: number[];
  failures: number;
  stop(): void;
}

/**
 * Every client acquires its own key, releases it, and goes again: a closed loop of uncontended grants.
 * With a host scheduling delay (host-fit.ts), each acquisition first waits one draw of it, inside the
 * measured latency: the host's wait for a CPU that its CPU per operation does not price.
 */
function acquireLoop(world: World, clients: readonly ClientNode[], schedulingDelay?: DistributionSpec): Loop {
  let stopped = false;
  const loop: Loop = { latenciesMs: [], grantedAtMs: [], failures: 0, stop: () => (stopped = true) };
  const think = world.kernel.rng.stream('planner/think');
  const delay = schedulingDelay === undefined ? undefined : { quantile: compileDistribution(schedulingDelay, 'host scheduling delay'), draws: world.kernel.rng.stream('planner/host-delay') };
  clients.forEach((node, i) => {
    const key = `${PLANNER_NAMESPACE}/key-${i}`;
    const go = async (): Promise<void> => {
      // The session opens on the first acquire (a lease grant); do it before measuring.
      await node.client.acquire({ key: `${key}-warmup`, className: 'acquire', ttlSeconds: TTL_DEFAULT_SECONDS, onFence: () => {} }).then((h) => h.release()).catch(() => undefined);
      while (!stopped) {
        const startMs = world.kernel.now();
        const waitMs = delay === undefined ? 0 : delay.quantile(delay.draws.next());
        if (waitMs > 0) await node.process.clock().sleep(waitMs);
        try {
          const handle = await node.client.acquire({ key, className: 'acquire', ttlSeconds: TTL_DEFAULT_SECONDS, waitMs: 0, onFence: () => {} });
          loop.latenciesMs.push(world.kernel.now() - startMs);
          loop.grantedAtMs.push(world.kernel.now());
          await handle.release().catch(() => false);
        } catch {
          loop.failures += 1;
        }
        await node.process.clock().sleep(1 + think.next() * 4);
      }
    };
    world.kernel.adopt(go());
  });
  return loop;
}

async function placeLeader(world: World, name: string): Promise<void> {
  for (let attempt = 0; attempt < 5 && world.cluster.leader()?.name !== name; attempt += 1) {
    world.cluster.moveLeader(name);
    await world.kernel.runUntilCondition(() => world.cluster.leader()?.name === name, { untilMs: world.kernel.now() + 5_000 });
  }
  // The first election, and MoveLeader, drop proposals meanwhile, and the arbiter's etcd client moves to
  // its next endpoint after such an error; a fresh arbiter starts again at its first endpoint, the member
  // in its own hall. Restarted even when the leader was already in place: the start's election alone can
  // have moved the client (before this, a run whose first election chose the target measured the path
  // through a remote member and priced the stretched topology's p99 at ~207 ms instead of ~155 ms).
  const arbiter = world.arbiters[0]!.process;
  arbiter.crash();
  arbiter.restart();
  await world.runUntil(world.kernel.now() + SETTLE_MS);
}

export async function simulateAcquisitions(topology: Topology, options: QuorumRunOptions): Promise<QuorumSimulation> {
  const byRun: QuorumRun[] = [];
  for (let run = 0; run < options.runs; run += 1) {
    const { world, clients } = await topologyWorld(topology, `${options.seed}-${run}`, options.yieldToHost, options.host);
    const target = topology.members[run % topology.members.length]!.name;
    await placeLeader(world, target);
    const leader = world.cluster.leader()?.name ?? '(none)';
    const endpointAtStart = world.arbiters[0]!.log.currentEndpoint;
    const loop = acquireLoop(world, clients, options.host?.schedulingDelay);
    const deadlineMs = world.kernel.now() + MAX_RUN_MS;
    // The first acquisitions of each client still fill the arbiter's caches (session owner reads): skip them.
    const warmup = 2 * clients.length;
    await world.kernel.runUntilCondition(() => loop.latenciesMs.length >= warmup + options.samplesPerRun, { untilMs: deadlineMs });
    loop.stop();
    byRun.push({ leader, endpointAtStart, endpointAtEnd: world.arbiters[0]!.log.currentEndpoint, latenciesMs: loop.latenciesMs.slice(warmup, warmup + options.samplesPerRun) });
  }
  return { latenciesMs: byRun.flatMap((r) => r.latenciesMs), runs: options.runs, leaders: byRun.map((r) => r.leader), byRun };
}

export interface LossResult extends LossCase {
  /** Simulated: crash to a surviving leader, ms (null when the quorum is gone or none was elected). */
  readonly simulatedNewLeaderMs: number | null;
  /** Simulated: crash to the first grant completed under the new leader. */
  readonly simulatedResumeMs: number | null;
  /** Grants the closed loop would have completed at its pre-crash rate during the outage, less those it did. */
  readonly grantsLost: number | null;
  readonly failedAcquisitions: number;
}

const LOSS_WARMUP_MS = 2_000;
const LOSS_OBSERVE_MS = 15_000;

/** For each loss case: put the leader among the lost members (the worst case), run, crash them, watch. */
export async function simulateLosses(topology: Topology, options: Omit<QuorumRunOptions, 'runs' | 'samplesPerRun'>): Promise<LossResult[]> {
  const results: LossResult[] = [];
  for (const [i, loss] of lossCases(topology).entries()) {
    const { world, clients } = await topologyWorld(topology, `${options.seed}-loss-${i}`, options.yieldToHost, options.host);
    await placeLeader(world, loss.members[0]!);
    const loop = acquireLoop(world, clients, options.host?.schedulingDelay);
    await world.runUntil(world.kernel.now() + LOSS_WARMUP_MS);
    const beforeCount = loop.grantedAtMs.length;
    const crashAtMs = world.kernel.now();
    const ratePerMs = beforeCount / LOSS_WARMUP_MS;
    for (const member of loss.members) world.cluster.crash(member);
    const failedBefore = loop.failures;
    const elected = await world.kernel.runUntilCondition(() => world.cluster.leader() !== undefined, { untilMs: crashAtMs + LOSS_OBSERVE_MS });
    const newLeaderAtMs = elected.reason === 'condition' ? world.kernel.now() : undefined;
    await world.runUntil(crashAtMs + LOSS_OBSERVE_MS);
    loop.stop();
    const resumedAtMs = newLeaderAtMs === undefined ? undefined : loop.grantedAtMs.find((t) => t >= newLeaderAtMs);
    const duringOutage = resumedAtMs === undefined ? 0 : loop.grantedAtMs.filter((t) => t > crashAtMs && t < resumedAtMs).length;
    results.push({
      ...loss,
      simulatedNewLeaderMs: newLeaderAtMs === undefined ? null : newLeaderAtMs - crashAtMs,
      simulatedResumeMs: resumedAtMs === undefined ? null : resumedAtMs - crashAtMs,
      grantsLost: resumedAtMs === undefined ? null : Math.max(0, Math.round(ratePerMs * (resumedAtMs - crashAtMs)) - duringOutage),
      failedAcquisitions: loop.failures - failedBefore,
    });
  }
  return results;
}
