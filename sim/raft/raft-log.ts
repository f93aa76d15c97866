// The in-memory Raft log (etcd raft/log.go raftLog + log_unstable.go). Entry i lives at position
// i - 1 - offset: `offset` is the index of the last entry compacted away (etcd MemoryStorage.Compact after
// a snapshot, issue 16), whose term is still known, as etcd keeps the snapshot's index and term; 0 until a
// compaction. `unstableFrom` is the first index not yet handed to a Ready for the
// WAL; a truncation below it moves it back, so rewritten entries are written again (etcd's
// unstable.truncateAndAppend and stableTo, which ignores a stale stable mark).
import { assert } from '../../core/assert.js';
import type { LogEntry } from './types.js';

/** The last entry a snapshot covers: the log starts after it (etcd's snapshot metadata index and term). */
export interface LogStart {
  readonly index: number;
  readonly term: number;
}

const EMPTY_START: LogStart = { index: 0, term: 0 };
const NO_ENTRIES: readonly never[] = Object.freeze([]);

export class RaftLog<D> {
  private log: LogEntry<D>[];
  private offset: number;
  private offsetTerm: number;
  committed: number;
  applied: number;
  private unstableFromIndex: number;

  constructor(entries: readonly LogEntry<D>[] = [], committed = 0, applied = 0, start: LogStart = EMPTY_START) {
    entries.forEach((entry, i) => {
      assert(entry.index === start.index + i + 1, () => `RaftLog: recovered entry at position ${i} has index ${entry.index}, expected ${start.index + i + 1}`);
    });
    this.log = entries.slice();
    this.offset = start.index;
    this.offsetTerm = start.term;
    this.committed = Math.max(start.index, Math.min(committed, this.lastIndex()));
    this.applied = Math.max(start.index, Math.min(applied, this.committed));
    this.unstableFromIndex = this.lastIndex() + 1;
  }

  lastIndex(): number {
    return this.offset + this.log.length;
  }

  lastTerm(): number {
    return this.log.length === 0 ? this.offsetTerm : this.log[this.log.length - 1]!.term;
  }

  /** The first index still in memory (etcd firstIndex): entries below it were compacted. */
  firstIndex(): number {
    return this.offset + 1;
  }

  /** The term of entry `index`; 0 for index 0; undefined beyond the log or compacted away. */
  term(index: number): number | undefined {
    if (index === this.offset) return this.offsetTerm;
    if (index < this.offset) return undefined;
    return this.log[index - this.offset - 1]?.term;
  }

  /**
   * etcd MemoryStorage.Compact: drops the entries up to `index`, keeping its term. Only applied entries
   * may go (etcd compacts at appliedi - SnapshotCatchUpEntries); asking for more is a programmer error.
   */
  compact(index: number): void {
    if (index <= this.offset) return;
    assert(index <= this.applied, () => `RaftLog: compact to ${index} is beyond the applied index ${this.applied}`);
    this.offsetTerm = this.term(index)!;
    this.log = this.log.slice(index - this.offset);
    this.offset = index;
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
    assert(!(lo <= this.offset && hi > this.offset), () => `RaftLog: entries from ${lo} were compacted (the log starts at ${this.offset + 1})`);
    return this.log.slice(Math.max(lo - this.offset, 1) - 1, Math.max(0, Math.min(hi, this.lastIndex()) - this.offset));
  }

  /**
   * Entries from `lo` on, at least one if any, at most `maxBytes` in total (etcd limitSize). None: the
   * one frozen empty list (a leader sends as many empty appends, carrying its commit index, as full ones).
   */
  entriesFrom(lo: number, maxBytes: number, sizeOf: (entry: LogEntry<D>) => number): readonly LogEntry<D>[] {
    assert(lo > this.offset, () => `RaftLog: entries from ${lo} were compacted (the log starts at ${this.offset + 1})`);
    if (lo > this.lastIndex()) return NO_ENTRIES;
    const out: LogEntry<D>[] = [];
    let bytes = 0;
    for (let index = lo; index <= this.lastIndex(); index++) {
      const entry = this.log[index - this.offset - 1]!;
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
    assert(after >= this.committed, () => `RaftLog: append after ${after} would truncate committed entries (committed ${this.committed})`);
    assert(after <= this.lastIndex(), () => `RaftLog: append after ${after} leaves a gap (last index ${this.lastIndex()})`);
    if (after < this.lastIndex()) {
      this.log.length = after - this.offset;
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
      assert(conflict > this.committed, () => `RaftLog: entry ${conflict} conflicts with a committed entry (committed ${this.committed})`);
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
