// One member's watchable store (design/etcd-behaviour.md 4.2-4.3; mvcc/watchable_store.go,
// mvcc/watcher_group.go): synced watchers get each applied write as one batch; unsynced ones catch up
// from history when the member calls sync() (etcd's syncWatchersLoop, every 100 ms), which is also where
// a watcher that fell below the compaction point is told so and removed.
import type { KeyValue, WatchEvent } from '../../core/ports/lock-log.js';
import { revision, type Revision } from '../../core/units.js';
import { MAX_WATCHERS_PER_SYNC, WATCH_BATCH_MAX_REVISIONS } from './etcd-defaults.js';
import type { MvccStore } from './mvcc-store.js';
import type { CommittedWrite, StoredEvent } from './revision-log.js';
import { WatcherGroup, type WatchDelivery, type WatchSink, type Watcher } from './watcher-group.js';

export type { WatchDelivery, WatchSink } from './watcher-group.js';

export interface WatchOptions {
  readonly key: string;
  readonly prefix?: boolean;
  /** First revision to deliver; absent or 0 = from the next write (v3rpc/watch.go l.315-320). */
  readonly startRevision?: Revision;
  readonly prevKv?: boolean;
}

export interface WatchCreated {
  readonly watchId: number;
  /** The store revision when the watch was created: the "created" response's header revision. */
  readonly revision: Revision;
}

/** A catch-up batch for one watcher (watcher_group.go eventBatch). */
interface EventBatch {
  readonly events: StoredEvent[];
  revisions: number;
  /** First revision left out because the batch hit watchBatchMaxRevs; 0 = complete. */
  moreRev: number;
}

type Pending = readonly [Watcher, WatchDelivery];

export class WatchHub {
  private readonly synced = new WatcherGroup();
  private readonly unsynced = new WatcherGroup();
  private readonly watchers = new Map<number, Watcher>();
  private nextWatchId = 0;

  constructor(private readonly store: MvccStore) {
    store.observeCommits((write) => this.notify(write));
  }

  /** watchable_store.go watch l.116-147: synced if from 0 or from the future, else unsynced. */
  watch(options: WatchOptions, sink: WatchSink): WatchCreated {
    const startRev = options.startRevision === undefined ? 0 : Number(options.startRevision);
    const currentRev = this.store.currentRev;
    const synced = startRev === 0 || startRev > currentRev;
    const watcher: Watcher = {
      id: this.nextWatchId++,
      key: options.key,
      prefix: options.prefix === true,
      prevKv: options.prevKv === true,
      sink,
      minRev: synced ? Math.max(currentRev + 1, startRev) : startRev,
    };
    this.watchers.set(watcher.id, watcher);
    (synced ? this.synced : this.unsynced).add(watcher);
    return { watchId: watcher.id, revision: revision(BigInt(currentRev)) };
  }

  /** Ends a watch; nothing more is delivered to it. False if it had already ended. */
  cancel(watchId: number): boolean {
    const watcher = this.watchers.get(watchId);
    if (watcher === undefined) return false;
    this.watchers.delete(watchId);
    return this.synced.delete(watcher) || this.unsynced.delete(watcher);
  }

  isSynced(watchId: number): boolean {
    const watcher = this.watchers.get(watchId);
    return watcher !== undefined && this.synced.has(watcher);
  }

  /** A progress notification's revision, only for a synced watcher (watchable_store.go progress l.488-496). */
  progress(watchId: number): Revision | undefined {
    return this.isSynced(watchId) ? revision(BigInt(this.store.currentRev)) : undefined;
  }

  get counts(): { readonly synced: number; readonly unsynced: number } {
    return { synced: this.synced.size, unsynced: this.unsynced.size };
  }

  /** notify (watchable_store.go l.433-460): one response per synced watcher with all its events of `write`. */
  private notify(write: CommittedWrite): void {
    const pending: Pending[] = [];
    const batches = this.synced.batch(write.events);
    for (const watcher of [...batches.keys()].sort((a, b) => a.id - b.id)) {
      const delivery = this.eventsDelivery(watcher, batches.get(watcher) as StoredEvent[], write.revision);
      pending.push([watcher, delivery]);
    }
    this.fire(pending);
  }

