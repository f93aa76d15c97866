// Watches (etcd-behaviour.md 4.2): history replay from a start revision, one batch per revision, live
// events after creation, prevKv, cancel.
import { expect, it } from 'vitest';
import { NO_LEASE } from '../../../core/units.js';
import { type SuiteContext, plus, put, recordWatch, remove, settle, waitUntil } from './context.js';

export function registerWatchCases(ctx: SuiteContext): void {
  it('replays history from a past start revision, deletes included', async () => {
    const { log, clock } = ctx.target();
    const key = `${ctx.prefix('watch-replay')}k`;
    const r1 = await put(log, key, 'one');
    const r2 = await put(log, key, 'two');
    const r3 = await remove(log, key);
    const watched = await recordWatch(log, { key, startRevision: r1 });
    expect(watched.watch.header.revision).toBeGreaterThanOrEqual(r3);
    await waitUntil(clock, 'three replayed revisions', () => watched.batches.length >= 3);
    expect(watched.lines()).toEqual([`put ${key}=one@${r1}`, `put ${key}=two@${r2}`, `delete ${key}@${r3}`]);
    const [first, second, third] = watched.batches.map((b) => b.events[0]?.kv);
    expect(first).toEqual({ key, value: 'one', createRevision: r1, modRevision: r1, version: 1n, lease: NO_LEASE });
    expect(second).toEqual({ key, value: 'two', createRevision: r1, modRevision: r2, version: 2n, lease: NO_LEASE });
    expect([third?.key, third?.value, third?.modRevision]).toEqual([key, '', r3]);
    await watched.watch.cancel();
  });

  it('delivers one batch per revision, both when replaying and live', async () => {
    const { log, clock } = ctx.target();
    const prefix = ctx.prefix('watch-batches');
    const both = [{ type: 'put' as const, key: `${prefix}x`, value: '1' }, { type: 'put' as const, key: `${prefix}y`, value: '1' }];
    const r1 = (await log.txn({ compare: [], success: both, failure: [] })).header.revision;
    const r2 = await put(log, `${prefix}x`, '2');
    const replay = await recordWatch(log, { key: prefix, prefix: true, startRevision: r1 });
    await waitUntil(clock, 'two replayed revisions', () => replay.batches.length >= 2);
    expect(replay.batches.map((b) => b.events.map((e) => `${e.kv.key.slice(prefix.length)}@${e.kv.modRevision}`))).toEqual([[`x@${r1}`, `y@${r1}`], [`x@${r2}`]]);
    await replay.watch.cancel();

    const live = await recordWatch(log, { key: prefix, prefix: true });
    expect(live.watch.header.revision).toBe(r2);
    const r3 = (await log.txn({ compare: [], success: [{ type: 'put', key: `${prefix}x`, value: '3' }, { type: 'put', key: `${prefix}z`, value: '3' }], failure: [] })).header.revision;
    const r4 = await remove(log, prefix, true);
    await waitUntil(clock, 'two live revisions', () => live.batches.length >= 2);
    expect(live.batches.map((b) => b.events.map((e) => `${e.type} ${e.kv.key.slice(prefix.length)}@${e.kv.modRevision}`))).toEqual([
      [`put x@${r3}`, `put z@${r3}`],
      [`delete x@${r4}`, `delete y@${r4}`, `delete z@${r4}`],
    ]);
    await live.watch.cancel();
  });

  it('starts a watch without a start revision after the current revision', async () => {
    const { log, clock } = ctx.target();
    const key = `${ctx.prefix('watch-now')}k`;
    await put(log, key, 'before');
    const watched = await recordWatch(log, { key });
    const after = await put(log, key, 'after');
    await waitUntil(clock, 'the live event', () => watched.batches.length >= 1);
    await settle(clock);
    expect(watched.lines()).toEqual([`put ${key}=after@${after}`]);
    await watched.watch.cancel();
  });

  it('sends the previous value with each event when asked', async () => {
    const { log, clock } = ctx.target();
    const key = `${ctx.prefix('watch-prevkv')}k`;
    const r1 = await put(log, key, 'one');
    const watched = await recordWatch(log, { key, prevKv: true, startRevision: plus(r1, 1) });
    await put(log, key, 'two');
    await remove(log, key);
    await waitUntil(clock, 'both events', () => watched.batches.length >= 2);
    expect(watched.batches.map((b) => [b.events[0]?.type, b.events[0]?.prevKv?.value])).toEqual([
      ['put', 'one'],
      ['delete', 'two'],
    ]);
    await watched.watch.cancel();
  });

  it('delivers nothing after cancel, and no error', async () => {
    const { log, clock } = ctx.target();
    const key = `${ctx.prefix('watch-cancel')}k`;
    const watched = await recordWatch(log, { key });
    await put(log, key, 'seen');
    await waitUntil(clock, 'the first event', () => watched.batches.length >= 1);
    await watched.watch.cancel();
    await put(log, key, 'unseen');
    await settle(clock, 300);
    expect(watched.lines().map((line) => line.split('@')[0])).toEqual([`put ${key}=seen`]);
    expect(watched.errors).toEqual([]);
  });
}
