// The member's write-ahead log on its simulated Disk: one record per Ready (the entries, then the hard
// state, as etcd's storage.Save writes them), made durable by that Ready's fsync. Replay follows
// etcd's WAL ReadAll: an entry at index i replaces everything from i on; the last hard state wins.
// What survives a crash is the Disk's business: a process crash keeps unsynced records, a power loss
// keeps only what an fsync covered.
import type { HardState, LogEntry } from './types.js';
import { EMPTY_HARD_STATE } from './types.js';
import type { LogStart } from './raft-log.js';

export interface WalRecord<D> {
  readonly entries: readonly LogEntry<D>[];
  readonly hardState: HardState | null;
  /**
   * etcd's walpb.Snapshot record (issue 16): the log starts after this entry; replay keeps only the
   * entries after it. Written when the member snapshots and compacts its log (walRecordsAfter).
   */
  readonly snapshot?: LogStart;
}

export interface RecoveredState<D> {
  readonly hardState: HardState;
  /** The entries after `start`, contiguous. */
  readonly entries: readonly LogEntry<D>[];
  /** The last snapshot's entry (index 0, term 0 without one). */
  readonly start: LogStart;
}

export function replayWal<D>(records: readonly WalRecord<D>[]): RecoveredState<D> {
  let entries: LogEntry<D>[] = [];
  let start: LogStart = { index: 0, term: 0 };
  let hardState = EMPTY_HARD_STATE;
  for (const record of records) {
    if (record.snapshot !== undefined) {
      start = record.snapshot;
      entries = entries.filter((entry) => entry.index > start.index);
    }
    for (const entry of record.entries) {
      const last = start.index + entries.length;
      if (entry.index <= start.index) continue;
      if (entry.index > last + 1) throw new Error(`WAL replay: entry ${entry.index} leaves a gap after entry ${last}; the WAL is corrupt`);
      // A rewritten index drops what followed it; an append (the usual case) leaves the length alone,
      // which spares the slow length store on every entry of a long replay (issue 16: each snapshot replays the WAL).
      const keep = entry.index - 1 - start.index;
      if (keep < entries.length) entries.length = keep;
      entries.push(entry);
    }
    if (record.hardState !== null) hardState = record.hardState;
  }
  const last = start.index + entries.length;
  if (hardState.commit > last) {
    throw new Error(`WAL replay: hard state commit ${hardState.commit} is beyond the last entry ${last}; the WAL is corrupt`);
  }
  return { hardState, entries, start };
}

/**
 * The one record that stands for `records` once the log is compacted to `start` (etcd's snapshot record
 * and the WAL files kept after it): replaying it gives what replaying them gives, minus the entries the
 * snapshot covers.
 */
export function walRecordsAfter<D>(records: readonly WalRecord<D>[], start: LogStart): WalRecord<D> {
  const replayed = replayWal([...records, { entries: [], hardState: null, snapshot: start }]);
  return { entries: replayed.entries, hardState: replayed.hardState === EMPTY_HARD_STATE ? null : replayed.hardState, snapshot: start };
}
