import { describe, expect, it } from 'vitest';
import { leaseId, revision, type LeaseId } from '../../core/units.js';
import { MvccStore, type LeaseBinder } from './mvcc-store.js';

/** Records what the store tells its lessor. */
function recordingBinder(): LeaseBinder & { readonly calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    attach: (id: LeaseId, key: string) => calls.push(`attach ${id} ${key}`),
    detach: (id: LeaseId, key: string) => calls.push(`detach ${id} ${key}`),
  };
}

function put(store: MvccStore, key: string, value: string, lease?: LeaseId): void {
  const txn = store.write();
  txn.put(key, value, lease);
  txn.end();
}

function kvOf(store: MvccStore, key: string, at?: bigint) {
  const read = store.range(at === undefined ? { key } : { key, revision: revision(at) });
  if (!read.ok) throw read.error;
  return read.value.kvs[0];
}

describe('MvccStore revisions (kvstore.go NewStore l.131-132, kvstore_txn.go End l.102-115)', () => {
  it('starts at revision 1 and gives the first write revision 2', () => {
    const store = new MvccStore(recordingBinder());
    expect(store.currentRev).toBe(1);
    expect(store.compactRev).toBe(-1);
    put(store, 'a', '1');
    expect(store.currentRevision()).toBe(2n);
    expect(kvOf(store, 'a')).toMatchObject({ createRevision: 2n, modRevision: 2n, version: 1n });
  });

  it('gives two puts in one write txn one revision, in sub-revision order', () => {
    const store = new MvccStore(recordingBinder());
    const txn = store.write();
    txn.put('b', '1');
    txn.put('a', '1');
    const write = txn.end();
    expect(store.currentRev).toBe(2);
    expect(write?.events.map((event) => event.kv.key)).toEqual(['b', 'a']);
    expect(write?.events.every((event) => event.kv.modRevision === 2n)).toBe(true);
  });

  it('does not bump on a txn that changes nothing, nor on a delete that matches nothing', () => {
    const store = new MvccStore(recordingBinder());
    expect(store.write().end()).toBeUndefined();
    const txn = store.write();
    expect(txn.deleteRange({ key: 'missing' })).toBe(0);
    expect(txn.deleteRange({ key: 'm', prefix: true })).toBe(0);
    expect(txn.end()).toBeUndefined();
    expect(store.currentRev).toBe(1);
  });

  it('keeps createRevision and adds one to version on overwrite; a delete starts a new generation', () => {
    const store = new MvccStore(recordingBinder());
    put(store, 'k', 'v1');
    put(store, 'k', 'v2');
    expect(kvOf(store, 'k')).toMatchObject({ value: 'v2', createRevision: 2n, modRevision: 3n, version: 2n });
    const txn = store.write();
    expect(txn.deleteRange({ key: 'k' })).toBe(1);
    const deleted = txn.end();
    expect(deleted?.events).toEqual([
      { type: 'delete', kv: { key: 'k', value: '', createRevision: 0n, modRevision: 4n, version: 0n, lease: 0n } },
    ]);
    put(store, 'k', 'v3');
    expect(kvOf(store, 'k')).toMatchObject({ value: 'v3', createRevision: 5n, modRevision: 5n, version: 1n });
  });

  it('lets reads inside a write txn see its own earlier changes (storeTxnWrite.Range at beginRev+1)', () => {
    const store = new MvccStore(recordingBinder());
    const txn = store.write();
    txn.put('k', 'v');
    const inside = txn.range({ key: 'k' });
    txn.end();
    expect(inside.ok && inside.value.kvs[0]?.value).toBe('v');
  });

  it('detaches the old lease on overwrite, even onto the same lease, and on delete (kvstore_txn.go put/delete)', () => {
    const binder = recordingBinder();
    const store = new MvccStore(binder);
    put(store, 'k', 'v', leaseId(7n));
    put(store, 'k', 'v', leaseId(7n));
    put(store, 'k', 'v');
    put(store, 'k', 'v', leaseId(8n));
    const txn = store.write();
    txn.deleteRange({ key: 'k' });
    txn.end();
    expect(binder.calls).toEqual(['attach 7 k', 'detach 7 k', 'attach 7 k', 'detach 7 k', 'attach 8 k', 'detach 8 k']);
  });
});

