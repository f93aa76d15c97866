import { describe, expect, it } from 'vitest';
import type { Compare, TxnRequest } from '../../core/ports/lock-log.js';
import { leaseId, NO_LEASE, type LeaseId } from '../../core/units.js';
import { MvccStore } from './mvcc-store.js';
import { applyCompare, executeTxn } from './txn.js';
import { validateTxn } from './txn-validate.js';

/** A lessor stand-in: leases 1..9 exist, attachments are ignored. */
const leases = { has: (id: LeaseId) => id > 0n && id < 10n, attach: () => undefined, detach: () => undefined };

function freshStore(): MvccStore {
  return new MvccStore(leases);
}

function run(store: MvccStore, request: Partial<TxnRequest>) {
  const result = executeTxn(store, leases, { compare: [], success: [], failure: [], ...request });
  if (!result.ok) throw result.error;
  return result.value;
}

describe('compares on a missing key (etcdserver/apply.go applyCompare l.450-474, compareKV l.476-518)', () => {
  const store = freshStore();
  const check = (compare: Compare) => applyCompare(store, compare);

  it('treats create, mod, version and lease as 0', () => {
    for (const target of ['create', 'mod', 'version', 'lease'] as const) {
      expect(check({ key: 'missing', target, op: '=', value: 0n })).toBe(true);
      expect(check({ key: 'missing', target, op: '<', value: 1n })).toBe(true);
      expect(check({ key: 'missing', target, op: '!=', value: 0n })).toBe(false);
    }
  });

  it('fails every VALUE compare, whatever the operator ("no way to represent missing value")', () => {
    for (const op of ['=', '!=', '<', '>'] as const) {
      expect(check({ key: 'missing', target: 'value', op, value: '' })).toBe(false);
      expect(check({ key: 'missing', target: 'value', op, value: 'x' })).toBe(false);
    }
  });

  it('compares values as bytes and revisions as integers on an existing key', () => {
    run(store, { success: [{ type: 'put', key: 'k', value: 'b', lease: leaseId(3n) }] });
    expect(check({ key: 'k', target: 'value', op: '=', value: 'b' })).toBe(true);
    expect(check({ key: 'k', target: 'value', op: '>', value: 'a' })).toBe(true);
    expect(check({ key: 'k', target: 'value', op: '<', value: '\u{1F600}' })).toBe(true);
    expect(check({ key: 'k', target: 'create', op: '=', value: 2n })).toBe(true);
    expect(check({ key: 'k', target: 'lease', op: '=', value: 3n })).toBe(true);
    expect(check({ key: 'k', target: 'version', op: '>', value: 0n })).toBe(true);
  });
});

