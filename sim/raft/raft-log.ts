// The in-memory Raft log (etcd raft/log.go raftLog + log_unstable.go), without snapshots or compaction:
// entry i lives at position i-1. `unstableFrom` is the first index not yet handed to a Ready for the
// WAL; a truncation below it moves it back, so rewritten entries are written again (etcd's
// unstable.truncateAndAppend and stableTo, which ignores a stale stable mark).
import type { LogEntry } from './types.js';

export class RaftLog<D> {
  private readonly log: LogEntry<D>[];
  committed: number;
  applied: number;
  private unstableFromIndex: number;

  constructor(entries: readonly LogEntry<D>[] = [], committed = 0, applied = 0) {
    entries.forEach((entry, i) => {
      if (entry.index !== i + 1) throw new Error(`RaftLog: recovered entry at position ${i} has index ${entry.index}, expected ${i + 1}`);
    });
    this.log = entries.slice();
    this.committed = Math.min(committed, this.log.length);
    this.applied = Math.min(applied, this.committed);
    this.unstableFromIndex = this.log.length + 1;
  }

  lastIndex(): number {
    return this.log.length;
  }

  lastTerm(): number {
    return this.log.length === 0 ? 0 : this.log[this.log.length - 1]!.term;
  }

  /** The term of entry `index`; 0 for index 0; undefined beyond the log. */
  term(index: number): number | undefined {
    if (index === 0) return 0;
    return this.log[index - 1]?.term;
  }

  matchTerm(index: number, term: number): boolean {
    return this.term(index) === term;
  }

  /** Raft §5.4.1: a candidate's log is at least as up to date as ours. */
  isUpToDate(lastIndex: number, lastTerm: number): boolean {
    const ourTerm = this.lastTerm();
    return lastTerm > ourTerm || (lastTerm === ourTerm && lastIndex >= this.lastIndex());
  }

  /** Entries in [lo, hi] (inclusive), clamped to the log. */
  slice(lo: number, hi: number): LogEntry<D>[] {
    return this.log.slice(Math.max(lo, 1) - 1, Math.min(hi, this.log.length));
  }

  /** Entries from `lo` on, at least one if any, at most `maxBytes` in total (etcd limitSize). */
  entriesFrom(lo: number, maxBytes: number, sizeOf: (entry: LogEntry<D>) => number): LogEntry<D>[] {
    const out: LogEntry<D>[] = [];
    let bytes = 0;
    for (let index = lo; index <= this.log.length; index++) {
      const entry = this.log[index - 1]!;
      bytes += sizeOf(entry);
      if (out.length > 0 && bytes > maxBytes) break;
      out.push(entry);
    }
    return out;
  }

  /**
   * Appends `entries` (contiguous, increasing indexes), truncating a conflicting suffix first. Never
   * truncates a committed entry: that would be a Raft bug, so it throws.
   */
  append(entries: readonly LogEntry<D>[]): number {
    const first = entries[0];
    if (first === undefined) return this.lastIndex();
    const after = first.index - 1;
    if (after < this.committed) throw new Error(`RaftLog: append after ${after} would truncate committed entries (committed ${this.committed})`);
    if (after > this.log.length) throw new Error(`RaftLog: append after ${after} leaves a gap (last index ${this.log.length})`);
    if (after < this.log.length) {
      this.log.length = after;
      this.unstableFromIndex = Math.min(this.unstableFromIndex, after + 1);
    }
    for (const entry of entries) this.log.push(entry);
    return this.lastIndex();
  }

  /** etcd findConflict: the first index whose term differs from ours or that we lack; 0 if none. */
  findConflict(entries: readonly LogEntry<D>[]): number {
    for (const entry of entries) if (!this.matchTerm(entry.index, entry.term)) return entry.index;
    return 0;
  }

  /**
   * etcd maybeAppend: the consistency check on (prevIndex, prevTerm), then conflict resolution and
   * commit. Returns the last index the message vouches for, or undefined on a mismatch.
   */
  maybeAppend(prevIndex: number, prevTerm: number, commit: number, entries: readonly LogEntry<D>[]): number | undefined {
    if (!this.matchTerm(prevIndex, prevTerm)) return undefined;
    const lastNew = prevIndex + entries.length;
    const conflict = this.findConflict(entries);
    if (conflict !== 0) {
      if (conflict <= this.committed) throw new Error(`RaftLog: entry ${conflict} conflicts with a committed entry (committed ${this.committed})`);
      this.append(entries.slice(conflict - prevIndex - 1));
    }
    this.commitTo(Math.min(commit, lastNew));
    return lastNew;
  }

  /** Raises the commit index (never lowers it). A commit beyond the log is a Raft bug (etcd panics). */
  commitTo(index: number): boolean {
    if (index <= this.committed) return false;
    if (index > this.lastIndex()) throw new Error(`RaftLog: commit ${index} is beyond the last index ${this.lastIndex()}: the log was lost or corrupted`);
    this.committed = index;
    return true;
  }

  /** etcd maybeCommit: commit `index` only if its entry is of `term` (Raft §5.4.2). */
  maybeCommit(index: number, term: number): boolean {
    return index > this.committed && this.term(index) === term && this.commitTo(index);
  }

  /** Committed entries not yet handed to the application. */
  unappliedCommitted(): LogEntry<D>[] {
    return this.slice(this.applied + 1, this.committed);
  }

  /** Entries not yet handed to a Ready for persistence. */
  unstableEntries(): LogEntry<D>[] {
    return this.slice(this.unstableFromIndex, this.lastIndex());
  }

  get unstableFrom(): number {
    return this.unstableFromIndex;
  }

  /** Marks every entry as handed to a Ready. */
  markAllHandedOut(): void {
    this.unstableFromIndex = this.lastIndex() + 1;
  }
}
