// A Raft group of simulated members, wired for tests and scenarios: one SimProcess, Disk and RaftNode
// per member, one Network for raft messages, and the safety checks a run can ask for. A full etcd
// member (later) wires RaftNode the same way, with its own multiplexed transport and state machines.
//
// Checks recorded as the run goes (`violations`):
// - election safety: at most one member becomes leader in a term;
// - state machine safety: every apply of index i, on any member and in any incarnation, is the same
//   entry (term and data).
// Each member's state machine is modelled as its applied sequence; it is rebuilt from scratch at a
// restart (appliedIndexAtStart 0), so a restarted member applies its whole committed log again.
import type { DistributionSpec } from '../kernel/distribution.js';
import type { Kernel } from '../kernel/kernel.js';
import { Disk } from '../disk/disk.js';
import type { LinkSpec } from '../net/link-spec.js';
import { Network } from '../net/network.js';
import type { PartitionId } from '../net/partition.js';
import type { ClockSpec } from '../process/local-clock.js';
import { SimProcess } from '../process/process.js';
import { raftConfig, type RaftConfig } from './config.js';
import type { RaftMessage } from './message.js';
import { RaftNode } from './node.js';
import type { LogEntry, MemberId, ReadState, SoftState } from './types.js';
import type { WalRecord } from './wal.js';

export interface RaftGroupOptions<D> {
  readonly kernel: Kernel;
  /** Member names (unique SimProcess names). */
  readonly members: readonly MemberId[];
  readonly config?: Partial<RaftConfig>;
  /** Default link between members. Default: lognormal 0.5 ms median, 3 ms p99, ordered (rafthttp streams). */
  readonly link?: LinkSpec;
  /** WAL fsync latency. Default: lognormal 2 ms median, 10 ms p99. */
  readonly fsyncLatency?: DistributionSpec;
  readonly clock?: (member: MemberId) => ClockSpec;
  readonly onApply?: (member: MemberId, entry: LogEntry<D>) => void;
  readonly onSoftState?: (member: MemberId, soft: SoftState) => void;
  readonly onReadState?: (member: MemberId, state: ReadState) => void;
  /**
   * Members start their raft nodes at times drawn uniformly from [0, startSpreadMs) (stream
   * 'raft-group/start'), as real members never start in the same instant; this also spreads their
   * ticker phases. Default one tick (100 ms); 0 starts all at once.
   */
  readonly startSpreadMs?: number;
  /** Identity of an entry's data for the state-machine check. Default JSON.stringify. */
  readonly dataKey?: (data: D) => string;
}

export const DEFAULT_RAFT_LINK: LinkSpec = Object.freeze({ latency: { kind: 'lognormal' as const, medianMs: 0.5, p99Ms: 3 }, ordered: true });
export const DEFAULT_WAL_FSYNC: DistributionSpec = Object.freeze({ kind: 'lognormal' as const, medianMs: 2, p99Ms: 10 });

interface Member<D> {
  readonly process: SimProcess;
  readonly disk: Disk<WalRecord<D>>;
  node: RaftNode<D> | undefined;
  applied: LogEntry<D>[];
}

export class RaftGroup<D> {
  readonly kernel: Kernel;
  readonly network: Network<RaftMessage<D>>;
  readonly members: readonly MemberId[];
  readonly config: RaftConfig;
  /** Safety violations seen so far; empty in a correct run. */
  readonly violations: string[] = [];
  /** term -> the member elected in it. */
  readonly leaderOfTerm = new Map<number, MemberId>();
  private readonly byName = new Map<MemberId, Member<D>>();
  private readonly appliedAt = new Map<number, { readonly term: number; readonly key: string; readonly member: MemberId }>();
  private readonly dataKey: (data: D) => string;

  constructor(options: RaftGroupOptions<D>) {
    this.kernel = options.kernel;
    this.members = [...options.members];
    this.config = raftConfig(options.config);
    this.dataKey = options.dataKey ?? ((data) => JSON.stringify(data));
    this.network = new Network<RaftMessage<D>>(this.kernel, { name: 'raft-net', defaults: options.link ?? DEFAULT_RAFT_LINK });
    this.kernel.trace.subscribe((record) => this.noteElection(Number(record.fields['term']), record.process), { kinds: ['raft.elect'] });
    const spreadMs = options.startSpreadMs ?? this.config.tickMs;
    const starts = this.kernel.rng.stream('raft-group/start');
    for (const name of this.members) {
      const member = this.addMember(name, options);
      const delayMs = spreadMs > 0 ? starts.next() * spreadMs : 0;
      if (delayMs === 0) this.startNode(name, member, options);
      else this.kernel.scheduleAfter(delayMs, () => this.startNode(name, member, options));
    }
  }

  process(member: MemberId): SimProcess {
    return this.member(member).process;
  }

