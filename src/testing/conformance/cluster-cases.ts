// Response headers (the arbiter checks every one, ADR-03) and compaction (etcd-behaviour.md 4.1, 4.3).
// Compaction cases discard history for the whole cluster, so they are registered last.
import { expect, it } from 'vitest';
import { isLockLogError } from '../../../core/ports/lock-log-error.js';
import type { ResponseHeader } from '../../../core/ports/lock-log.js';
import { type SuiteContext, expectSameCluster, plus, put, recordWatch, remove, settle, waitUntil } from './context.js';

export function registerHeaderCases(ctx: SuiteContext): void {
  it('carries the same cluster id in the header of every kind of response', async () => {
    const { log, clock } = ctx.target();
    const key = `${ctx.prefix('header-cluster')}k`;
    const headers: ResponseHeader[] = [];
    const watched = await recordWatch(log, { key });
    headers.push(watched.watch.header);
    const write = await log.txn({ compare: [], success: [{ type: 'put', key, value: 'v' }], failure: [] });
    headers.push(write.header);
    headers.push((await log.txn({ compare: [{ key, target: 'version', op: '=', value: 7n }], success: [], failure: [] })).header);
    headers.push((await log.range({ key })).header, (await log.range({ key, serializable: true })).header);
    const lease = await log.leaseGrant(10);
    headers.push(lease.header, (await log.leaseKeepAlive(lease.id)).header, (await log.leaseTimeToLive(lease.id)).header);
    headers.push((await log.leaseRevoke(lease.id)).header, (await log.leaseTimeToLive(lease.id)).header, (await log.leaseKeepAlive(lease.id)).header);
    const status = await log.status();
    headers.push(status.header);
    await waitUntil(clock, 'the watch event', () => watched.batches.length >= 1);
    headers.push(...watched.batches.map((b) => b.header));
    await watched.watch.cancel();

    expectSameCluster(headers);
    for (const header of headers) expect(header.raftTerm).toBeGreaterThan(0n);
    expect(status.leader).not.toBe(0n);
    expect(status.raftTerm).toBeGreaterThan(0n);
    expect(status.version).not.toBe('');
  });

  it('shows every member the same cluster id and, through linearizable reads, the latest write', async () => {
    const { log, memberLogs } = ctx.target();
    const members = memberLogs ?? [log];
    const key = `${ctx.prefix('header-members')}k`;
    const written = await put(log, key, 'v');
    const statuses = await Promise.all(members.map((member) => member.status()));
    const reads = await Promise.all(members.map((member) => member.range({ key })));
    expectSameCluster([...statuses.map((s) => s.header), ...reads.map((r) => r.header), (await log.status()).header]);
    expect(new Set(statuses.map((s) => s.header.memberId)).size).toBe(members.length);
    for (const read of reads) {
      expect(read.header.revision).toBeGreaterThanOrEqual(written);
      expect(read.kvs.map((kv) => [kv.value, kv.modRevision])).toEqual([['v', written]]);
    }
  });
}

export function registerCompactionCases(ctx: SuiteContext): void {
  it('refuses reads below the compaction revision and allows them at it', async () => {
    const { log } = ctx.target();
    const key = `${ctx.prefix('compact-range')}k`;
    const r1 = await put(log, key, 'old');
    const r2 = await put(log, key, 'new');
    await log.compact(r2);
    const below = await log.range({ key, revision: r1 }).catch((e: unknown) => e);
    expect(isLockLogError(below, 'compacted')).toBe(true);
    expect((await log.range({ key, revision: r2 })).kvs.map((kv) => kv.value)).toEqual(['new']);
    const again = await log.compact(r1).catch((e: unknown) => e);
    expect(isLockLogError(again, 'compacted')).toBe(true);
    const future = await log.compact(plus(r2, 1000)).catch((e: unknown) => e);
    expect(isLockLogError(future, 'future-revision')).toBe(true);
  });

  it('ends a watch from below the compaction revision with compacted, and lets one start at it', async () => {
    const { log, clock } = ctx.target();
    const key = `${ctx.prefix('compact-watch')}k`;
    const r1 = await put(log, key, 'one');
    const r2 = await put(log, key, 'two');
    const r3 = await remove(log, key);
    await log.compact(r2);

    const below = await recordWatch(log, { key, startRevision: r1 });
    await waitUntil(clock, 'the compacted error', () => below.errors.length > 0);
    await settle(clock);
    expect(below.errors.map((e) => [e.code, e.compactRevision])).toEqual([['compacted', r2]]);
    expect(below.batches).toEqual([]);

    const at = await recordWatch(log, { key, startRevision: r2 });
    await waitUntil(clock, 'the history from the compaction revision', () => at.batches.length >= 2);
    expect(at.lines()).toEqual([`put ${key}=two@${r2}`, `delete ${key}@${r3}`]);
    expect(at.errors).toEqual([]);
    await at.watch.cancel();
  });
}
