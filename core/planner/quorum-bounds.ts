// The analytic side of `lockstep quorum`: the path of one acquisition, client -> arbiter -> etcd (the
// arbiter's endpoint, forwarded to the leader if it is another member) -> quorum fsync -> apply -> reply,
// priced per possible leader. The commit waits for the fastest majority: the leader counts itself after
// its own fsync, a follower after the append reaches it and its fsync completes (etcd-behaviour.md 3.2).
import { electionTimeoutMs, DEFAULT_ETCD_TIMERS } from './liveness.js';
import { DEFAULT_LINK_P99_OVER_MEDIAN, majority, rttBetween, specAt, type Topology } from './topology.js';

export interface LeaderPath {
  readonly leader: string;
  /** With median link and disk latencies, the arbiter's etcd client on its first endpoint. */
  readonly medianMs: number;
  /** With every part at its p99, same endpoint: an upper bound on the acquisition p99 under this leader. */
  readonly p99BoundMs: number;
  /** As p99BoundMs with the client on whichever member is worst: after it failed over. */
  readonly failoverP99BoundMs: number;
  /** As p99BoundMs under load: every Ready on the path waits for one fsync in progress. */
  readonly loadedP99BoundMs: number;
}

export interface QuorumBounds {
  /** The fastest majority's commit alone: min over leaders of the majority-th fastest RTT + fsync (medians). */
  readonly quorumFloorMs: number;
  /** The whole acquisition under the best leader, median parts: nothing simulated can be consistently faster. */
  readonly floorMs: number;
  /** The whole acquisition under the worst leader, every part at its p99, the client on its first endpoint. */
  readonly upperMs: number;
  /** As upperMs with the client failed over to the worst member. */
  readonly failoverUpperMs: number;
  /**
   * As upperMs under any load below saturation: each Ready on the path (the endpoint's two, the leader's
   * two, one per follower) first waits for the fsync in progress. Loose, since every wait is at its worst.
   */
  readonly loadedUpperMs: number;
  readonly byLeader: readonly LeaderPath[];
}

export function quorumBounds(topology: Topology): QuorumBounds {
  // The arbiter's etcd client sticks to its first endpoint, the member in its own hall, and moves on only
  // after an error (src/etcd/endpoint-set.ts; sim/cluster/lock-log-endpoints.ts): the bounds of the steady
  // state use that member (ADR-08: cross-region latency is never added by a hidden choice). After a
  // failover it can sit on any member: the failover bound lets it be the worst.
  const home = topology.members[0]!.name;
  const byLeader = topology.members.map((m) => ({
    leader: m.name,
    medianMs: pathMs(topology, m.name, 0.5, home),
    p99BoundMs: pathMs(topology, m.name, 0.99, home),
    failoverP99BoundMs: Math.max(...topology.members.map((e) => pathMs(topology, m.name, 0.99, e.name))),
    loadedP99BoundMs: pathMs(topology, m.name, 0.99, home, true),
  }));
  const quorumFloorMs = Math.min(...topology.members.map((m) => commitMs(topology, m.name, 0.5)));
  return {
    quorumFloorMs,
    floorMs: Math.min(...byLeader.map((p) => p.medianMs)),
    upperMs: Math.max(...byLeader.map((p) => p.p99BoundMs)),
    failoverUpperMs: Math.max(...byLeader.map((p) => p.failoverP99BoundMs)),
    loadedUpperMs: Math.max(...byLeader.map((p) => p.loadedP99BoundMs)),
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

/**
 * When `leader` has a majority durable for an entry it sent at time 0. `loaded`: every follower's Ready
 * loop may be busy with one fsync when the append arrives (etcd batches whatever arrives meanwhile into
 * the next Ready, so never more than one).
 */
export function commitMs(topology: Topology, leader: string, q: 0.5 | 0.99, loaded = false): number {
  const leaderHall = topology.members.find((m) => m.name === leader)!.hall;
  const durable = topology.members.map((m) => (m.name === leader ? fsyncOf(topology, leader, q) : linkRtt(topology, leaderHall, m.hall, q) + readyWait(topology, m.name, q, loaded) + fsyncOf(topology, m.name, q)));
  durable.sort((a, b) => a - b);
  return durable[majority(topology.members.length) - 1]!;
}

/** The wait for a Ready loop already in an fsync (sim/raft/node.ts, etcd-behaviour.md 3.2): none when uncontended. */
function readyWait(topology: Topology, member: string, q: 0.5 | 0.99, loaded: boolean): number {
  return loaded ? fsyncOf(topology, member, q) : 0;
}

/**
 * One acquisition: client -> arbiter -> endpoint (forwarded to the leader when the endpoint follows) ->
 * the leader's Ready sends the append -> majority durable -> the next Ready applies and tells the
 * followers -> the endpoint applies -> reply. `loaded` adds a Ready wait wherever a Ready must run.
 */
function pathMs(topology: Topology, leader: string, q: 0.5 | 0.99, endpointName: string, loaded = false): number {
  const endpoint = topology.members.find((m) => m.name === endpointName)!;
  const leaderHall = topology.members.find((m) => m.name === leader)!.hall;
  const clientToArbiter = linkRtt(topology, topology.clients.hall, topology.arbiter.hall, q);
  const arbiterToEndpoint = linkRtt(topology, topology.arbiter.hall, endpoint.hall, q);
  // A follower endpoint forwards the proposal in a Ready and applies the commit in a later one.
  const forward = endpoint.name === leader ? 0 : linkRtt(topology, endpoint.hall, leaderHall, q) + 2 * readyWait(topology, endpoint.name, q, loaded);
  const leaderReadies = 2 * readyWait(topology, leader, q, loaded);
  return clientToArbiter + arbiterToEndpoint + forward + leaderReadies + commitMs(topology, leader, q, loaded);
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
      // Soonest: a survivor's timer counts whole ticks from the last heartbeat, which can have arrived up
      // to a tick before the loss, and the shortest randomized timeout is E (etcd-behaviour.md 3.1); then
      // one vote round. Latest: the longest timeout, a tick of rounding, and a vote and no-op commit each.
      const newLeaderMs: [number, number] | null = quorumSurvives ? [e - 2 * timers.tickMs + Math.min(...commits), 2 * e + timers.tickMs + 2 * Math.max(...commits)] : null;
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
