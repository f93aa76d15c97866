// The member's write-ahead log on its simulated Disk: one record per Ready (the entries, then the hard
// state, as etcd's storage.Save writes them), made durable by that Ready's fsync. Replay follows
// etcd's WAL ReadAll: an entry at index i replaces everything from i on; the last hard state wins.
// What survives a crash is the Disk's business: a process crash keeps unsynced records, a power loss
// keeps only what an fsync covered.
import type { HardState, LogEntry } from './types.js';
import { EMPTY_HARD_STATE } from './types.js';

export interface WalRecord<D> {
  readonly entries: readonly LogEntry<D>[];
  readonly hardState: HardState | null;
}

export interface RecoveredState<D> {
  readonly hardState: HardState;
  readonly entries: readonly LogEntry<D>[];
}

export function replayWal<D>(records: readonly WalRecord<D>[]): RecoveredState<D> {
  const entries: LogEntry<D>[] = [];
  let hardState = EMPTY_HARD_STATE;
  for (const record of records) {
    for (const entry of record.entries) {
      if (entry.index < 1 || entry.index > entries.length + 1) {
        throw new Error(`WAL replay: entry ${entry.index} leaves a gap after ${entries.length} entries; the WAL is corrupt`);
      }
      entries.length = entry.index - 1;
      entries.push(entry);
    }
    if (record.hardState !== null) hardState = record.hardState;
  }
  if (hardState.commit > entries.length) {
    throw new Error(`WAL replay: hard state commit ${hardState.commit} is beyond the last entry ${entries.length}; the WAL is corrupt`);
  }
  return { hardState, entries };
}