describe('MvccStore range (kvstore_txn.go rangeKeys l.117-127, apply.go Range)', () => {
  function storeWith(keys: string[]): MvccStore {
    const store = new MvccStore(recordingBinder());
    for (const key of keys) put(store, key, `v-${key}`);
    return store;
  }

  it('ranges over a prefix in byte order with count, limit and more', () => {
    const store = storeWith(['/a/2', '/b/1', '/a/1', '/a/3', '/a']);
    const all = store.range({ key: '/a/', prefix: true });
    expect(all.ok && all.value.kvs.map((kv) => kv.key)).toEqual(['/a/1', '/a/2', '/a/3']);
    expect(all.ok && all.value.more).toBe(false);
    const limited = store.range({ key: '/a/', prefix: true, limit: 2 });
    expect(limited.ok && limited.value).toMatchObject({ count: 3, more: true });
    expect(limited.ok && limited.value.kvs.map((kv) => kv.key)).toEqual(['/a/1', '/a/2']);
    const exact = store.range({ key: '/a/', prefix: true, limit: 3 });
    expect(exact.ok && exact.value.more).toBe(false);
    const counted = store.range({ key: '', prefix: true, countOnly: true });
    expect(counted.ok && counted.value).toEqual({ kvs: [], count: 5, more: false });
  });

  it('orders keys as UTF-8 bytes, not UTF-16 code units', () => {
    const store = storeWith(['\u{1F600}', '\uFFFD', 'z']);
    const all = store.range({ key: '', prefix: true });
    expect(all.ok && all.value.kvs.map((kv) => kv.key)).toEqual(['z', '\uFFFD', '\u{1F600}']);
  });

  it('reads at an old revision, and refuses a future one (ErrFutureRev)', () => {
    const store = storeWith([]);
    put(store, 'k', 'old');
    put(store, 'k', 'new');
    expect(kvOf(store, 'k', 2n)?.value).toBe('old');
    expect(kvOf(store, 'k', 3n)?.value).toBe('new');
    const future = store.range({ key: 'k', revision: revision(4n) });
    expect(!future.ok && future.error.code).toBe('future-revision');
  });
});

describe('MvccStore compaction (kvstore.go updateCompactRev l.246-275, key_index.go compact)', () => {
  it('refuses reads strictly below the compaction revision, allows reads at it', () => {
    const store = new MvccStore(recordingBinder());
    for (let i = 0; i < 5; i++) put(store, 'k', `v${i + 2}`);
    expect(store.compact(revision(4n)).ok).toBe(true);
    const below = store.range({ key: 'k', revision: revision(3n) });
    expect(!below.ok && below.error.code).toBe('compacted');
    expect(!below.ok && below.error.compactRevision).toBe(4n);
    expect(kvOf(store, 'k', 4n)?.value).toBe('v4');
  });

  it('answers ErrCompacted at or below the last compaction and ErrFutureRev above the current revision', () => {
    const store = new MvccStore(recordingBinder());
    for (let i = 0; i < 5; i++) put(store, 'k', 'v');
    expect(store.compact(revision(4n)).ok).toBe(true);
    const again = store.compact(revision(4n));
    expect(!again.ok && again.error.code).toBe('compacted');
    expect(!again.ok && again.error.compactRevision).toBe(4n);
    const future = store.compact(revision(7n));
    expect(!future.ok && future.error.code).toBe('future-revision');
    expect(store.compact(revision(6n)).ok).toBe(true);
  });

  it('frees superseded versions, tombstoned keys and old revisions', () => {
    const store = new MvccStore(recordingBinder());
    for (let i = 0; i < 10_000; i++) {
      const txn = store.write();
      txn.put(`/hot/${i % 10}`, `v${i}`);
      txn.put(`/q/${i}`, 'waiter');
      if (i > 0) txn.deleteRange({ key: `/q/${i - 1}` });
      txn.end();
    }
    expect(store.memoryStats()).toEqual({ indexedKeys: 10_010, keyVersions: 29_999, retainedRevisions: 10_000 });
    expect(store.compact(store.currentRevision()).ok).toBe(true);
    // Ten hot keys and the last waiter remain, one version each; only the last revision is kept.
    expect(store.memoryStats()).toEqual({ indexedKeys: 11, keyVersions: 11, retainedRevisions: 1 });
    const live = store.range({ key: '', prefix: true });
    expect(live.ok && live.value.count).toBe(11);
  });

  it('keeps the history hash equal for equal write sequences and different otherwise', () => {
    const a = new MvccStore(recordingBinder());
    const b = new MvccStore(recordingBinder());
    put(a, 'k', 'v');
    put(b, 'k', 'v');
    expect(a.historyHash()).toBe(b.historyHash());
    put(a, 'k', 'w');
    put(b, 'k', 'x');
    expect(a.historyHash()).not.toBe(b.historyHash());
  });
});
