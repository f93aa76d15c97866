// The key index: for each key, its versions by revision, like etcd's treeIndex of keyIndex generations
// (mvcc/index.go, mvcc/key_index.go). A version with no kv is a tombstone (a delete). Values live in the
// versions themselves rather than in a separate backend, so compaction frees both at once.
import type { KeyValue } from '../../core/ports/lock-log.js';
import { SortedKeySet } from './sorted-key-set.js';

export interface KeyVersion {
  readonly revision: number;
  /** Undefined for a tombstone. */
  readonly kv: KeyValue | undefined;
}

/** One key (`prefix` false) or every key starting with `key` (`prefix` true; "" means all keys). */
export interface KeyRange {
  readonly key: string;
  readonly prefix?: boolean;
}

export class KeyIndex {
  private versions = new Map<string, KeyVersion[]>();
  private keys = new SortedKeySet();
  private versionTotal = 0;

  /** An independent copy; versions are immutable and shared. */
  copy(): KeyIndex {
    const copy = new KeyIndex();
    copy.versions = new Map([...this.versions].map(([key, history]) => [key, history.slice()]));
    copy.keys = this.keys.copy();
    copy.versionTotal = this.versionTotal;
    return copy;
  }

  /** Keys with at least one retained version (deleted keys stay until compaction, as in etcd). */
  get keyCount(): number {
    return this.versions.size;
  }

  get versionCount(): number {
    return this.versionTotal;
  }

  /** The key's value as of `revision`, or undefined if it did not exist then (kvindex.Get). */
  get(key: string, revision: number): KeyValue | undefined {
    const history = this.versions.get(key);
    return history === undefined ? undefined : visibleAt(history, revision);
  }

  /** Every key in the range that existed at `revision`, in byte order (kvindex.Revisions). */
  visible(range: KeyRange, revision: number): KeyValue[] {
    if (range.prefix !== true) {
      const kv = this.get(range.key, revision);
      return kv === undefined ? [] : [kv];
    }
    const found: KeyValue[] = [];
    for (const key of this.keys.from(range.key)) {
      if (!key.startsWith(range.key)) break;
      const kv = visibleAt(this.versions.get(key) as KeyVersion[], revision);
      if (kv !== undefined) found.push(kv);
    }
    return found;
  }

  /** Appends a version; revisions per key only grow (sub-revisions of one txn append in order). */
  record(key: string, revision: number, kv: KeyValue | undefined): void {
    let history = this.versions.get(key);
    if (history === undefined) {
      history = [];
      this.versions.set(key, history);
      this.keys.add(key);
    }
    history.push({ revision, kv });
    this.versionTotal++;
  }

  /**
   * Forgets what no read at or above `atRevision` can see: per key, every version older than the newest
   * one <= atRevision, and that one too if it is a tombstone; a key left with nothing leaves the index
   * (mvcc/key_index.go compact l.224-253, index.go Compact).
   */
  compact(atRevision: number): void {
    for (const [key, history] of this.versions) {
      const keepFrom = lastIndexAtOrBelow(history, atRevision);
      if (keepFrom < 0) continue;
      const dropTombstone = (history[keepFrom] as KeyVersion).kv === undefined ? 1 : 0;
      const dropped = keepFrom + dropTombstone;
      if (dropped === 0) continue;
      this.versionTotal -= dropped;
      if (dropped === history.length) {
        this.versions.delete(key);
        this.keys.delete(key);
      } else {
        this.versions.set(key, history.slice(dropped));
      }
    }
  }

  /** The newest value of every live key, in byte order. */
  *live(): Generator<KeyValue, void, undefined> {
    for (const key of this.keys.all()) {
      const history = this.versions.get(key) as KeyVersion[];
      const newest = history[history.length - 1];
      if (newest?.kv !== undefined) yield newest.kv;
    }
  }
}

function visibleAt(history: readonly KeyVersion[], revision: number): KeyValue | undefined {
  const at = lastIndexAtOrBelow(history, revision);
  return at < 0 ? undefined : (history[at] as KeyVersion).kv;
}

/** Index of the newest version with revision <= `revision` (-1 if none); the newest is the common case. */
function lastIndexAtOrBelow(history: readonly KeyVersion[], revision: number): number {
  const last = history.length - 1;
  if (last < 0) return -1;
  if ((history[last] as KeyVersion).revision <= revision) return last;
  let low = 0;
  let high = last - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if ((history[mid] as KeyVersion).revision <= revision) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}
