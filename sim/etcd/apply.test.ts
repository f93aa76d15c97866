import { describe, expect, it } from 'vitest';
import type { TxnRequest } from '../../core/ports/lock-log.js';
import { leaseId, revision } from '../../core/units.js';
import { applyRequest, createEtcdState, stateDigest, type EtcdRequest, type EtcdState } from './apply.js';
import type { WatchDelivery } from './watch-hub.js';

const L1 = leaseId(1n);

function applyOk(state: EtcdState, request: EtcdRequest, nowMs = 0) {
  const applied = applyRequest(state, request, nowMs);
  if (!applied.ok) throw applied.error;
  return applied.value;
}

const txn = (request: Partial<TxnRequest>): EtcdRequest => ({ kind: 'txn', txn: { compare: [], success: [], failure: [], ...request } });
const put = (key: string, value: string, lease?: typeof L1): EtcdRequest =>
  txn({ success: [lease === undefined ? { type: 'put', key, value } : { type: 'put', key, value, lease }] });

describe('applyRequest revisions (design/etcd-behaviour.md 4.1)', () => {
  it('does not bump on lease grant, checkpoint or compaction, and answers the current revision', () => {
    const state = createEtcdState();
    applyOk(state, put('k', 'v'));
    expect(applyOk(state, { kind: 'lease-grant', id: L1, ttlSeconds: 1 })).toEqual({ body: { kind: 'lease-grant', id: L1, ttlSeconds: 2 }, revision: 2n });
    expect(applyOk(state, { kind: 'lease-checkpoint', checkpoints: [{ id: L1, remainingTtlSeconds: 1 }, { id: leaseId(9n), remainingTtlSeconds: 1 }] }).revision).toBe(2n);
    expect(applyOk(state, { kind: 'compaction', revision: revision(2n) })).toEqual({ body: { kind: 'compaction' }, revision: 2n });
  });

  it('answers a write txn with the new revision and a failed one with the unchanged revision', () => {
    const state = createEtcdState();
    expect(applyOk(state, put('k', 'v')).revision).toBe(2n);
    const failed = applyOk(state, txn({ compare: [{ key: 'k', target: 'value', op: '=', value: 'other' }], success: [{ type: 'delete', key: 'k' }] }));
    expect(failed).toEqual({ body: { kind: 'txn', succeeded: false, responses: [] }, revision: 2n });
  });

  it('refuses compaction at or below the last one and above the current revision', () => {
    const state = createEtcdState();
    applyOk(state, put('k', 'v'));
    applyOk(state, { kind: 'compaction', revision: revision(2n) });
    expect(applyRequest(state, { kind: 'compaction', revision: revision(2n) }, 0)).toMatchObject({ ok: false, error: { code: 'compacted', compactRevision: 2n } });
    expect(applyRequest(state, { kind: 'compaction', revision: revision(3n) }, 0)).toMatchObject({ ok: false, error: { code: 'future-revision' } });
  });
});

describe('lease revoke through the store (lease/lessor.go Revoke l.324-362, design 1.9)', () => {
  function leasedState(): { state: EtcdState; received: WatchDelivery[] } {
    const state = createEtcdState();
    applyOk(state, { kind: 'lease-grant', id: L1, ttlSeconds: 10 });
    applyOk(state, txn({ success: [{ type: 'put', key: '/l/b', value: 'x', lease: L1 }, { type: 'put', key: '/l/a', value: 'x', lease: L1 }] }));
    applyOk(state, put('/l/c', 'x', L1));
    applyOk(state, put('/other', 'x'));
    const received: WatchDelivery[] = [];
    state.watches.watch({ key: '/l/', prefix: true }, (delivery) => received.push(delivery));
    return { state, received };
  }

  it('deletes every attached key at one revision, in key order, and watchers get them in one batch', () => {
    const { state, received } = leasedState();
    expect(state.store.currentRev).toBe(4);
    expect(applyOk(state, { kind: 'lease-revoke', id: L1 })).toEqual({ body: { kind: 'lease-revoke' }, revision: 5n });
    expect(received).toHaveLength(1);
    const [batch] = received;
    expect(batch?.kind === 'events' && batch.events.map((event) => [event.type, event.kv.key, event.kv.modRevision])).toEqual([
      ['delete', '/l/a', 5n],
      ['delete', '/l/b', 5n],
      ['delete', '/l/c', 5n],
    ]);
    expect(state.lessor.has(L1)).toBe(false);
    expect(state.store.latest('/other')?.value).toBe('x');
  });

  it('does not bump the revision for a lease with no keys, and refuses a missing lease', () => {
    const state = createEtcdState();
    applyOk(state, { kind: 'lease-grant', id: L1, ttlSeconds: 10 });
    expect(applyOk(state, { kind: 'lease-revoke', id: L1 }).revision).toBe(1n);
    expect(applyRequest(state, { kind: 'lease-revoke', id: L1 }, 0)).toMatchObject({ ok: false, error: { code: 'lease-not-found' } });
  });

  it('attaches on put, detaches on put without lease and on delete (kvstore_txn.go put/delete)', () => {
    const { state } = leasedState();
    const keys = () => state.lessor.timeToLive(L1, 0)?.keys;
    expect(keys()).toEqual(['/l/a', '/l/b', '/l/c']);
    applyOk(state, put('/l/a', 'no lease now'));
    applyOk(state, txn({ success: [{ type: 'delete', key: '/l/b' }] }));
    expect(keys()).toEqual(['/l/c']);
    applyOk(state, { kind: 'lease-revoke', id: L1 });
    expect(state.store.latest('/l/a')?.value).toBe('no lease now');
  });

  it('refuses a put on a lease that does not exist and changes nothing', () => {
    const state = createEtcdState();
    const before = stateDigest(state);
    expect(applyRequest(state, put('k', 'v', L1), 0)).toMatchObject({ ok: false, error: { code: 'lease-not-found' } });
    expect(stateDigest(state)).toBe(before);
  });
});

describe('stateDigest', () => {
  it('ignores leadership-local state: primacy and lease expiries', () => {
    const leader = createEtcdState();
    const follower = createEtcdState();
    leader.lessor.promote(1_000, 0);
    for (const state of [leader, follower]) {
      applyOk(state, { kind: 'lease-grant', id: L1, ttlSeconds: 10 }, 500);
      applyOk(state, put('k', 'v', L1));
    }
    expect(leader.lessor.lookup(L1)?.expiryMs).toBe(10_500);
    expect(stateDigest(leader)).toBe(stateDigest(follower));
  });

  it('differs when values, leases or compaction differ', () => {
    const make = (value: string) => {
      const state = createEtcdState();
      applyOk(state, put('k', value));
      return state;
    };
    expect(stateDigest(make('a'))).not.toBe(stateDigest(make('b')));
    const compacted = make('a');
    applyOk(compacted, { kind: 'compaction', revision: revision(2n) });
    expect(stateDigest(compacted)).not.toBe(stateDigest(make('a')));
    const leased = make('a');
    applyOk(leased, { kind: 'lease-grant', id: L1, ttlSeconds: 10 });
    expect(stateDigest(leased)).not.toBe(stateDigest(make('a')));
  });
});
