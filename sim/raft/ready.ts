// etcd's Ready (raft/node.go, rawnode.go 3.4): everything a member's raft accumulated since the last
// one (new entries to persist, hard state, committed entries to apply, messages, read states, soft
// state), handed out as one batch. The next Ready is produced only after the node advances past this
// one, so whatever arrives meanwhile batches into the next Ready: one WAL fsync per Ready.
import type { RaftMessage } from './message.js';
import type { RaftCore } from './raft.js';
import { EMPTY_HARD_STATE, type HardState, type LogEntry, type ReadState, type SoftState } from './types.js';

export interface Ready<D> {
  /** Set when it changed since the last Ready. */
  readonly softState: SoftState | null;
  /** Set when it changed since the last Ready. */
  readonly hardState: HardState | null;
  /** Entries to write to the WAL. */
  readonly entries: readonly LogEntry<D>[];
  /** Entries to apply, in order. */
  readonly committedEntries: readonly LogEntry<D>[];
  readonly messages: readonly RaftMessage<D>[];
  readonly readStates: readonly ReadState[];
  /** etcd raft.MustSync: new entries, or a term or vote change, need an fsync before acks or votes leave. */
  readonly mustSync: boolean;
}

export class ReadyProducer<D> {
  private prevSoft: SoftState;
  private prevHard: HardState;

  /** `persisted`: the hard state on disk (etcd: the loaded one at a restart, empty at a bootstrap). */
  constructor(private readonly core: RaftCore<D>, persisted: HardState) {
    this.prevSoft = core.softState();
    this.prevHard = persisted;
  }

  /**
   * etcd RawNode.HasReady. Asked after every message, proposal and tick (RaftNode.kick), so it compares
   * the core's fields in place rather than building its soft and hard states (issue 16).
   */
  hasReady(): boolean {
    const core = this.core;
    if (this.softStateChanged() || this.hardStateChanged()) return true;
    if (core.msgs.length > 0 || core.readStates.length > 0) return true;
    return core.log.unstableFrom <= core.log.lastIndex() || core.log.committed > core.log.applied;
  }

  /** Takes the Ready; entries count as handed out at once, applied only at advance(). */
  take(): Ready<D> {
    const core = this.core;
    // Soft and hard state objects are made only when they changed, and an empty list is handed out as
    // the one frozen empty array instead of a fresh one: most Readies carry one or two of the six (issue 16).
    const { log } = core;
    const entries = log.unstableFrom <= log.lastIndex() ? log.unstableEntries() : NONE;
    const messages = core.msgs.length === 0 ? NONE : core.msgs;
    const readStates = core.readStates.length === 0 ? NONE : core.readStates;
    const ready: Ready<D> = {
      softState: this.softStateChanged() ? core.softState() : null,
      hardState: this.hardStateChanged() ? core.hardState() : null,
      entries,
      committedEntries: log.committed > log.applied ? log.unappliedCommitted() : NONE,
      messages,
      readStates,
      mustSync: entries.length > 0 || core.term !== this.prevHard.term || core.vote !== this.prevHard.vote,
    };
    if (ready.softState !== null) this.prevSoft = ready.softState;
    if (ready.hardState !== null) this.prevHard = ready.hardState;
    if (messages !== NONE) core.msgs = [];
    if (readStates !== NONE) core.readStates = [];
    log.markAllHandedOut();
    return ready;
  }

  private softStateChanged(): boolean {
    return this.core.lead !== this.prevSoft.lead || this.core.role !== this.prevSoft.role;
  }

  /** The core's hard state differs from the last one handed out, and is not the empty one (etcd IsEmptyHardState). */
  private hardStateChanged(): boolean {
    const core = this.core;
    const prev = this.prevHard;
    const commit = core.log.committed;
    if (core.term === prev.term && core.vote === prev.vote && commit === prev.commit) return false;
    return !(core.term === EMPTY_HARD_STATE.term && core.vote === EMPTY_HARD_STATE.vote && commit === EMPTY_HARD_STATE.commit);
  }

  /** etcd Advance: the Ready's committed entries are applied. */
  advance(ready: Ready<D>): void {
    const last = ready.committedEntries[ready.committedEntries.length - 1];
    if (last !== undefined) this.core.log.applied = Math.max(this.core.log.applied, last.index);
  }
}

/** The empty list a Ready hands out for no messages, read states or entries; frozen, so never filled by mistake. */
const NONE: readonly never[] = Object.freeze([]);

/**
 * etcd shouldWaitWALSync (etcdserver/raft.go, 3.4.23): the committed entries overlap the unstable ones
 * (a single voter commits what it has not written yet), so the WAL must be saved before applying.
 */
export function shouldWaitWalSync<D>(ready: Ready<D>): boolean {
  const lastCommitted = ready.committedEntries[ready.committedEntries.length - 1];
  const firstUnstable = ready.entries[0];
  if (lastCommitted === undefined || firstUnstable === undefined) return false;
  return lastCommitted.term > firstUnstable.term || (lastCommitted.term === firstUnstable.term && lastCommitted.index >= firstUnstable.index);
}
