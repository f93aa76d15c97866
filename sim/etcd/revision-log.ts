// The store's history by revision, which watchers catch up from. etcd reads it from the backend's key
// bucket, whose keys are revisions (mvcc/watchable_store.go syncWatchers, UnsafeRange over
// [minRev, curRev+1)); here it is an array indexed by revision, because every revision has at least one
// change (kvstore_txn.go End l.102-115 bumps only when something changed), so revisions are dense.
import type { KeyValue } from '../../core/ports/lock-log.js';

/** One change of a write txn, in sub-revision order. A delete's kv carries only the key and modRevision. */
export interface StoredEvent {
  readonly type: 'put' | 'delete';
  readonly kv: KeyValue;
}

/** All changes of one write txn: one revision. */
export interface CommittedWrite {
  readonly revision: number;
  readonly events: readonly StoredEvent[];
}

/** The log compacts its array only when this many dead slots have piled up, so trimming stays amortised O(1). */
const TRIM_THRESHOLD = 1024;

export class RevisionLog {
  private writes: (CommittedWrite | undefined)[] = [];
  /** Index in `writes` of the first retained revision. */
  private head = 0;
  /** Revision stored at `writes[head]`. */
  private firstRevision: number;

  constructor(firstRevision: number) {
    this.firstRevision = firstRevision;
  }

  /** An independent copy of what is retained; the writes are immutable and shared. */
  copy(): RevisionLog {
    const copy = new RevisionLog(this.firstRevision);
    copy.writes = this.writes.slice(this.head);
    return copy;
  }

  get retainedRevisions(): number {
    return this.writes.length - this.head;
  }

  append(write: CommittedWrite): void {
    const expected = this.firstRevision + this.retainedRevisions;
    if (write.revision !== expected) throw new Error(`revision log: appended ${write.revision}, expected ${expected}`);
    this.writes.push(write);
  }

  /** The write at `revision`, or undefined when it was compacted away or has not happened. */
  at(revision: number): CommittedWrite | undefined {
    if (revision < this.firstRevision) return undefined;
    return this.writes[this.head + revision - this.firstRevision];
  }

  /** The first revision still readable (older ones were compacted). */
  get oldestRevision(): number {
    return this.firstRevision;
  }

  /**
   * Drops every revision below `compactRevision` and, at `compactRevision` itself, keeps only what etcd's
   * compaction keeps in the backend: for each key, its last change in that revision if it is a put
   * (mvcc/key_index.go keep/doCompact l.256-295: the newest revision <= atRev survives unless it is a
   * tombstone). So a watch from exactly the compaction revision still sees the puts made at it.
   */
  compact(compactRevision: number): void {
    while (this.firstRevision < compactRevision && this.head < this.writes.length) {
      this.writes[this.head] = undefined;
      this.head++;
      this.firstRevision++;
    }
    if (this.firstRevision < compactRevision) this.firstRevision = compactRevision;
    const boundary = this.at(compactRevision);
    if (boundary !== undefined) this.writes[this.head] = { revision: compactRevision, events: survivorsOf(boundary.events) };
    if (this.head >= TRIM_THRESHOLD && this.head * 2 >= this.writes.length) {
      // Copy the live tail so the compacted revisions' memory is actually released.
      this.writes = this.writes.slice(this.head);
      this.head = 0;
    }
  }
}

function survivorsOf(events: readonly StoredEvent[]): StoredEvent[] {
  const lastChange = new Map<string, StoredEvent>();
  for (const event of events) lastChange.set(event.kv.key, event);
  return events.filter((event) => event.type === 'put' && lastChange.get(event.kv.key) === event);
}
