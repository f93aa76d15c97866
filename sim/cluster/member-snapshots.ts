// A member's snapshots (etcdserver/server.go triggerSnapshot and snapshot(), 3.4.23), with the settings
// as data (EtcdTiming.snapshotCount, snapshotCatchUpEntries; off unless snapshotCount is set). Issue 16:
// without them the Raft log and the WAL grow without bound.
//
// Once the member has applied more than snapshotCount entries since its last snapshot, it saves its
// applied state (etcd: the snap file, and the backend that is durable on its own) and hands raft the
// snapshot's index: the WAL keeps only a snapshot record and what follows it, and the in-memory log keeps
// snapshotCatchUpEntries entries before it for followers that lag. A restart starts from the saved state
// and replays only the WAL's entries after it, as etcd opens its backend and replays the WAL from the
// snapshot. What the simulator does not do: send a snapshot to a follower further behind than the
// in-memory log reaches (MsgSnap); that follower's leader fails loudly (raft/replication.ts sendAppend).
import { copyEtcdState, type EtcdState } from '../etcd/apply.js';
import type { LogStart } from '../raft/raft-log.js';
import type { LogEntry } from '../raft/types.js';
import type { EtcdEntry } from './protocol.js';
import type { EtcdTiming } from './timing.js';

/** etcd's DefaultSnapshotCatchUpEntries (etcdserver/server.go l.69-71). */
export const DEFAULT_SNAPSHOT_CATCH_UP_ENTRIES = 5_000;

export interface SavedSnapshot {
  /** The last entry the state has applied. */
  readonly start: LogStart;
  /** Never handed out: a restart copies it again. */
  readonly state: EtcdState;
}

export class MemberSnapshots {
  private saved: SavedSnapshot | undefined;

  constructor(private readonly timing: EtcdTiming) {}

  /** The last saved snapshot, which survives crashes (it is on disk). */
  get latest(): SavedSnapshot | undefined {
    return this.saved;
  }

  /** A fresh copy of the saved state for a new incarnation, or undefined without a snapshot. */
  restoredState(): EtcdState | undefined {
    return this.saved === undefined ? undefined : copyEtcdState(this.saved.state);
  }

  /**
   * After `entry` was applied to `state`: saves a snapshot when more than snapshotCount entries were
   * applied since the last one (etcd: appliedi - snapi > SnapshotCount), and returns it with the index
   * raft may compact its in-memory log to; undefined when it is not time.
   */
  afterApply(entry: LogEntry<EtcdEntry>, state: EtcdState): { readonly snapshot: LogStart; readonly compactTo: number } | undefined {
    const count = this.timing.snapshotCount;
    if (count === undefined || entry.index - (this.saved?.start.index ?? 0) <= count) return undefined;
    const snapshot: LogStart = { index: entry.index, term: entry.term };
    this.saved = { start: snapshot, state: copyEtcdState(state) };
    return { snapshot, compactTo: entry.index - (this.timing.snapshotCatchUpEntries ?? DEFAULT_SNAPSHOT_CATCH_UP_ENTRIES) };
  }
}
