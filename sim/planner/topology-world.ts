// A simulated world laid out as a topology says (core/planner/topology.ts): members in halls, every link
// (member to member, arbiter to member, client to arbiter) with the RTT between their halls, disks with
// the topology's fsync, Raft's timers. The same World the scenarios use; only the links differ.
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { ClassRegistry, type LockClass, TTL_DEFAULT_SECONDS } from '../../core/classes/index.js';
import { DEFAULT_LINK_P99_OVER_MEDIAN, rttBetween, specAt, type Topology } from '../../core/planner/topology.js';
import type { DistributionSpec } from '../kernel/distribution.js';
import type { LinkSpec } from '../net/link-spec.js';
import { type ClientNode, World } from '../world/world.js';
import { etcdCosts, type HostTiming, onPathCosts, timedTopology, withRigCost } from './host-timing.js';
import { arbiterThreadCharges, chargeClientCalls } from './served-hop.js';

export const PLANNER_NAMESPACE = 'planner';

export function plannerClass(ttlSeconds: number): LockClass {
  return { namespace: PLANNER_NAMESPACE, name: 'acquire', purpose: 'correctness', enforcement: 'fenced', resource: 'sim://planner', ttlSeconds, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };
}

export function plannerIdentity(i: number): string {
  return `spiffe://sim/planner/client-${i}`;
}

/** One-way latency of a link whose round trip is `rttMs`, with the topology's tail. */
export function oneWay(rttMs: number, p99OverMedian: number): DistributionSpec {
  const medianMs = rttMs / 2;
  if (medianMs <= 0 || p99OverMedian <= 1) return { kind: 'constant', ms: medianMs };
  return { kind: 'lognormal', medianMs, p99Ms: medianMs * p99OverMedian };
}

/**
 * The simulator takes one WAL fsync distribution per cluster: when members differ, the slowest (by p99)
 * stands for all, which can only make simulated figures slower than the topology's.
 */
export function clusterFsync(topology: Topology): DistributionSpec {
  const specs = topology.members.map((m) => m.fsync ?? topology.fsync);
  return specs.reduce((slowest, s) => (specAt(s, 0.99) > specAt(slowest, 0.99) ? s : slowest));
}

export interface TopologyWorld {
  readonly world: World;
  readonly clients: readonly ClientNode[];
}

/** The topology's world; with `host`, timed as that machine runs it (host-timing.ts): its fsync, CPU costs, the served lock.v1 hop's CPU and rig links. */
export async function topologyWorld(untimed: Topology, seed: string, yieldToHost: () => Promise<void>, fullHost?: HostTiming, ttlSeconds = TTL_DEFAULT_SECONDS): Promise<TopologyWorld> {
  const host = onPathCosts(fullHost); // the CPU on the grant's path only (host-fit.ts)
  const topology = timedTopology(untimed, host);
  const regionOf = new Map(topology.halls.map((h) => [h.name, h.region]));
  const ratio = topology.linkP99OverMedian ?? DEFAULT_LINK_P99_OVER_MEDIAN;
  const link = (hallA: string, hallB: string): LinkSpec => ({ latency: withRigCost(oneWay(rttBetween(topology, hallA, hallB), ratio), host?.rigLinkCost), ordered: true });
  const world = new World({
    seed,
    yieldToHost,
    classes: new ClassRegistry([plannerClass(ttlSeconds)]),
    authorizer: new PrefixGrants(Array.from({ length: topology.clients.count }, (_, i) => namespaceGrant(plannerIdentity(i), PLANNER_NAMESPACE))),
    ...arbiterThreadCharges(host?.arbiterCostMsPerCall ?? 0, host?.servedHop),
    cluster: {
      members: topology.members.map((m) => m.name),
      regions: topology.members.map((m) => regionOf.get(m.hall) ?? 'default'),
      timing: { walFsync: clusterFsync(topology), ...etcdCosts(host), raft: { ...(topology.raft?.tickMs === undefined ? {} : { tickMs: topology.raft.tickMs }), ...(topology.raft?.electionTicks === undefined ? {} : { electionTicks: topology.raft.electionTicks }) } },
    },
  });
  // Per-link settings override the cluster's default peer link (sim/net/link-spec.ts): set every pair.
  const arbiter = world.arbiters[0]!.process.name;
  for (const a of topology.members) {
    for (const b of topology.members) if (a !== b) world.clusterNetwork.setLink(a.name, b.name, link(a.hall, b.hall));
    world.clusterNetwork.setLink(arbiter, a.name, link(topology.arbiter.hall, a.hall));
    world.clusterNetwork.setLink(a.name, arbiter, link(a.hall, topology.arbiter.hall));
  }
  const clients = Array.from({ length: topology.clients.count }, (_, i) => {
    const clientMs = host?.servedHop?.clientMsPerCall ?? 0;
    const node = world.addClient(`client-${i}`, { identity: plannerIdentity(i), ...(clientMs > 0 ? { wrapApi: (api, process) => chargeClientCalls(api, process, clientMs) } : {}) });
    world.rpcNetwork.setLink(node.process.name, arbiter, link(topology.clients.hall, topology.arbiter.hall));
    world.rpcNetwork.setLink(arbiter, node.process.name, link(topology.arbiter.hall, topology.clients.hall));
    return node;
  });
  await world.start();
  return { world, clients };
}
