import { describe, expect, it } from 'vitest';
import { leaseId, revision } from '../../core/units.js';
import { Lessor } from './lessor.js';
import { MvccStore } from './mvcc-store.js';
import { WatchHub, type WatchDelivery, type WatchOptions } from './watch-hub.js';

function member() {
  const lessor = new Lessor();
  const store = new MvccStore(lessor);
  const hub = new WatchHub(store);
  const write = (...ops: ([string, string] | [string])[]) => {
    const txn = store.write();
    for (const op of ops) {
      if (op.length === 2) txn.put(op[0], op[1]);
      else txn.deleteRange({ key: op[0] });
    }
    txn.end();
  };
  const watch = (options: WatchOptions) => {
    const received: WatchDelivery[] = [];
    const created = hub.watch(options, (delivery) => received.push(delivery));
    return { ...created, received };
  };
  return { lessor, store, hub, write, watch };
}

const revisionsOf = (delivery: WatchDelivery | undefined): bigint[] =>
  delivery?.kind === 'events' ? [...new Set(delivery.events.map((event) => BigInt(event.kv.modRevision)))] : [];

describe('synced watchers (watchable_store.go watch l.116-147, notify l.433-460)', () => {
  it('gets all events of one write txn in one batch, whose revision is the write revision', () => {
    const { write, watch } = member();
    const w = watch({ key: '/a/', prefix: true });
    expect(w.revision).toBe(1n);
    write(['/a/1', 'x'], ['/b/1', 'y'], ['/a/2', 'z']);
    expect(w.received).toHaveLength(1);
    const [batch] = w.received;
    expect(batch?.kind === 'events' && batch.revision).toBe(2n);
    expect(batch?.kind === 'events' && batch.events.map((event) => [event.type, event.kv.key])).toEqual([
      ['put', '/a/1'],
      ['put', '/a/2'],
    ]);
  });

  it('matches a single key exactly and sends a delete with only key and mod revision', () => {
    const { write, watch } = member();
    const w = watch({ key: 'k' });
    write(['k', 'v'], ['kk', 'v']);
    write(['k']);
    expect(w.received).toHaveLength(2);
    expect(w.received[1]).toEqual({
      kind: 'events',
      watchId: w.watchId,
      revision: 3n,
      events: [{ type: 'delete', kv: { key: 'k', value: '', createRevision: 0n, modRevision: 3n, version: 0n, lease: 0n } }],
    });
  });

  it('skips revisions below a future start revision', () => {
    const { write, watch, hub } = member();
    const w = watch({ key: 'k', startRevision: revision(4n) });
    expect(hub.isSynced(w.watchId)).toBe(true);
    write(['k', '2']);
    write(['k', '3']);
    write(['k', '4']);
    expect(w.received.map(revisionsOf)).toEqual([[4n]]);
  });

  it('delivers prevKv read at modRevision - 1, none for a create (v3rpc/watch.go l.414-424)', () => {
    const { write, watch } = member();
    const w = watch({ key: 'k', prevKv: true });
    write(['k', 'one']);
    write(['k', 'two']);
    write(['k']);
    const events = w.received.flatMap((delivery) => (delivery.kind === 'events' ? delivery.events : []));
    expect(events.map((event) => event.prevKv?.value)).toEqual([undefined, 'one', 'two']);
    expect('prevKv' in (events[0] ?? {})).toBe(false);
  });

  it('stops delivering after cancel', () => {
    const { write, watch, hub } = member();
    const w = watch({ key: 'k' });
    expect(hub.cancel(w.watchId)).toBe(true);
    expect(hub.cancel(w.watchId)).toBe(false);
    write(['k', 'v']);
    expect(w.received).toEqual([]);
  });

  it('answers progress only for a synced watcher', () => {
    const { write, watch, hub } = member();
    write(['k', 'v']);
    const synced = watch({ key: 'k' });
    const behind = watch({ key: 'k', startRevision: revision(2n) });
    expect(hub.progress(synced.watchId)).toBe(2n);
    expect(hub.progress(behind.watchId)).toBeUndefined();
  });
});