describe('txn revisions (apply.go Txn l.355-391; kvstore_txn.go End)', () => {
  it('bumps once for a txn with two puts, and both share the revision', () => {
    const store = freshStore();
    const result = run(store, { success: [{ type: 'put', key: 'a', value: '1' }, { type: 'put', key: 'b', value: '1' }] });
    expect(result.succeeded).toBe(true);
    expect(store.currentRev).toBe(2);
    expect(store.latest('b')?.modRevision).toBe(2n);
  });

  it('does not bump for a failed txn with an empty failure branch', () => {
    const store = freshStore();
    const result = run(store, {
      compare: [{ key: 'k', target: 'version', op: '>', value: 0n }],
      success: [{ type: 'put', key: 'k', value: 'v' }],
    });
    expect(result).toEqual({ succeeded: false, responses: [] });
    expect(store.currentRev).toBe(1);
  });

  it('does not bump for a read-only txn, nor for a write txn whose branch only reads', () => {
    const store = freshStore();
    run(store, { success: [{ type: 'range', key: 'k' }] });
    run(store, { success: [{ type: 'range', key: 'k' }], failure: [{ type: 'put', key: 'k', value: 'v' }] });
    run(store, { success: [{ type: 'delete', key: 'k' }] });
    expect(store.currentRev).toBe(1);
  });

  it('refuses a put on a missing lease before writing anything (checkRequestPut l.933-955)', () => {
    const store = freshStore();
    const result = executeTxn(store, leases, {
      compare: [],
      success: [{ type: 'put', key: 'a', value: '1' }, { type: 'put', key: 'b', value: '1', lease: leaseId(42n) }],
      failure: [],
    });
    expect(!result.ok && result.error.code).toBe('lease-not-found');
    expect(store.currentRev).toBe(1);
    expect(store.latest('a')).toBeUndefined();
  });

  it('answers prevKv for put and delete, and lets later ops see earlier ones', () => {
    const store = freshStore();
    run(store, { success: [{ type: 'put', key: '/p/a', value: 'old' }, { type: 'put', key: '/p/b', value: 'b' }] });
    const result = run(store, {
      success: [
        { type: 'put', key: '/p/a', value: 'new', prevKv: true },
        { type: 'range', key: '/p/', prefix: true },
        { type: 'delete', key: '/p/', prefix: true, prevKv: true },
        { type: 'range', key: '/p/', prefix: true },
      ],
    });
    const [putResponse, before, deleted, after] = result.responses;
    expect(putResponse).toMatchObject({ type: 'put', prevKv: { value: 'old', modRevision: 2n } });
    expect(before).toMatchObject({ type: 'range', count: 2 });
    expect(before?.type === 'range' && before.kvs[0]?.value).toBe('new');
    expect(deleted).toMatchObject({ type: 'delete', deleted: 2 });
    expect(deleted?.type === 'delete' && deleted.prevKvs.map((kv) => kv.value)).toEqual(['new', 'b']);
    expect(after).toEqual({ type: 'range', kvs: [], count: 0, more: false });
    expect(store.currentRev).toBe(3);
    expect(run(store, { success: [{ type: 'put', key: 'x', value: '1', prevKv: true }] }).responses[0]).toEqual({ type: 'put' });
  });

  it('puts without a lease as NO_LEASE', () => {
    const store = freshStore();
    run(store, { success: [{ type: 'put', key: 'k', value: 'v' }] });
    expect(store.latest('k')?.lease).toBe(NO_LEASE);
  });
});

describe('validateTxn (etcdserver/api/v3rpc/key.go checkTxnRequest, checkIntervals)', () => {
  const txn = (request: Partial<TxnRequest>): TxnRequest => ({ compare: [], success: [], failure: [], ...request });

  it('refuses a key put twice or put and deleted in one branch, but not across branches', () => {
    const twice = validateTxn(txn({ success: [{ type: 'put', key: 'k', value: '1' }, { type: 'put', key: 'k', value: '2' }] }));
    expect(twice?.code).toBe('invalid-argument');
    expect(twice?.message).toMatch(/duplicate key/);
    expect(validateTxn(txn({ failure: [{ type: 'delete', key: '/a/', prefix: true }, { type: 'put', key: '/a/x', value: '1' }] }))?.code).toBe('invalid-argument');
    expect(validateTxn(txn({ success: [{ type: 'put', key: 'k', value: '1' }], failure: [{ type: 'put', key: 'k', value: '2' }] }))).toBeUndefined();
    expect(validateTxn(txn({ success: [{ type: 'delete', key: 'k' }, { type: 'delete', key: 'k' }] }))).toBeUndefined();
  });

  it('refuses more than MaxTxnOps (128) ops and empty keys, but allows a prefix over every key', () => {
    const many = Array.from({ length: 129 }, (_, i) => ({ type: 'range' as const, key: `k${i}` }));
    expect(validateTxn(txn({ success: many }))?.message).toMatch(/too many operations/);
    expect(validateTxn(txn({ success: many.slice(1) }))).toBeUndefined();
    expect(validateTxn(txn({ success: [{ type: 'put', key: '', value: '1' }] }))?.message).toMatch(/key is not provided/);
    expect(validateTxn(txn({ compare: [{ key: '', target: 'version', op: '=', value: 0n }] }))?.code).toBe('invalid-argument');
    expect(validateTxn(txn({ success: [{ type: 'range', key: '', prefix: true }] }))).toBeUndefined();
  });
});
