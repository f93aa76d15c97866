import type { IEvent, IWatchResponse } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { batchesPerRevision, cancelledWatchError, encodeWatchCreate } from './watch-stream.js';

const header = { clusterId: 1n, memberId: 2n, revision: 12n, raftTerm: 1n } as never;
const event = (type: string, key: string, modRevision: number): IEvent =>
  ({ type, kv: { key: Buffer.from(key), value: Buffer.from(''), create_revision: '1', mod_revision: String(modRevision), version: '1', lease: '0' }, prev_kv: null }) as unknown as IEvent;

describe('batchesPerRevision', () => {
  it('splits a catch-up response spanning revisions into one batch per revision, in order', () => {
    const batches = batchesPerRevision(header, [event('Put', 'a', 10), event('Put', 'b', 10), event('Delete', 'a', 11), event('PUT', 'c', 12)]);
    expect(batches.map((b) => b.events.map((e) => `${e.type} ${e.kv.key}@${e.kv.modRevision}`))).toEqual([['put a@10', 'put b@10'], ['delete a@11'], ['put c@12']]);
    expect(batches.every((b) => b.header === header)).toBe(true);
  });

  it('gives no batch for a response without events', () => {
    expect(batchesPerRevision(header, [])).toEqual([]);
  });
});

describe('cancelledWatchError', () => {
  it('reports compaction with the revision a new watch may start from', () => {
    const error = cancelledWatchError({ compact_revision: '42', cancel_reason: '' } as IWatchResponse, 'watch of k');
    expect([error.code, error.compactRevision, error.outcome]).toEqual(['compacted', 42n, 'failed']);
  });

  it('reports any other cancel as unavailable, with etcd reason', () => {
    const error = cancelledWatchError({ compact_revision: '0', cancel_reason: 'permission denied' } as IWatchResponse, 'watch of k');
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('permission denied');
  });
});

describe('encodeWatchCreate', () => {
  it('sets only what was asked', () => {
    expect(encodeWatchCreate({ key: 'k' })).toEqual({ key: Buffer.from('k') });
    expect(encodeWatchCreate({ key: 'p/', prefix: true, startRevision: 5n as never, prevKv: true })).toEqual({ key: Buffer.from('p/'), range_end: Buffer.from('p0'), start_revision: '5', prev_kv: true });
  });
});
