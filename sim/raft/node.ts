// A simulated member's Raft node: etcd's raft goroutine (node.go) and the server's Ready loop
// (etcdserver/raft.go raftNode.start, 3.4.23) on a SimProcess and its Disk.
//
// Timing, as etcd does it (design/etcd-behaviour.md 3.1, 3.2):
// - Messages and proposals are stepped into raft the moment they arrive, even while the Ready loop is
//   busy (etcd's node goroutine keeps reading recvc/propc); what they produce waits for the next Ready.
// - The raft ticker is read by the Ready loop itself, so a tick that falls due while the loop waits
//   for an fsync is held, and ticks beyond one are lost (a Go ticker's channel holds one tick).
// - One Ready at a time: soft state and read states first; if committed entries overlap the unstable
//   ones (shouldWaitWALSync) the WAL is saved first; committed entries are applied; a leader sends its
//   messages *before* its own fsync; the WAL record is written and fsynced (only if MustSync); a
//   follower or candidate sends its messages (acks, votes) only *after* that fsync; then Advance.
// - The member's view of leadership (`lead`, `isLeader`) changes only when a Ready carrying the new
//   soft state is processed, as etcd's server learns it; `status()` is raft's own view (etcd
//   raftStatus()). A leader stuck on a slow fsync therefore still believes it leads.
import type { Disk } from '../disk/disk.js';
import type { SimProcess } from '../process/process.js';
import { TICK_ADVANCE_POLL_MS, TICK_ADVANCE_WAIT_MS, type RaftConfig } from './config.js';
import { describeMessage, type RaftMessage } from './message.js';
import { RaftCore, type ProposeOutcome, type TransferOutcome } from './raft.js';
import type { ReadIndexOutcome } from './read-index.js';
import { ReadyProducer, shouldWaitWalSync, type Ready } from './ready.js';
import type { LogEntry, MemberId, RaftRole, ReadState, SoftState } from './types.js';
import type { LogStart } from './raft-log.js';
import { replayWal, walRecordsAfter, type WalRecord } from './wal.js';

export interface RaftNodeOptions<D> {
  /** The member; its name is the member id. */
  readonly process: SimProcess;
  /** Every voting member, this one included. */
  readonly voters: readonly MemberId[];
  readonly config: RaftConfig;
  /** The member's WAL device. */
  readonly disk: Disk<WalRecord<D>>;
  /** Puts a message on the wire to `message.to` (the member's peer transport). */
  readonly send: (message: RaftMessage<D>) => void;
  /** Called for each committed entry, in index order, on every member. */
  readonly onApply?: (entry: LogEntry<D>) => void;
  /** Called when a Ready carries a new soft state (etcd updateLead / updateLeadership). */
  readonly onSoftState?: (soft: SoftState) => void;
  /** Called for each ReadIndex answer (etcd readStateC). */
  readonly onReadState?: (state: ReadState) => void;
  /** Approximate encoded size of an entry, for MaxSizePerMsg. Default 64 bytes. */
  readonly entryBytes?: (entry: LogEntry<D>) => number;
  /** Peers with an active connection now (etcd transport.ActivePeers), for the startup tick advance. Default: none. */
  readonly activePeerCount?: () => number;
  /** At each start, the index the member's state machine has applied (entries after it are applied again). Default 0. */
  readonly appliedIndexAtStart?: () => number;
  /** A member with an empty WAL bootstraps (etcd StartNode): term 1, N committed conf-change entries. Default true. */
  readonly bootstrap?: boolean;
}

/** Raft's own view (etcd raft.Status) plus the Ready loop's state. */
export interface RaftStatus {
  readonly id: MemberId;
  readonly running: boolean;
  readonly role: RaftRole;
  readonly term: number;
  readonly vote: MemberId | null;
  readonly lead: MemberId | null;
  readonly committed: number;
  readonly applied: number;
  readonly lastIndex: number;
  readonly readyLoopBusy: boolean;
}

const DEFAULT_ENTRY_BYTES = 64;

