// A simulated etcd member (design/etcd-behaviour.md sections 1-5): one SimProcess with its WAL Disk, a
// RaftNode (sim/raft) and, per incarnation, a MemberRuntime holding the state machines (sim/etcd) and the
// request paths. What survives a crash is the WAL, the snapshot the member was restored from and its own
// last snapshot (member-snapshots.ts, with EtcdTiming.snapshotCount set); a restart rebuilds the state
// machines from the latest of those and re-applies the committed log after it from the WAL, so leases
// come back with expiry "forever" until a leader promotes.
//
// A process crash (not a power loss) makes the machine's TCP stack reset every connection the member had
// open (clients' calls, watches and keepalives, peers' raft streams and leasehttp POSTs), and refuse new
// ones until it restarts: callers learn at once that their requests are gone, as they do with etcd
// (ports.ts, sim/net/kernel-answers.ts).
import type { ClusterId, MemberId } from '../../core/units.js';
import { memberId as toMemberId } from '../../core/units.js';
import { Disk } from '../disk/disk.js';
import type { EtcdState } from '../etcd/apply.js';
import type { LessorConfig } from '../etcd/lessor.js';
import type { SimProcess } from '../process/process.js';
import { RaftNode, type RaftStatus } from '../raft/node.js';
import type { LogEntry, SoftState } from '../raft/types.js';
import type { WalRecord } from '../raft/wal.js';
import { MemberRuntime } from './member-runtime.js';
import { MemberSnapshots } from './member-snapshots.js';
import { portsOf, type ClusterNetwork, type PortMux } from './ports.js';
import { MEMBER_PORT, type ClusterMessage, type EtcdEntry } from './protocol.js';
import { snapshotOf, type EtcdSnapshot, type SnapshotOp } from './snapshot.js';
import type { EtcdTiming } from './timing.js';

/** Hooks for the cluster's safety checks; called synchronously. */
export interface MemberObserver {
  onApplied?(member: EtcdMember, entry: LogEntry<EtcdEntry>): void;
  onSoftState?(member: EtcdMember, soft: SoftState, term: number): void;
}

export interface EtcdMemberOptions {
  readonly network: ClusterNetwork;
  /** The member's process; its name is the member's raft id and network name. */
  readonly process: SimProcess;
  /** Every voting member's name, this one included. */
  readonly voters: readonly string[];
  /** Member name -> etcd member id (ids.ts). */
  readonly memberIds: ReadonlyMap<string, MemberId>;
  readonly clusterId: ClusterId;
  readonly peerUrl: string;
  readonly timing: EtcdTiming;
  /** etcd 3.5.13's ensureLeadership before a leader renews a lease (etcd#15247). Default false (3.4.23). */
  readonly confirmLeadershipOnRenew?: boolean;
  /** etcd 3.5.13's ensureLeadership before revoking expired leases. Default false (3.4.23). */
  readonly confirmLeadershipOnRevoke?: boolean;
  /** `--experimental-enable-lease-checkpoint`. Default false. */
  readonly leaseCheckpointing?: boolean;
  /** The snapshot this member was restored from (its backend's starting content). */
  readonly restoredFrom?: EtcdSnapshot;
  /** Peers with a working connection now, for raft's startup tick advance. */
  readonly activePeerCount?: () => number;
  readonly observer?: MemberObserver;
}

export class EtcdMember {
  readonly name: string;
  readonly process: SimProcess;
  readonly disk: Disk<WalRecord<EtcdEntry>>;
  readonly memberId: MemberId;
  readonly clusterId: ClusterId;
  readonly peerUrl: string;
  readonly timing: EtcdTiming;
  readonly mux: PortMux;
  readonly confirmLeadershipOnRenew: boolean;
  readonly confirmLeadershipOnRevoke: boolean;
  readonly lessorConfig: LessorConfig;
  readonly baseOps: readonly SnapshotOp[];
  /** Snapshots of the applied state, kept on the member's disk across crashes (issue 16). */
  readonly snapshots: MemberSnapshots;
  readonly noMember: MemberId = toMemberId(0n);
  private readonly options: EtcdMemberOptions;
  private node: RaftNode<EtcdEntry> | undefined;
  private runtime: MemberRuntime | undefined;

  constructor(options: EtcdMemberOptions) {
    this.options = options;
    this.process = options.process;
    this.name = options.process.name;
    const id = options.memberIds.get(this.name);
    if (id === undefined) throw new Error(`EtcdMember ${this.name}: no member id given for it`);
    this.memberId = id;
    this.clusterId = options.clusterId;
    this.peerUrl = options.peerUrl;
    this.timing = options.timing;
    this.confirmLeadershipOnRenew = options.confirmLeadershipOnRenew ?? false;
    this.confirmLeadershipOnRevoke = options.confirmLeadershipOnRevoke ?? false;
    this.lessorConfig = {
      minTtlSeconds: options.timing.minLeaseTtlSeconds,
      expiredLeaseRetryIntervalMs: options.timing.requestTimeoutMs,
      checkpointing: options.leaseCheckpointing ?? false,
    };
    this.baseOps = options.restoredFrom?.ops ?? [];
    this.snapshots = new MemberSnapshots(options.timing);
    this.disk = new Disk<WalRecord<EtcdEntry>>(this.process, { fsyncLatency: options.timing.walFsync, name: 'wal' });
    this.mux = portsOf(options.network, this.process);
    // Registered before the RaftNode's own hooks: the state machines exist before raft re-applies.
    this.process.onCrash(() => {
      this.runtime = undefined; // memory is gone; the machine's kernel answers the peers (ports.ts)
    });
    this.process.onRestart(() => this.onRestart());
  }