  node(member: MemberId): RaftNode<D> {
    const node = this.member(member).node;
    if (node === undefined) throw new Error(`RaftGroup: member ${member} is still being made`);
    return node;
  }

  disk(member: MemberId): Disk<WalRecord<D>> {
    return this.member(member).disk;
  }

  /** What the member's current incarnation has applied, in order. */
  applied(member: MemberId): readonly LogEntry<D>[] {
    return this.member(member).applied;
  }

  /** Members started and not crashed. */
  running(): MemberId[] {
    return this.members.filter((name) => this.byName.get(name)?.node !== undefined && this.process(name).state !== 'crashed');
  }

  /** Members whose raft is leader now (raft's own view). */
  leaders(): MemberId[] {
    return this.running().filter((name) => this.node(name).status().role === 'leader');
  }

  /** The running leader of the highest term, if any. */
  leader(): MemberId | undefined {
    let best: MemberId | undefined;
    for (const name of this.leaders()) if (best === undefined || this.node(name).term > this.node(best).term) best = name;
    return best;
  }

  /** Cuts `member` off from every other member, both ways. */
  isolate(member: MemberId): PartitionId {
    return this.network.partition({ from: [member], to: this.members.filter((name) => name !== member) });
  }

  /** Runs until some member leads (raft's view) or `withinMs` passes; the leader or undefined. */
  async runUntilLeader(withinMs: number): Promise<MemberId | undefined> {
    await this.kernel.runUntilCondition(() => this.leader() !== undefined, { untilMs: this.kernel.now() + withinMs });
    return this.leader();
  }

  private addMember(name: MemberId, options: RaftGroupOptions<D>): Member<D> {
    const clock = options.clock?.(name);
    const process = new SimProcess(this.kernel, clock === undefined ? { name } : { name, clock });
    const disk = new Disk<WalRecord<D>>(process, { fsyncLatency: options.fsyncLatency ?? DEFAULT_WAL_FSYNC, name: 'wal' });
    const member: Member<D> = { process, disk, node: undefined, applied: [] };
    this.byName.set(name, member);
    return member;
  }

  private startNode(name: MemberId, member: Member<D>, options: RaftGroupOptions<D>): void {
    const { process, disk } = member;
    const listen = (): void => this.network.listen(process, ({ payload }) => this.node(name).receive(payload));
    // Registered before the node's own hook: the state machine is rebuilt before raft re-applies.
    process.onRestart(() => {
      member.applied = [];
      listen();
    });
    if (process.state !== 'crashed') listen();
    member.node = new RaftNode<D>({
      process,
      voters: this.members,
      config: this.config,
      disk,
      send: (message) => this.network.send(process, this.process(message.to), message),
      onApply: (entry) => this.noteApply(name, entry, options),
      onSoftState: (soft) => options.onSoftState?.(name, soft),
      onReadState: (state) => options.onReadState?.(name, state),
      activePeerCount: () => this.activePeers(name),
    });
  }

  /** Peers this member has a working connection to (started, running, not cut either way). */
  private activePeers(name: MemberId): number {
    return this.running().filter((peer) => peer !== name && !this.network.isCut(name, peer) && !this.network.isCut(peer, name)).length;
  }

  private noteApply(name: MemberId, entry: LogEntry<D>, options: RaftGroupOptions<D>): void {
    const member = this.member(name);
    const expectedIndex = member.applied.length + 1;
    if (entry.index !== expectedIndex) this.violations.push(`${name} applied index ${entry.index} where ${expectedIndex} was next`);
    member.applied.push(entry);
    const key = entryKey(entry, this.dataKey);
    const seen = this.appliedAt.get(entry.index);
    if (seen === undefined) this.appliedAt.set(entry.index, { term: entry.term, key, member: name });
    else if (seen.term !== entry.term || seen.key !== key) {
      this.violations.push(`index ${entry.index}: ${name} applied (term ${entry.term}, ${key}) but ${seen.member} applied (term ${seen.term}, ${seen.key})`);
    }
    options.onApply?.(name, entry);
  }

  private noteElection(term: number, member: MemberId): void {
    const earlier = this.leaderOfTerm.get(term);
    if (earlier !== undefined && earlier !== member) this.violations.push(`term ${term} has two leaders: ${earlier} and ${member}`);
    if (earlier === undefined) this.leaderOfTerm.set(term, member);
  }

  private member(name: MemberId): Member<D> {
    const member = this.byName.get(name);
    if (member === undefined) throw new Error(`RaftGroup: no member named ${JSON.stringify(name)}; members are ${this.members.join(', ')}`);
    return member;
  }
}

function entryKey<D>(entry: LogEntry<D>, dataKey: (data: D) => string): string {
  if (entry.type === 'conf-change') return `<add ${entry.addMember}>`;
  return entry.data === null ? '<empty>' : dataKey(entry.data);
}