  /**
   * One syncWatchers pass (watchable_store.go l.330-400): up to 512 unsynced watchers, by id; those below
   * the compaction revision get a compacted notice and are removed (watcher_group.go chooseAll l.239-268);
   * the rest receive their events in [minRev, current], at most 1000 revisions each, in one response whose
   * revision is the current one, and become synced unless more is left. Returns how many stay unsynced.
   */
  sync(): number {
    if (this.unsynced.size === 0) return 0;
    const currentRev = this.store.currentRev;
    const compactRev = this.store.compactRev;
    const pending: Pending[] = [];
    const chosen = new WatcherGroup();
    for (const watcher of this.unsynced.byId().slice(0, MAX_WATCHERS_PER_SYNC)) {
      if (watcher.minRev > currentRev) throw new Error(`watch: unsynced watcher ${watcher.id} is ahead of revision ${currentRev}`);
      if (watcher.minRev < compactRev) {
        this.unsynced.delete(watcher);
        this.watchers.delete(watcher.id);
        pending.push([watcher, { kind: 'compacted', watchId: watcher.id, compactRevision: revision(BigInt(compactRev)) }]);
        continue;
      }
      chosen.add(watcher);
    }
    const batches = this.catchUpBatches(chosen, currentRev);
    for (const watcher of chosen.byId()) {
      const batch = batches.get(watcher);
      watcher.minRev = batch !== undefined && batch.moreRev !== 0 ? batch.moreRev : currentRev + 1;
      if (batch !== undefined) pending.push([watcher, this.eventsDelivery(watcher, batch.events, currentRev)]);
      if (batch === undefined || batch.moreRev === 0) {
        this.unsynced.delete(watcher);
        this.synced.add(watcher);
      }
    }
    this.fire(pending);
    return this.unsynced.size;
  }

  /** Reads history from the lowest chosen minRev, stopping early once every batch is full. */
  private catchUpBatches(chosen: WatcherGroup, currentRev: number): Map<Watcher, EventBatch> {
    const batches = new Map<Watcher, EventBatch>();
    if (chosen.size === 0) return batches;
    const fromRev = Math.min(...chosen.byId().map((watcher) => watcher.minRev));
    let full = 0;
    for (let rev = fromRev; rev <= currentRev && full < chosen.size; rev++) {
      const write = this.store.writeAt(rev);
      if (write === undefined) continue;
      for (const [watcher, events] of chosen.batch(write.events)) {
        let batch = batches.get(watcher);
        if (batch === undefined) batches.set(watcher, (batch = { events: [], revisions: 0, moreRev: 0 }));
        if (batch.moreRev !== 0) continue;
        if (batch.revisions === WATCH_BATCH_MAX_REVISIONS) {
          batch.moreRev = rev;
          full++;
          continue;
        }
        batch.revisions++;
        batch.events.push(...events);
      }
    }
    return batches;
  }

  /** Builds the port's events; prevKv is read at modRevision-1 when sent, as v3rpc/watch.go l.414-424 does. */
  private eventsDelivery(watcher: Watcher, events: readonly StoredEvent[], rev: number): WatchDelivery {
    const converted = events.map((event): WatchEvent => {
      const prevKv = watcher.prevKv && !isCreateEvent(event) ? this.valueBefore(event.kv) : undefined;
      return prevKv === undefined ? { type: event.type, kv: event.kv } : { type: event.type, kv: event.kv, prevKv };
    });
    return { kind: 'events', watchId: watcher.id, revision: revision(BigInt(rev)), events: converted };
  }

  /**
   * Sinks run after the hub's state is settled, so one that cancels a watch sees a consistent hub; a watch
   * cancelled by an earlier sink in the same pass gets nothing more.
   */
  private fire(pending: readonly Pending[]): void {
    for (const [watcher, delivery] of pending) {
      if (delivery.kind === 'events' && this.watchers.get(watcher.id) !== watcher) continue;
      watcher.sink(delivery);
    }
  }

  private valueBefore(kv: KeyValue): KeyValue | undefined {
    const read = this.store.range({ key: kv.key, revision: revision(kv.modRevision - 1n) });
    return read.ok ? read.value.kvs[0] : undefined;
  }
}

/** v3rpc/watch.go isCreateEvent: a put whose create revision is its mod revision has no previous value. */
const isCreateEvent = (event: StoredEvent): boolean => event.type === 'put' && event.kv.createRevision === event.kv.modRevision;