describe('unsynced watchers catch up on sync() (syncWatchers l.330-400, eventBatch watcher_group.go)', () => {
  it('waits for sync, then gets history in one batch with the current revision, then live events', () => {
    const { write, watch, hub } = member();
    write(['k', '2']);
    write(['other', '3']);
    write(['k', '4']);
    const w = watch({ key: 'k', startRevision: revision(2n) });
    expect(hub.isSynced(w.watchId)).toBe(false);
    expect(w.received).toEqual([]);
    expect(hub.sync()).toBe(0);
    expect(w.received).toHaveLength(1);
    expect(w.received[0]?.kind === 'events' && w.received[0].revision).toBe(4n);
    expect(revisionsOf(w.received[0])).toEqual([2n, 4n]);
    write(['k', '5']);
    expect(w.received.map(revisionsOf)).toEqual([[2n, 4n], [5n]]);
  });

  it('becomes synced without a delivery when history holds nothing for it', () => {
    const { write, watch, hub } = member();
    write(['other', '2']);
    const w = watch({ key: 'k', startRevision: revision(2n) });
    hub.sync();
    expect(w.received).toEqual([]);
    expect(hub.isSynced(w.watchId)).toBe(true);
  });

  it('sends at most 1000 revisions per batch and stays unsynced while more is left', () => {
    const { write, watch, hub } = member();
    for (let i = 0; i < 2_500; i++) write(['k', String(i)]);
    const w = watch({ key: 'k', startRevision: revision(2n) });
    expect(hub.sync()).toBe(1);
    expect(hub.sync()).toBe(1);
    expect(hub.sync()).toBe(0);
    expect(w.received.map((delivery) => revisionsOf(delivery).length)).toEqual([1_000, 1_000, 500]);
    expect(revisionsOf(w.received[1])[0]).toBe(1_002n);
  });
});

describe('compacted watchers (watcher_group.go chooseAll l.239-268, v3rpc/watch.go l.433-440)', () => {
  it('tells a watcher below the compaction revision, removes it, and lets one start at it', () => {
    const { write, watch, hub, store } = member();
    for (let i = 2; i <= 6; i++) write([`k`, String(i)]);
    expect(store.compact(revision(5n)).ok).toBe(true);
    const tooOld = watch({ key: 'k', startRevision: revision(4n) });
    const atCompaction = watch({ key: 'k', startRevision: revision(5n) });
    hub.sync();
    expect(tooOld.received).toEqual([{ kind: 'compacted', watchId: tooOld.watchId, compactRevision: 5n }]);
    expect(hub.cancel(tooOld.watchId)).toBe(false);
    expect(atCompaction.received.map(revisionsOf)).toEqual([[5n, 6n]]);
    write(['k', '7']);
    expect(tooOld.received).toHaveLength(1);
  });

  it('drops prevKv when the previous revision has been compacted', () => {
    const { write, watch, hub, store } = member();
    write(['k', 'a']);
    write(['k', 'b']);
    write(['k', 'c']);
    expect(store.compact(revision(4n)).ok).toBe(true);
    const w = watch({ key: 'k', startRevision: revision(4n), prevKv: true });
    hub.sync();
    const [event] = w.received[0]?.kind === 'events' ? w.received[0].events : [];
    expect(event?.kv.value).toBe('c');
    expect(event?.prevKv).toBeUndefined();
  });
});

describe('delivery order and re-entrancy', () => {
  it('delivers to watchers in id order, and a sink that cancels another watch stops its delivery', () => {
    const { hub, store, write } = member();
    const log: string[] = [];
    let second = -1;
    hub.watch({ key: 'k' }, () => {
      log.push('first');
      hub.cancel(second);
    });
    second = hub.watch({ key: '', prefix: true }, () => log.push('second')).watchId;
    write(['k', 'v']);
    expect(log).toEqual(['first']);
    expect(store.currentRev).toBe(2);
  });

  it('reaches a watcher of a leased key through the store', () => {
    const { lessor, store, watch } = member();
    expect(lessor.grant(leaseId(1n), 10, 0).ok).toBe(true);
    const w = watch({ key: 'k' });
    const txn = store.write();
    txn.put('k', 'v', leaseId(1n));
    txn.end();
    expect(w.received[0]?.kind === 'events' && w.received[0].events[0]?.kv.lease).toBe(1n);
  });
});
