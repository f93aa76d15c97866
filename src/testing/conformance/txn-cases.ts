// Txn compares and ops (etcd-behaviour.md 4.1; etcdserver/apply.go applyCompare, applyTxn).
import { expect, it } from 'vitest';
import { isLockLogError } from '../../../core/ports/lock-log-error.js';
import type { Compare, LockLog, TxnResponse } from '../../../core/ports/lock-log.js';
import { NO_LEASE, leaseId } from '../../../core/units.js';
import { type SuiteContext, currentRevision, put, shortKeys } from './context.js';

/** Runs a txn that reads `key` on either branch and returns which branch ran. */
async function branchTaken(log: LockLog, key: string, compare: Compare[]): Promise<boolean> {
  const response = await log.txn({ compare, success: [{ type: 'range', key }], failure: [{ type: 'range', key }] });
  return response.succeeded;
}

function rangeOf(response: TxnResponse, index: number) {
  const op = response.responses[index];
  if (op?.type !== 'range') throw new Error(`response ${index} is ${op?.type ?? 'missing'}, not a range`);
  return op;
}

export function registerTxnCases(ctx: SuiteContext): void {
  it('takes the success branch on create = 0 for an absent key, and reads its own put', async () => {
    const { log } = ctx.target();
    const key = `${ctx.prefix('txn-create')}k`;
    const guard: Compare[] = [{ key, target: 'create', op: '=', value: 0n }];
    const first = await log.txn({ compare: guard, success: [{ type: 'put', key, value: 'v1' }, { type: 'range', key }], failure: [{ type: 'range', key }] });
    expect(first.succeeded).toBe(true);
    expect(first.responses.map((r) => r.type)).toEqual(['put', 'range']);
    const written = first.header.revision;
    expect(rangeOf(first, 1).kvs).toEqual([{ key, value: 'v1', createRevision: written, modRevision: written, version: 1n, lease: NO_LEASE }]);

    const second = await log.txn({ compare: guard, success: [{ type: 'put', key, value: 'v2' }], failure: [{ type: 'range', key }] });
    expect(second.succeeded).toBe(false);
    expect(second.header.revision).toBe(written); // a failed txn writes nothing
    expect(rangeOf(second, 0).kvs.map((kv) => kv.value)).toEqual(['v1']);
  });

  it('compares value, version and mod of an existing key', async () => {
    const { log } = ctx.target();
    const key = `${ctx.prefix('txn-compares')}k`;
    const r1 = await put(log, key, 'b');
    const r2 = await put(log, key, 'c');
    expect(await branchTaken(log, key, [{ key, target: 'value', op: '=', value: 'c' }])).toBe(true);
    expect(await branchTaken(log, key, [{ key, target: 'value', op: '!=', value: 'c' }])).toBe(false);
    expect(await branchTaken(log, key, [{ key, target: 'value', op: '<', value: 'd' }])).toBe(true);
    expect(await branchTaken(log, key, [{ key, target: 'value', op: '>', value: 'd' }])).toBe(false);
    expect(await branchTaken(log, key, [{ key, target: 'version', op: '=', value: 2n }])).toBe(true);
    expect(await branchTaken(log, key, [{ key, target: 'version', op: '>', value: 2n }])).toBe(false);
    expect(await branchTaken(log, key, [{ key, target: 'create', op: '=', value: r1 }])).toBe(true);
    expect(await branchTaken(log, key, [{ key, target: 'mod', op: '=', value: r2 }])).toBe(true);
    expect(await branchTaken(log, key, [{ key, target: 'mod', op: '<', value: r2 }])).toBe(false);
    expect(await branchTaken(log, key, [{ key, target: 'mod', op: '>', value: r1 }])).toBe(true);
    // All compares must hold: one false compare sends the txn to the failure branch.
    expect(await branchTaken(log, key, [{ key, target: 'version', op: '=', value: 2n }, { key, target: 'value', op: '=', value: 'x' }])).toBe(false);
  });

  it('sees an absent key as create = mod = version = lease = 0, and fails every value compare on it', async () => {
    const { log } = ctx.target();
    const key = `${ctx.prefix('txn-absent')}missing`;
    for (const target of ['create', 'mod', 'version', 'lease'] as const) {
      expect(await branchTaken(log, key, [{ key, target, op: '=', value: 0n }]), target).toBe(true);
    }
    // etcd: "nil == empty string in grpc; no way to represent missing value", so value compares are false.
    expect(await branchTaken(log, key, [{ key, target: 'value', op: '=', value: '' }])).toBe(false);
    expect(await branchTaken(log, key, [{ key, target: 'value', op: '!=', value: 'x' }])).toBe(false);
  });

  it('compares the lease a key is attached to', async () => {
    const { log } = ctx.target();
    const prefix = ctx.prefix('txn-lease');
    const lease = (await log.leaseGrant(30)).id;
    try {
      await put(log, `${prefix}leased`, 'v', lease);
      await put(log, `${prefix}plain`, 'v');
      expect(await branchTaken(log, `${prefix}leased`, [{ key: `${prefix}leased`, target: 'lease', op: '=', value: lease }])).toBe(true);
      expect(await branchTaken(log, `${prefix}leased`, [{ key: `${prefix}leased`, target: 'lease', op: '=', value: 0n }])).toBe(false);
      expect(await branchTaken(log, `${prefix}plain`, [{ key: `${prefix}plain`, target: 'lease', op: '=', value: 0n }])).toBe(true);
    } finally {
      await log.leaseRevoke(lease);
    }
  });

  it('keeps createRevision, bumps version and returns prevKv on a put over an existing key', async () => {
    const { log } = ctx.target();
    const key = `${ctx.prefix('txn-overwrite')}k`;
    const created = await put(log, key, 'one');
    const response = await log.txn({ compare: [], success: [{ type: 'put', key, value: 'two', prevKv: true }], failure: [] });
    const op = response.responses[0];
    expect(op?.type === 'put' ? op.prevKv : undefined).toEqual({ key, value: 'one', createRevision: created, modRevision: created, version: 1n, lease: NO_LEASE });
    const now = await log.range({ key });
    expect(now.kvs).toEqual([{ key, value: 'two', createRevision: created, modRevision: response.header.revision, version: 2n, lease: NO_LEASE }]);
    const fresh = await log.txn({ compare: [], success: [{ type: 'put', key: `${key}-new`, value: 'x', prevKv: true }], failure: [] });
    expect(fresh.responses[0]).toEqual({ type: 'put' }); // no previous value: no prevKv
  });

  it('deletes a prefix in one revision, returning the count and the previous values', async () => {
    const { log } = ctx.target();
    const prefix = ctx.prefix('txn-delete');
    for (const name of ['d/a', 'd/b', 'd/c', 'dx']) await put(log, `${prefix}${name}`, name);
    const response = await log.txn({ compare: [], success: [{ type: 'delete', key: `${prefix}d/`, prefix: true, prevKv: true }], failure: [] });
    const op = response.responses[0];
    if (op?.type !== 'delete') throw new Error('expected a delete response');
    expect(op.deleted).toBe(3);
    expect(shortKeys(prefix, op.prevKvs).sort()).toEqual(['d/a', 'd/b', 'd/c']);
    expect(op.prevKvs.map((kv) => kv.value).sort()).toEqual(['d/a', 'd/b', 'd/c']);
    const left = await log.range({ key: prefix, prefix: true });
    expect(shortKeys(prefix, left.kvs)).toEqual(['dx']);
    expect(left.header.revision).toBe(response.header.revision);
  });

  it('ranges a prefix in key order, with limit, count and more', async () => {
    const { log } = ctx.target();
    const prefix = ctx.prefix('txn-range');
    for (const name of ['c', 'a', 'b']) await put(log, `${prefix}${name}`, name);
    await put(log, `${prefix.slice(0, -1)}0`, 'x'); // the prefix's range end ('/' + 1 = '0'), which is exclusive
    const all = await log.range({ key: prefix, prefix: true });
    expect(shortKeys(prefix, all.kvs)).toEqual(['a', 'b', 'c']);
    expect([all.count, all.more]).toEqual([3, false]);
    const limited = await log.range({ key: prefix, prefix: true, limit: 2 });
    expect(shortKeys(prefix, limited.kvs)).toEqual(['a', 'b']);
    expect([limited.count, limited.more]).toEqual([3, true]);
    const inTxn = await log.txn({ compare: [], success: [{ type: 'range', key: prefix, prefix: true, limit: 1 }], failure: [] });
    const op = rangeOf(inTxn, 0);
    expect([shortKeys(prefix, op.kvs), op.count, op.more]).toEqual([['a'], 3, true]);
    const single = await log.range({ key: `${prefix}b` });
    expect([shortKeys(prefix, single.kvs), single.count]).toEqual([['b'], 1]);
  });

  it('rejects a put on a lease that does not exist, writing nothing', async () => {
    const { log } = ctx.target();
    const key = `${ctx.prefix('txn-missing-lease')}k`;
    const before = await currentRevision(log, key);
    const error = await log.txn({ compare: [], success: [{ type: 'put', key, value: 'v', lease: leaseId(0x1234_5678n) }], failure: [] }).catch((e: unknown) => e);
    expect(isLockLogError(error, 'lease-not-found')).toBe(true);
    expect(isLockLogError(error) && error.outcome).toBe('failed');
    expect(await currentRevision(log, key)).toBe(before);
  });
}
