// A simulated etcd cluster on one network (ARCHITECTURE.md "Simulated etcd member"): N members with
// etcd's member and cluster ids, staggered starts, fault helpers, snapshots, restore into a new cluster,
// and the safety checks a run can ask for (`violations`):
// - election safety: at most one member becomes leader in a term;
// - state machine safety: every apply of index i, on any member and in any incarnation, is the same entry.
import type { ClusterId, MemberId } from '../../core/units.js';
import type { Kernel } from '../kernel/kernel.js';
import type { LinkSpec } from '../net/link-spec.js';
import { Network } from '../net/network.js';
import type { PartitionId, PartitionSpec } from '../net/partition.js';
import type { ClockSpec } from '../process/local-clock.js';
import { SimProcess, type CrashOptions } from '../process/process.js';
import { DEFAULT_RAFT_LINK } from '../raft/group.js';
import { AppliedEntries, type AppliedRequest } from './applied-entries.js';
import { clusterIds, DEFAULT_CLUSTER_TOKEN, defaultPeerUrl } from './ids.js';
import { EtcdMember, type MemberObserver } from './member.js';
import type { ClusterMessage } from './protocol.js';
import type { ClusterNetwork } from './ports.js';
import { bumpSnapshot, type EtcdSnapshot } from './snapshot.js';
import { etcdTiming, type EtcdTiming, type EtcdTimingInput } from './timing.js';

export interface SimClusterOptions {
  /** How many members (named `<namePrefix>1..N`), or their names. Default 3. */
  readonly members?: number | readonly string[];
  /** Default 'etcd-'. */
  readonly namePrefix?: string;
  /** Member i runs in regions[i % regions.length] (for region-pair latencies). Default: all in 'default'. */
  readonly regions?: readonly string[];
  /** Each member's advertised peer URL; default `http://<name>:2380`. Ids derive from these and the token. */
  readonly peerUrls?: readonly string[];
  /** `--initial-cluster-token`. Default 'etcd-cluster'. */
  readonly clusterToken?: string;
  readonly timing?: EtcdTimingInput;
  /** Shorthand for timing.raft.preVote (false in 3.4, true in 3.5). */
  readonly preVote?: boolean;
  /** etcd 3.5.13's leadership check before a leader renews a lease (etcd#15247). Default false (3.4.23). */
  readonly confirmLeadershipOnRenew?: boolean;
  /** etcd 3.5.13's leadership check before revoking expired leases. Default false. */
  readonly confirmLeadershipOnRevoke?: boolean;
  readonly leaseCheckpointing?: boolean;
  /** Link between members (set per directed pair). Default: lognormal 0.5 ms median, 3 ms p99, ordered. */
  readonly peerLink?: LinkSpec;
  readonly clock?: (member: string) => ClockSpec;
  /** Members start at times drawn from [0, startSpreadMs) (stream 'cluster/<first member>/start'). Default 100. */
  readonly startSpreadMs?: number;
  /** Told of every entry each member applies and every soft-state change (after the cluster's own checks). */
  readonly observer?: MemberObserver;
  /** Start every member from this snapshot (etcdctl snapshot restore). */
  readonly restoreFrom?: EtcdSnapshot;
  /** With restoreFrom: 3.5's `--bump-revision N --mark-compacted`. */
  readonly bumpRevision?: number;
}

export interface SimCluster {
  readonly kernel: Kernel;
  readonly network: ClusterNetwork;
  readonly members: readonly EtcdMember[];
  readonly clusterId: ClusterId;
  readonly timing: EtcdTiming;
  /** Safety violations seen so far; empty in a correct run. */
  readonly violations: readonly string[];
  member(name: string): EtcdMember;
  /** The running member raft says leads in the highest term (raft's view), if any. */
  leader(): EtcdMember | undefined;
  memberIdOf(name: string): MemberId;
  crash(name: string, options?: CrashOptions): void;
  restart(name: string): void;
  pause(name: string): void;
  resume(name: string): void;
  /** Holds the member's WAL disk until true time `untilMs`: its raft loop sticks on the next fsync. */
  stallDisk(name: string, untilMs: number): void;
  /** etcd MoveLeader: the current leader hands over to `to` (proposals are dropped meanwhile); false if none leads. */
  moveLeader(to: string): boolean;
  /** Cuts the member off from the other members (clients can still reach it). */
  isolateFromPeers(name: string): PartitionId;
  partition(spec: PartitionSpec): PartitionId;
  heal(id: PartitionId): boolean;
  /** A snapshot of a member's applied state (default: the leader, else the first running member). */
  snapshot(name?: string): EtcdSnapshot;
}