export class RaftNode<D> {
  readonly id: MemberId;
  private readonly process: SimProcess;
  private readonly options: RaftNodeOptions<D>;
  private readonly config: RaftConfig;
  private core: RaftCore<D> | undefined;
  private producer: ReadyProducer<D> | undefined;
  private busy = false;
  private kicking = false;
  private tickHeld = false;
  private nextTickLocalMs = 0;
  private serverSoft: SoftState = { lead: null, role: 'follower' };
  private readyCount = 0;
  private fsyncCount = 0;

  constructor(options: RaftNodeOptions<D>) {
    this.options = options;
    this.process = options.process;
    this.id = options.process.name;
    this.config = options.config;
    this.process.onCrash(() => this.stop());
    this.process.onRestart(() => this.start());
    if (this.process.state !== 'crashed') this.start();
  }

  // ---- the member's view (what etcd's server knows from processed Readies) -------------------

  /** The leader as the member last learned it from a Ready; null if none. */
  get lead(): MemberId | null {
    return this.serverSoft.lead;
  }

  get isLeader(): boolean {
    return this.serverSoft.role === 'leader';
  }

  /** Raft's current term. */
  get term(): number {
    return this.core?.term ?? 0;
  }

  /** True while a Ready is being persisted (waiting for its fsync): the raft loop is stuck. */
  get readyLoopBusy(): boolean {
    return this.busy;
  }

  get readies(): number {
    return this.readyCount;
  }

  get fsyncs(): number {
    return this.fsyncCount;
  }

  status(): RaftStatus {
    const core = this.core;
    if (core === undefined) {
      return { id: this.id, running: false, role: 'follower', term: 0, vote: null, lead: null, committed: 0, applied: 0, lastIndex: 0, readyLoopBusy: false };
    }
    return {
      id: this.id,
      running: true,
      role: core.role,
      term: core.term,
      vote: core.vote,
      lead: core.lead,
      committed: core.log.committed,
      applied: core.log.applied,
      lastIndex: core.log.lastIndex(),
      readyLoopBusy: this.busy,
    };
  }

  /** The first index still in the in-memory log (1 until a snapshot compacted it). */
  firstIndex(): number {
    return this.core?.log.firstIndex() ?? 1;
  }

  /** Log entries in [from, to] (for checkers and the member's catch-up; not a Raft API). */
  entries(from: number, to: number): readonly LogEntry<D>[] {
    return this.core?.log.slice(from, to) ?? [];
  }

  /**
   * After the member saved a snapshot of its state at `snapshot` (etcd snapshot(): SaveSnap, then
   * raftStorage.Compact(appliedi - SnapshotCatchUpEntries), and the WAL purge of files before it): the
   * WAL's durable records become one snapshot record with the entries after it, and the in-memory log
   * keeps the entries from `compactTo` + 1 on for followers that lag (issue 16).
   */
  snapshotAndCompact(snapshot: LogStart, compactTo: number): void {
    const core = this.running('snapshotAndCompact');
    core.log.compact(Math.min(compactTo, snapshot.index));
    const disk = this.options.disk;
    const durable = disk.durableLength;
    if (durable > disk.replacedCount) disk.replacePrefix(durable, walRecordsAfter(disk.durableEntries, snapshot));
    this.process.kernel.trace.record('raft.snapshot', { compactTo: core.log.firstIndex() - 1, index: snapshot.index, term: snapshot.term }, this.id);
  }

  // ---- inputs ---------------------------------------------------------------------------------

  /** A raft message from the member's peer transport. */
  receive(message: RaftMessage<D>): void {
    this.running('receive').step(message);
    this.kick();
  }

  /**
   * The peer transport lost its connection to `peer` (reset by its crash, or a message refused): etcd's
   * rafthttp calls ReportUnreachable when a stream or pipeline send to a dead peer fails (peer.go send,
   * pipeline.go handle, stream.go streamWriter.run) instead of queueing the message.
   */
  reportUnreachable(peer: MemberId): void {
    this.running('reportUnreachable').reportUnreachable(peer);
  }

