// The analytic side of `lockstep quorum`: the path of one acquisition, client -> arbiter -> etcd (the
// arbiter's endpoint, forwarded to the leader if it is another member) -> quorum fsync -> apply -> reply,
// priced per possible leader. The commit waits for the fastest majority: the leader counts itself after
// its own fsync, a follower after the append reaches it and its fsync completes (etcd-behaviour.md 3.2).
import { electionTimeoutMs, DEFAULT_ETCD_TIMERS } from './liveness.js';
import { DEFAULT_LINK_P99_OVER_MEDIAN, majority, rttBetween, specAt, type Topology } from './topology.js';

export interface LeaderPath {
  readonly leader: string;
  /** With median link and disk latencies. */
  readonly medianMs: number;
  /** With every part at its p99: an upper bound on the acquisition p99 under this leader. */
  readonly p99BoundMs: number;
}

export interface QuorumBounds {
  /** The fastest majority's commit alone: min over leaders of the majority-th fastest RTT + fsync (medians). */
  readonly quorumFloorMs: number;
  /** The whole acquisition under the best leader, median parts: nothing simulated can be consistently faster. */
  readonly floorMs: number;
  /** The whole acquisition under the worst leader, every part at its p99. */
  readonly upperMs: number;
  readonly byLeader: readonly LeaderPath[];
}

export function quorumBounds(topology: Topology): QuorumBounds {
  // The floor assumes the arbiter's etcd client on its first endpoint; the upper bound lets it be on any
  // member, as it moves on after an error (sim/cluster/lock-log-endpoints.ts, and clientv3 alike).
  const byLeader = topology.members.map((m) => ({
    leader: m.name,
    medianMs: pathMs(topology, m.name, 0.5, topology.members[0]!.name),
    p99BoundMs: Math.max(...topology.members.map((e) => pathMs(topology, m.name, 0.99, e.name))),
  }));
  const quorumFloorMs = Math.min(...topology.members.map((m) => commitMs(topology, m.name, 0.5)));
  return {
    quorumFloorMs,
    floorMs: Math.min(...byLeader.map((p) => p.medianMs)),
    upperMs: Math.max(...byLeader.map((p) => p.p99BoundMs)),
    byLeader,
  };
}

function linkRtt(topology: Topology, hallA: string, hallB: string, q: 0.5 | 0.99): number {
  const rtt = rttBetween(topology, hallA, hallB);
  return q === 0.5 ? rtt : rtt * (topology.linkP99OverMedian ?? DEFAULT_LINK_P99_OVER_MEDIAN);
}

function fsyncOf(topology: Topology, member: string, q: 0.5 | 0.99): number {
  const m = topology.members.find((x) => x.name === member)!;
  return specAt(m.fsync ?? topology.fsync, q);
}

/** When `leader` has a majority durable for an entry it appended at time 0. */
export function commitMs(topology: Topology, leader: string, q: 0.5 | 0.99): number {
  const leaderHall = topology.members.find((m) => m.name === leader)!.hall;
  const durable = topology.members.map((m) => (m.name === leader ? fsyncOf(topology, leader, q) : linkRtt(topology, leaderHall, m.hall, q) + fsyncOf(topology, m.name, q)));
  durable.sort((a, b) => a - b);
  return durable[majority(topology.members.length) - 1]!;
}

function pathMs(topology: Topology, leader: string, q: 0.5 | 0.99, endpointName: string): number {
  const endpoint = topology.members.find((m) => m.name === endpointName)!;
  const leaderHall = topology.members.find((m) => m.name === leader)!.hall;
  const clientToArbiter = linkRtt(topology, topology.clients.hall, topology.arbiter.hall, q);
  const arbiterToEndpoint = linkRtt(topology, topology.arbiter.hall, endpoint.hall, q);
  const forward = endpoint.name === leader ? 0 : linkRtt(topology, endpoint.hall, leaderHall, q);
  return clientToArbiter + arbiterToEndpoint + forward + commitMs(topology, leader, q);
}

/** Raft timers of a topology with etcd's defaults filled in. */
export function topologyTimers(topology: Topology): { tickMs: number; electionTicks: number } {
  return { tickMs: topology.raft?.tickMs ?? DEFAULT_ETCD_TIMERS.tickMs, electionTicks: topology.raft?.electionTicks ?? DEFAULT_ETCD_TIMERS.electionTicks };
}

export interface LossCase {
  /** `region eu-1` or `hall eu-1/a`. */
  readonly lost: string;
  readonly members: readonly string[];
  /** The survivors still form a majority. */
  readonly quorumSurvives: boolean;
  /** If the leader was among the lost: the time to a new leader, [best, worst] (section 3.1). */
  readonly newLeaderMs: readonly [number, number] | null;
}

/** Every region (when there are several) and every hall that holds members, lost at once. */
export function lossCases(topology: Topology): LossCase[] {
  const regions = [...new Set(topology.halls.map((h) => h.region))];
  const groups: Array<{ lost: string; halls: Set<string> }> = [];
  if (regions.length > 1) for (const region of regions) groups.push({ lost: `region ${region}`, halls: new Set(topology.halls.filter((h) => h.region === region).map((h) => h.name)) });
  for (const hall of topology.halls) groups.push({ lost: `hall ${hall.name}`, halls: new Set([hall.name]) });
  const timers = topologyTimers(topology);
  const e = electionTimeoutMs({ ...DEFAULT_ETCD_TIMERS, ...timers });
  return groups
    .map(({ lost, halls }) => {
      const members = topology.members.filter((m) => halls.has(m.hall)).map((m) => m.name);
      const survivors = topology.members.filter((m) => !halls.has(m.hall));
      const quorumSurvives = survivors.length >= majority(topology.members.length);
      const commits = survivors.map((s) => commitMsAmong(topology, s.name, survivors.map((x) => x.name)));
      const newLeaderMs: [number, number] | null = quorumSurvives ? [e + Math.min(...commits), 2 * e + timers.tickMs + 2 * Math.max(...commits)] : null;
      return { lost, members, quorumSurvives, newLeaderMs };
    })
    .filter((c) => c.members.length > 0);
}

/** Like commitMs, with only `alive` members able to acknowledge. */
function commitMsAmong(topology: Topology, leader: string, alive: readonly string[]): number {
  const leaderHall = topology.members.find((m) => m.name === leader)!.hall;
  const durable = topology.members.filter((m) => alive.includes(m.name)).map((m) => (m.name === leader ? fsyncOf(topology, leader, 0.5) : linkRtt(topology, leaderHall, m.hall, 0.5) + fsyncOf(topology, m.name, 0.5)));
  durable.sort((a, b) => a - b);
  return durable[majority(topology.members.length) - 1] ?? Number.POSITIVE_INFINITY;
}
