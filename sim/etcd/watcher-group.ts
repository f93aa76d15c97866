// A set of watchers indexed by what they watch (mvcc/watcher_group.go): single keys in a map, prefixes in
// a map probed with each prefix length in use, so finding the watchers of a key costs O(distinct prefix
// lengths) rather than O(watchers). etcd keeps ranges in an interval tree; prefixes are all the port has.
import type { WatchEvent } from '../../core/ports/lock-log.js';
import type { Revision } from '../../core/units.js';
import type { StoredEvent } from './revision-log.js';

/** What a watcher receives: one batch of events, or the end of the watch because of compaction. */
export type WatchDelivery =
  | {
      readonly kind: 'events';
      readonly watchId: number;
      /** The header revision etcd sends: the write's revision, or the store revision for a catch-up batch. */
      readonly revision: Revision;
      readonly events: readonly WatchEvent[];
    }
  | { readonly kind: 'compacted'; readonly watchId: number; readonly compactRevision: Revision };

/** Receives a watcher's deliveries synchronously; it must not call back into the hub or the store. */
export type WatchSink = (delivery: WatchDelivery) => void;

export interface Watcher {
  readonly id: number;
  readonly key: string;
  readonly prefix: boolean;
  readonly prevKv: boolean;
  readonly sink: WatchSink;
  /** The lowest revision this watcher still accepts (mvcc/watcher.go minRev). */
  minRev: number;
}

export class WatcherGroup {
  private readonly members = new Map<number, Watcher>();
  private readonly byKey = new Map<string, Set<Watcher>>();
  private readonly byPrefix = new Map<string, Set<Watcher>>();
  private readonly prefixLengthUse = new Map<number, number>();
  private prefixLengths: number[] = [];

  get size(): number {
    return this.members.size;
  }

  has(watcher: Watcher): boolean {
    return this.members.get(watcher.id) === watcher;
  }

  add(watcher: Watcher): void {
    this.members.set(watcher.id, watcher);
    const index = watcher.prefix ? this.byPrefix : this.byKey;
    let set = index.get(watcher.key);
    if (set === undefined) index.set(watcher.key, (set = new Set()));
    set.add(watcher);
    if (watcher.prefix) this.countPrefixLength(watcher.key.length, +1);
  }

  delete(watcher: Watcher): boolean {
    if (!this.has(watcher)) return false;
    this.members.delete(watcher.id);
    const index = watcher.prefix ? this.byPrefix : this.byKey;
    const set = index.get(watcher.key);
    set?.delete(watcher);
    if (set?.size === 0) index.delete(watcher.key);
    if (watcher.prefix) this.countPrefixLength(watcher.key.length, -1);
    return true;
  }

  /** The members, by id, so every pass over them is in the same order on every run. */
  byId(): Watcher[] {
    return [...this.members.values()].sort((a, b) => a.id - b.id);
  }

  /** Watchers interested in `key` (watcherSetByKey). */
  matching(key: string): Watcher[] {
    const found: Watcher[] = [...(this.byKey.get(key) ?? [])];
    for (const length of this.prefixLengths) {
      if (length > key.length) break;
      const set = this.byPrefix.get(key.slice(0, length));
      if (set !== undefined) found.push(...set);
    }
    return found;
  }

  /** Groups events by the watchers that accept them (newWatcherBatch), skipping revisions below minRev. */
  batch(events: readonly StoredEvent[]): Map<Watcher, StoredEvent[]> {
    const batches = new Map<Watcher, StoredEvent[]>();
    for (const event of events) {
      const rev = Number(event.kv.modRevision);
      for (const watcher of this.matching(event.kv.key)) {
        if (rev < watcher.minRev) continue;
        const list = batches.get(watcher);
        if (list === undefined) batches.set(watcher, [event]);
        else list.push(event);
      }
    }
    return batches;
  }

  private countPrefixLength(length: number, delta: number): void {
    const count = (this.prefixLengthUse.get(length) ?? 0) + delta;
    if (count === 0) this.prefixLengthUse.delete(length);
    else this.prefixLengthUse.set(length, count);
    this.prefixLengths = [...this.prefixLengthUse.keys()].sort((a, b) => a - b);
  }
}
