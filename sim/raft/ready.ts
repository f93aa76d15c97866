// etcd's Ready (raft/node.go, rawnode.go 3.4): everything a member's raft accumulated since the last
// one (new entries to persist, hard state, committed entries to apply, messages, read states, soft
// state), handed out as one batch. The next Ready is produced only after the node advances past this
// one, so whatever arrives meanwhile batches into the next Ready: one WAL fsync per Ready.
import type { RaftMessage } from './message.js';
import type { RaftCore } from './raft.js';
import { EMPTY_HARD_STATE, sameHardState, type HardState, type LogEntry, type ReadState, type SoftState } from './types.js';

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

  /** etcd RawNode.HasReady. */
  hasReady(): boolean {
    const core = this.core;
    if (!sameSoftState(core.softState(), this.prevSoft)) return true;
    if (!sameHardState(core.hardState(), this.prevHard) && !sameHardState(core.hardState(), EMPTY_HARD_STATE)) return true;
    if (core.msgs.length > 0 || core.readStates.length > 0) return true;
    return core.log.unstableFrom <= core.log.lastIndex() || core.log.committed > core.log.applied;
  }

  /** Takes the Ready; entries count as handed out at once, applied only at advance(). */
  take(): Ready<D> {
    const core = this.core;
    const soft = core.softState();
    const hard = core.hardState();
    const softChanged = !sameSoftState(soft, this.prevSoft);
    const hardChanged = !sameHardState(hard, this.prevHard) && !sameHardState(hard, EMPTY_HARD_STATE);
    const entries = core.log.unstableEntries();
    const ready: Ready<D> = {
      softState: softChanged ? soft : null,
      hardState: hardChanged ? hard : null,
      entries,
      committedEntries: core.log.unappliedCommitted(),
      messages: core.msgs,
      readStates: core.readStates,
      mustSync: entries.length > 0 || hard.term !== this.prevHard.term || hard.vote !== this.prevHard.vote,
    };
    this.prevSoft = soft;
    if (hardChanged) this.prevHard = hard;
    core.msgs = [];
    core.readStates = [];
    core.log.markAllHandedOut();
    return ready;
  }

  /** etcd Advance: the Ready's committed entries are applied. */
  advance(ready: Ready<D>): void {
    const last = ready.committedEntries[ready.committedEntries.length - 1];
    if (last !== undefined) this.core.log.applied = Math.max(this.core.log.applied, last.index);
  }
}

function sameSoftState(a: SoftState, b: SoftState): boolean {
  return a.lead === b.lead && a.role === b.role;
}

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