/** A network for a cluster and its clients: TCP-like links (ordered, lossless) with a small latency. */
export function createClusterNetwork(kernel: Kernel, defaults: LinkSpec = DEFAULT_RAFT_LINK): ClusterNetwork {
  return new Network<ClusterMessage>(kernel, { name: 'net', defaults });
}

export function createSimCluster(kernel: Kernel, network: ClusterNetwork, options: SimClusterOptions = {}): SimCluster {
  return new Cluster(kernel, network, options);
}

/** A new cluster started from `snapshot` (etcdctl snapshot restore on every member, then start). */
export function restoreSimCluster(kernel: Kernel, network: ClusterNetwork, snapshot: EtcdSnapshot, options: Omit<SimClusterOptions, 'restoreFrom'> = {}): SimCluster {
  return new Cluster(kernel, network, { ...options, restoreFrom: snapshot });
}

class Cluster implements SimCluster {
  readonly members: readonly EtcdMember[];
  readonly clusterId: ClusterId;
  readonly timing: EtcdTiming;
  readonly violations: string[] = [];
  private readonly byName = new Map<string, EtcdMember>();
  private readonly memberIds = new Map<string, MemberId>();
  private readonly leaderOfTerm = new Map<number, string>();
  private readonly applied = new AppliedEntries();

  constructor(
    readonly kernel: Kernel,
    readonly network: ClusterNetwork,
    options: SimClusterOptions,
  ) {
    const names = memberNames(options);
    const peerUrls = options.peerUrls ?? names.map(defaultPeerUrl);
    if (peerUrls.length !== names.length) throw new Error(`createSimCluster: ${peerUrls.length} peer URLs for ${names.length} members`);
    const ids = clusterIds(peerUrls, options.clusterToken ?? DEFAULT_CLUSTER_TOKEN);
    names.forEach((name, i) => this.memberIds.set(name, ids.memberIds[i]!));
    this.clusterId = ids.clusterId;
    const timingInput = options.preVote === undefined ? options.timing : { ...options.timing, raft: { ...options.timing?.raft, preVote: options.preVote } };
    this.timing = etcdTiming(timingInput);
    const restoredFrom = restoredSnapshot(options);
    const peerLink = options.peerLink ?? DEFAULT_RAFT_LINK;
    for (const from of names) for (const to of names) if (from !== to) network.setLink(from, to, peerLink);
    this.members = names.map((name, i) => this.makeMember(name, i, peerUrls[i]!, names, options, restoredFrom));
    this.startStaggered(options.startSpreadMs ?? this.timing.raft.tickMs);
    kernel.trace.record('cluster.create', { clusterId: this.clusterId, members: names, restored: restoredFrom !== undefined });
  }

  member(name: string): EtcdMember {
    const member = this.byName.get(name);
    if (member === undefined) throw new Error(`SimCluster: no member named ${JSON.stringify(name)}; members are ${[...this.byName.keys()].join(', ')}`);
    return member;
  }

  leader(): EtcdMember | undefined {
    let best: EtcdMember | undefined;
    for (const member of this.members) {
      const status = member.running ? member.raftStatus() : undefined;
      if (status?.role !== 'leader') continue;
      if (best === undefined || status.term > (best.raftStatus()?.term ?? 0)) best = member;
    }
    return best;
  }

  memberIdOf(name: string): MemberId {
    return this.member(name).memberId;
  }

  crash(name: string, options?: CrashOptions): void {
    this.member(name).process.crash(options);
  }

  restart(name: string): void {
    this.member(name).process.restart();
  }

  pause(name: string): void {
    this.member(name).process.pause();
  }

  resume(name: string): void {
    this.member(name).process.resume();
  }

  stallDisk(name: string, untilMs: number): void {
    this.member(name).disk.stall(untilMs);
  }

  moveLeader(to: string): boolean {
    this.member(to);
    const outcome = this.leader()?.raft()?.transferLeadership(to);
    return outcome?.kind === 'started';
  }

  isolateFromPeers(name: string): PartitionId {
    return this.network.partition({ from: [name], to: this.members.map((m) => m.name).filter((other) => other !== name) });
  }

  partition(spec: PartitionSpec): PartitionId {
    return this.network.partition(spec);
  }

  heal(id: PartitionId): boolean {
    return this.network.heal(id);
  }

  snapshot(name?: string): EtcdSnapshot {
    const member = name !== undefined ? this.member(name) : (this.leader() ?? this.members.find((m) => m.running));
    if (member === undefined) throw new Error('SimCluster.snapshot: no member is running');
    return member.snapshot();
  }

