// When the store revision moves, and reading at a revision (etcd-behaviour.md 4.1: mvcc/kvstore_txn.go
// End bumps currentRev only if the txn changed something; rangeKeys refuses compacted and future revisions).
import { expect, it } from 'vitest';
import { isLockLogError } from '../../../core/ports/lock-log-error.js';
import type { ResponseHeader } from '../../../core/ports/lock-log.js';
import { leaseId } from '../../../core/units.js';
import { type SuiteContext, currentRevision, plus, put } from './context.js';

export function registerRevisionCases(ctx: SuiteContext): void {
  it('moves the revision only on writes that change something', async () => {
    const { log } = ctx.target();
    const prefix = ctx.prefix('rev-no-bump');
    await put(log, `${prefix}existing`, 'v');
    const start = await currentRevision(log, `${prefix}probe`);
    const headers: Array<[string, ResponseHeader]> = [];
    const note = (what: string, header: ResponseHeader) => headers.push([what, header]);

    note('range', (await log.range({ key: `${prefix}existing` })).header);
    note('serializable range', (await log.range({ key: `${prefix}existing`, serializable: true })).header);
    note('failed txn', (await log.txn({ compare: [{ key: `${prefix}existing`, target: 'version', op: '=', value: 9n }], success: [{ type: 'put', key: `${prefix}x`, value: 'v' }], failure: [] })).header);
    note('failed txn reading', (await log.txn({ compare: [{ key: `${prefix}existing`, target: 'create', op: '=', value: 0n }], success: [], failure: [{ type: 'range', key: prefix, prefix: true }] })).header);
    note('delete of a missing key', (await log.txn({ compare: [], success: [{ type: 'delete', key: `${prefix}missing` }], failure: [] })).header);
    note('delete of an empty prefix', (await log.txn({ compare: [], success: [{ type: 'delete', key: `${prefix}nothing/`, prefix: true }], failure: [] })).header);
    note('empty successful txn', (await log.txn({ compare: [], success: [], failure: [] })).header);
    const grant = await log.leaseGrant(30);
    note('lease grant', grant.header);
    note('keepalive', (await log.leaseKeepAlive(grant.id)).header);
    note('time-to-live', (await log.leaseTimeToLive(grant.id, { keys: true })).header);
    note('revoke of a lease without keys', (await log.leaseRevoke(grant.id)).header);
    note('status', (await log.status()).header);

    expect(headers.map(([what, header]) => [what, header.revision])).toEqual(headers.map(([what]) => [what, start]));
    expect(await currentRevision(log, `${prefix}probe`)).toBe(start);
  });

  it('gives a txn with two puts a single new revision, reported in its header', async () => {
    const { log } = ctx.target();
    const prefix = ctx.prefix('rev-two-puts');
    const start = await currentRevision(log, `${prefix}probe`);
    const response = await log.txn({ compare: [], success: [{ type: 'put', key: `${prefix}a`, value: '1' }, { type: 'put', key: `${prefix}b`, value: '2' }], failure: [] });
    expect(response.header.revision).toBe(plus(start, 1));
    const read = await log.range({ key: prefix, prefix: true });
    expect(read.kvs.map((kv) => [kv.modRevision, kv.createRevision])).toEqual([
      [plus(start, 1), plus(start, 1)],
      [plus(start, 1), plus(start, 1)],
    ]);
    expect(await put(log, `${prefix}a`, '3')).toBe(plus(start, 2));
  });

  it('reads a key as it was at an earlier revision, and refuses a future revision', async () => {
    const { log } = ctx.target();
    const key = `${ctx.prefix('rev-read-at')}k`;
    const r1 = await put(log, key, 'old');
    const r2 = await put(log, key, 'new');
    expect((await log.range({ key, revision: r1 })).kvs.map((kv) => [kv.value, kv.modRevision])).toEqual([['old', r1]]);
    expect((await log.range({ key, revision: r2 })).kvs.map((kv) => [kv.value, kv.modRevision])).toEqual([['new', r2]]);
    expect((await log.range({ key, revision: plus(r1, -1) })).kvs).toEqual([]);
    const error = await log.range({ key, revision: plus(r2, 1000) }).catch((e: unknown) => e);
    expect(isLockLogError(error, 'future-revision')).toBe(true);
  });

  it('answers revoke of a missing lease with lease-not-found, and time-to-live with -1', async () => {
    const { log } = ctx.target();
    const missing = leaseId(0x7e57_0000_0001n);
    const error = await log.leaseRevoke(missing).catch((e: unknown) => e);
    expect(isLockLogError(error, 'lease-not-found')).toBe(true);
    expect(isLockLogError(error) && error.outcome).toBe('failed');
    const ttl = await log.leaseTimeToLive(missing, { keys: true });
    expect([ttl.id, ttl.ttlSeconds, ttl.keys]).toEqual([missing, -1, []]);
  });
}