  /**
   * Proposes `data`. No leader known: returns 'no-leader' at once and the member holds the request
   * (etcd blocks in Propose until a leader appears or the 7 s request timeout; the member re-proposes
   * when onSoftState reports a leader).
   */
  propose(data: D): ProposeOutcome {
    const outcome = this.running('propose').propose(data);
    this.kick();
    return outcome;
  }

  /** Starts a linearizable read; the answer arrives through onReadState with the same request id. */
  readIndex(requestId: string): ReadIndexOutcome {
    const outcome = this.running('readIndex').readIndex(requestId);
    this.kick();
    return outcome;
  }

  /** etcd MoveLeader at the leader: MsgTimeoutNow once `to` has caught up; aborted after an election timeout. */
  transferLeadership(to: MemberId): TransferOutcome {
    const outcome = this.running('transferLeadership').transferLeadership(to);
    this.kick();
    return outcome;
  }

  // ---- lifecycle ------------------------------------------------------------------------------

  private start(): void {
    const recovered = replayWal(this.options.disk.durableEntries);
    const kernel = this.process.kernel;
    const core = new RaftCore<D>({
      id: this.id,
      voters: this.options.voters,
      config: this.config,
      random: kernel.rng.stream(`raft/${this.id}/election`),
      record: (kind, fields) => kernel.trace.record(kind, fields, this.id),
      entryBytes: this.options.entryBytes ?? (() => DEFAULT_ENTRY_BYTES),
      hardState: recovered.hardState,
      entries: recovered.entries,
      ...(recovered.start.index === 0 ? {} : { start: recovered.start }),
      applied: this.options.appliedIndexAtStart?.() ?? 0,
      bootstrap: this.options.bootstrap ?? true,
    });
    this.core = core;
    this.producer = new ReadyProducer(core, recovered.hardState);
    this.busy = false;
    this.tickHeld = false;
    this.serverSoft = { lead: null, role: 'follower' };
    const { hardState } = recovered;
    kernel.trace.record('raft.start', { commit: hardState.commit, lastIndex: recovered.start.index + recovered.entries.length, term: hardState.term, vote: hardState.vote }, this.id);
    this.nextTickLocalMs = this.process.localNow() + this.config.tickMs;
    this.process.setTimerAt(this.nextTickLocalMs, () => this.onTick());
    this.kick();
    this.startTickAdvance(core);
  }

  private stop(): void {
    this.core = undefined;
    this.producer = undefined;
    this.busy = false;
    this.tickHeld = false;
    this.serverSoft = { lead: null, role: 'follower' };
  }

  /** etcd adjustTicks (etcd-behaviour 2.7). */
  private startTickAdvance(core: RaftCore<D>): void {
    if (core.voters.length === 1) return this.advanceTicks(core, this.config.electionTicks - 1);
    if (!this.config.initialElectionTickAdvance) return;
    const activePeerCount = this.options.activePeerCount ?? (() => 0);
    let polls = Math.floor(TICK_ADVANCE_WAIT_MS / TICK_ADVANCE_POLL_MS);
    const poll = (): void => {
      if (this.core !== core) return;
      if (activePeerCount() > 1) return this.advanceTicks(core, this.config.electionTicks - 2);
      if (--polls > 0) this.process.setTimer(TICK_ADVANCE_POLL_MS, poll);
    };
    this.process.setTimer(TICK_ADVANCE_POLL_MS, poll);
  }

  /** Ticks go straight to raft's node goroutine (tickc), not through the busy Ready loop. */
  private advanceTicks(core: RaftCore<D>, ticks: number): void {
    this.process.kernel.trace.record('raft.tick-advance', { ticks }, this.id);
    for (let i = 0; i < ticks; i++) core.tick();
    this.kick();
  }