  private makeMember(name: string, index: number, peerUrl: string, voters: readonly string[], options: SimClusterOptions, restoredFrom: EtcdSnapshot | undefined): EtcdMember {
    const clock = options.clock?.(name);
    const regions = options.regions ?? [];
    const region = regions.length > 0 ? regions[index % regions.length] : undefined;
    const process = new SimProcess(this.kernel, { name, ...(region === undefined ? {} : { region }), ...(clock === undefined ? {} : { clock }) });
    const member = new EtcdMember({
      network: this.network,
      process,
      voters,
      memberIds: this.memberIds,
      clusterId: this.clusterId,
      peerUrl,
      timing: this.timing,
      confirmLeadershipOnRenew: options.confirmLeadershipOnRenew ?? false,
      confirmLeadershipOnRevoke: options.confirmLeadershipOnRevoke ?? false,
      leaseCheckpointing: options.leaseCheckpointing ?? false,
      ...(restoredFrom === undefined ? {} : { restoredFrom }),
      activePeerCount: () => this.activePeers(name),
      observer: {
        onApplied: (applying, entry) => {
          this.noteApply(applying.name, entry.index, entry.term, entry.type === 'normal' && entry.data !== null ? entry.data.requestId : entry.type);
          options.observer?.onApplied?.(applying, entry);
        },
        onSoftState: (changed, soft, term) => {
          if (soft.role === 'leader') this.noteElection(term, changed.name);
          options.observer?.onSoftState?.(changed, soft, term);
        },
      },
    });
    this.byName.set(name, member);
    return member;
  }

  private startStaggered(spreadMs: number): void {
    const starts = this.kernel.rng.stream(`cluster/${this.members[0]?.name ?? ''}/start`);
    for (const member of this.members) {
      const delayMs = spreadMs > 0 ? starts.next() * spreadMs : 0;
      const start = (): void => {
        if (member.process.state !== 'crashed') member.start();
      };
      if (delayMs === 0) start();
      else this.kernel.scheduleAfter(delayMs, start);
    }
  }

  /** Peers with a working connection (started, running, not cut either way), for the startup tick advance. */
  private activePeers(name: string): number {
    let active = 0;
    for (const peer of this.members) {
      if (peer.name === name || !peer.running) continue;
      if (!this.network.isCut(name, peer.name) && !this.network.isCut(peer.name, name)) active++;
    }
    return active;
  }

  private noteApply(member: string, index: number, term: number, request: AppliedRequest): void {
    const violation = this.applied.note(member, index, term, request);
    if (violation !== undefined) this.violations.push(violation);
    if (this.timing.snapshotCount !== undefined) this.forgetSnapshottedApplies();
  }

  /**
   * With snapshots (member-snapshots.ts), no member applies an index at or below its own last snapshot
   * again, so the indexes every member's snapshot covers can never be compared again: forget them, and the
   * check's memory stays bounded like the log's (issue 16). Without snapshots a restart re-applies from 1.
   */
  private forgetSnapshottedApplies(): void {
    let covered = Number.POSITIVE_INFINITY;
    for (const m of this.members) covered = Math.min(covered, m.snapshots.latest?.start.index ?? 0);
    this.applied.forgetThrough(covered);
  }

  private noteElection(term: number, member: string): void {
    const earlier = this.leaderOfTerm.get(term);
    if (earlier === undefined) this.leaderOfTerm.set(term, member);
    else if (earlier !== member) this.violations.push(`term ${term} has two leaders: ${earlier} and ${member}`);
  }
}

function memberNames(options: SimClusterOptions): readonly string[] {
  const members = options.members ?? 3;
  if (typeof members !== 'number') {
    if (members.length === 0 || new Set(members).size !== members.length) throw new Error('createSimCluster: member names must be non-empty and unique');
    return members;
  }
  if (!(Number.isInteger(members) && members >= 1)) throw new RangeError(`createSimCluster: members must be a positive whole number, got ${members}`);
  return Array.from({ length: members }, (_, i) => `${options.namePrefix ?? 'etcd-'}${i + 1}`);
}

function restoredSnapshot(options: SimClusterOptions): EtcdSnapshot | undefined {
  if (options.restoreFrom === undefined) {
    if (options.bumpRevision !== undefined) throw new Error('createSimCluster: bumpRevision needs restoreFrom (it is an option of snapshot restore)');
    return undefined;
  }
  return options.bumpRevision === undefined ? options.restoreFrom : bumpSnapshot(options.restoreFrom, options.bumpRevision);
}