  /** Starts etcd on the member's process (the cluster staggers starts, as real members never start together). */
  start(): void {
    if (this.node !== undefined) throw new Error(`EtcdMember ${this.name}: already started`);
    if (this.process.state === 'crashed') throw new Error(`EtcdMember ${this.name}: cannot start on a crashed process`);
    this.beginIncarnation();
    this.node = new RaftNode<EtcdEntry>({
      process: this.process,
      voters: this.options.voters,
      config: this.timing.raft,
      disk: this.disk,
      send: (message) => this.mux.send(message.to, message),
      onApply: (entry) => this.runtime?.onCommitted(entry),
      onSoftState: (soft) => {
        this.runtime?.onSoftState(soft);
        this.options.observer?.onSoftState?.(this, soft, this.node?.term ?? 0);
      },
      onReadState: (state) => this.runtime?.reads.onReadState(state.requestId, state.index),
      ...(this.options.activePeerCount === undefined ? {} : { activePeerCount: this.options.activePeerCount }),
      appliedIndexAtStart: () => this.snapshots.latest?.start.index ?? 0,
    });
  }

  get started(): boolean {
    return this.node !== undefined;
  }

  /** Started and not crashed. */
  get running(): boolean {
    return this.node !== undefined && this.process.state !== 'crashed';
  }

  /** The member's raft node (undefined before start). */
  raft(): RaftNode<EtcdEntry> | undefined {
    return this.node;
  }

  /** Raft's own view (etcd raftStatus()). */
  raftStatus(): RaftStatus | undefined {
    return this.node?.status();
  }

  /** The applied state machines of the current incarnation (undefined while crashed or before start). */
  get state(): EtcdState | undefined {
    return this.runtime?.state;
  }

  /** The current incarnation's internals, for tests and checkers. */
  get current(): MemberRuntime | undefined {
    return this.runtime;
  }

  get appliedIndex(): number {
    return this.runtime?.appliedIndex ?? 0;
  }

  /** The member believes it leads (its Ready loop's view, etcd s.isLeader()). */
  isLeader(): boolean {
    return this.runtime?.isLeader() ?? false;
  }

  memberIdOf(name: string): MemberId {
    return this.options.memberIds.get(name) ?? this.noMember;
  }

  /** The member's applied state as a snapshot file would hold it (etcdctl snapshot save). */
  snapshot(): EtcdSnapshot {
    const runtime = this.runtime;
    const node = this.node;
    if (runtime === undefined || node === undefined) throw new Error(`EtcdMember ${this.name}: no snapshot while it is crashed or not started`);
    // A snapshot file here is the operations that built the state, and a compacted log no longer has them.
    if (this.snapshots.latest !== undefined) throw new Error(`EtcdMember ${this.name}: etcdctl snapshot save is not simulated once the member compacted its log; leave EtcdTiming.snapshotCount unset in a run that saves snapshots`);
    const ops: SnapshotOp[] = [...this.baseOps];
    for (const entry of node.entries(1, runtime.appliedIndex)) {
      if (entry.type === 'normal' && entry.data !== null) ops.push({ kind: 'apply', request: entry.data.request });
    }
    return snapshotOf(ops, runtime.state, this.name);
  }

  /** Called by the runtime after each applied entry. */
  noteApplied(entry: LogEntry<EtcdEntry>): void {
    this.options.observer?.onApplied?.(this, entry);
    const state = this.runtime?.state;
    const taken = state === undefined ? undefined : this.snapshots.afterApply(entry, state);
    if (taken !== undefined) this.node?.snapshotAndCompact(taken.snapshot, taken.compactTo);
  }

  private beginIncarnation(): void {
    this.runtime = new MemberRuntime(this);
    this.mux.bind(MEMBER_PORT, (payload, from) => this.onMessage(payload, from));
    this.process.kernel.trace.record('etcd.start', { incarnation: this.process.incarnation, restored: this.options.restoredFrom !== undefined }, this.name);
  }

  private onRestart(): void {
    if (this.node !== undefined) this.beginIncarnation();
  }

  private onMessage(payload: ClusterMessage, from: string): void {
    const runtime = this.runtime;
    if (runtime === undefined) return;
    switch (payload.type) {
      case 'etcd.request':
        return runtime.onRequest(from, payload);
      case 'etcd.watch-cancel':
        // Behind the requests already queued on the CPU, so a cancel never overtakes its own create.
        return runtime.cpu.run(0, () => runtime.watches.cancel(from, payload.replyPort, payload.streamId));
      case 'transport.ping':
        return this.mux.send(from, { type: 'transport.pong', port: payload.replyPort, pingId: payload.pingId });
      case 'leasehttp.request':
        return runtime.leases.onHttpRequest(from, payload);
      case 'leasehttp.response':
        return runtime.leases.onHttpResponse(payload);
      case 'transport.reset':
        // A peer died with our leasehttp POSTs or raft messages on its connection, or a client died with
        // streams open here.
        this.node?.reportUnreachable(payload.peer);
        runtime.leases.onPeerReset(payload.peer);
        return runtime.watches.dropClient(payload.peer);
      case 'etcd.response':
      case 'etcd.watch':
      case 'transport.pong':
        return; // client-bound messages never carry the member port
      default:
        this.node?.receive(payload);
    }
  }
}