  // Go's time.Ticker keeps its phase; a reader that is late gets one tick at once and the rest are lost.
  private onTick(): void {
    const core = this.core;
    if (core === undefined) return;
    const nowMs = this.process.localNow();
    const tickMs = this.config.tickMs;
    this.nextTickLocalMs += tickMs * (Math.floor((nowMs - this.nextTickLocalMs) / tickMs) + 1);
    this.process.setTimerAt(this.nextTickLocalMs, () => this.onTick());
    if (this.busy) {
      this.tickHeld = true;
      return;
    }
    core.tick();
    this.kick();
  }

  // ---- the Ready loop -------------------------------------------------------------------------

  private kick(): void {
    if (this.kicking) return;
    this.kicking = true;
    try {
      while (this.core !== undefined && this.producer !== undefined && !this.busy && this.producer.hasReady()) {
        this.processReady(this.core, this.producer.take());
      }
    } finally {
      this.kicking = false;
    }
  }

  private processReady(core: RaftCore<D>, rd: Ready<D>): void {
    this.busy = true;
    this.readyCount++;
    const trace = this.process.kernel.trace;
    if (trace.includes('raft.ready')) {
      trace.record('raft.ready', {
        committed: rd.committedEntries.length,
        entries: rd.entries.length,
        messages: rd.messages.length,
        sync: rd.mustSync,
      }, this.id);
    }
    if (rd.softState !== null) {
      this.serverSoft = rd.softState;
      this.options.onSoftState?.(rd.softState);
    }
    for (const state of rd.readStates) this.options.onReadState?.(state);
    const isLeader = this.serverSoft.role === 'leader';
    if (shouldWaitWalSync(rd)) {
      this.persist(core, rd, () => {
        this.apply(rd);
        if (isLeader) this.sendAll(rd.messages);
        this.finish(core, rd, isLeader);
      });
      return;
    }
    this.apply(rd);
    // etcd: "the leader can write to its disk in parallel with replicating to the followers".
    if (isLeader) this.sendAll(rd.messages);
    // Most Readies need no fsync (a commit index, acks): those finish at once, without a closure (issue 16).
    if (!rd.mustSync) {
      this.save(rd);
      this.finish(core, rd, isLeader);
      return;
    }
    this.persist(core, rd, () => this.finish(core, rd, isLeader));
  }

  /** etcd storage.Save: write entries and hard state; fsync only if MustSync, then `then` once durable. */
  private persist(core: RaftCore<D>, rd: Ready<D>, then: () => void): void {
    this.save(rd);
    if (!rd.mustSync) return then();
    this.fsyncCount++;
    this.options.disk.fsync(() => {
      if (this.core === core) then();
    });
  }

  /** The WAL write of a Ready (nothing when it has neither entries nor a hard state). */
  private save(rd: Ready<D>): void {
    if (rd.entries.length > 0 || rd.hardState !== null) this.options.disk.write({ entries: rd.entries, hardState: rd.hardState });
  }

  private finish(core: RaftCore<D>, rd: Ready<D>, isLeader: boolean): void {
    // Followers and candidates: acks and votes leave only once what they vouch for is durable.
    if (!isLeader) this.sendAll(rd.messages);
    this.producer?.advance(rd);
    this.busy = false;
    if (this.tickHeld) {
      this.tickHeld = false;
      core.tick();
    }
    this.kick();
  }

  private apply(rd: Ready<D>): void {
    const trace = this.process.kernel.trace;
    const traced = trace.includes('raft.apply');
    for (const entry of rd.committedEntries) {
      if (traced) trace.record('raft.apply', { index: entry.index, term: entry.term }, this.id);
      this.options.onApply?.(entry);
    }
  }

  private sendAll(messages: readonly RaftMessage<D>[]): void {
    const trace = this.process.kernel.trace;
    const traced = trace.includes('raft.send');
    for (const message of messages) {
      if (traced) trace.record('raft.send', describeMessage(message), this.id);
      this.options.send(message);
    }
  }

  private running(what: string): RaftCore<D> {
    if (this.core === undefined) throw new Error(`RaftNode ${this.id}: ${what} while the member is crashed; restart it first`);
    return this.core;
  }
}
