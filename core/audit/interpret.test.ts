import { describe, expect, it } from 'vitest';
import { EPOCH_KEY, formatEpochRecord, formatForceRecord, formatHolderValue, sessionKeyOf } from '../arbiter/records.js';
import type { KeyValue, WatchEvent } from '../ports/lock-log.js';
import { SHARD_MAP_KEY } from '../shards/shard-map.js';
import { packToken } from '../token.js';
import { type LeaseId, leaseId, revision } from '../units.js';
import { FRESH_LOG_STATE, interpretRevision } from './interpret.js';
import { releaseMarkerOps } from '../arbiter/release-marker.js';

const SESSION = leaseId(7001n);
const OTHER_SESSION = leaseId(7002n);
const HOLDER = formatHolderValue({ identity: 'spiffe://a', instance: '', sessionId: SESSION, className: 'ledger' });

function kv(key: string, value: string, create: bigint, mod: bigint, lease: LeaseId = leaseId(0n)): KeyValue {
  return { key, value, createRevision: revision(create), modRevision: revision(mod), version: 1n, lease };
}
const put = (k: KeyValue, prevKv?: KeyValue): WatchEvent => (prevKv === undefined ? { type: 'put', kv: k } : { type: 'put', kv: k, prevKv });
const del = (key: string, at: bigint, prevKv?: KeyValue): WatchEvent => {
  const tombstone = kv(key, '', 0n, at);
  return prevKv === undefined ? { type: 'delete', kv: tombstone } : { type: 'delete', kv: tombstone, prevKv };
};
const held = (grantRev: bigint, session: LeaseId = SESSION): KeyValue => kv('/l/payments/ledger-7', formatHolderValue({ identity: 'spiffe://a', instance: '', sessionId: session, className: 'ledger' }), grantRev, grantRev, session);
const markerPut = (session: LeaseId, grantRev: bigint, at: bigint): WatchEvent => {
  const op = releaseMarkerOps(session, grantRev)[0];
  if (op?.type !== 'put') throw new Error('a marker is a put');
  return put(kv(op.key, op.value, at, at, session));
};
const EPOCH_3 = { epoch: 3 };

describe('interpretRevision', () => {
  it('reads a grant: holder, class, session, and the token of the epoch in force (ADR-02)', () => {
    const { events, state } = interpretRevision(EPOCH_3, revision(10n), [put(kv('/l/payments/ledger-7', HOLDER, 10n, 10n, SESSION))]);
    expect(state).toEqual(EPOCH_3);
    expect(events).toEqual([
      { kind: 'grant', revision: 10n, key: 'payments/ledger-7', namespace: 'payments', identity: 'spiffe://a', className: 'ledger', sessionId: SESSION, grantRevision: 10n, epoch: 3, token: packToken(3, 10n) },
    ]);
  });

  it('tells a release (marker naming the hold) from an expiry (session record deleted) from neither', () => {
    const release = interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n, held(10n)), markerPut(SESSION, 10n, 12n)]);
    expect(release.events.map((e) => [e.kind, e.token, e.grantRevision])).toEqual([['release', packToken(3, 10n), 10n]]);
    const expiry = interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n, held(10n)), del(sessionKeyOf(SESSION), 12n, kv(sessionKeyOf(SESSION), '{}', 3n, 3n, SESSION))]);
    expect(expiry.events.map((e) => [e.kind, e.identity, e.token])).toEqual([['expiry', 'spiffe://a', packToken(3, 10n)]]);
    const bare = interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n, held(10n))]);
    expect(bare.events.map((e) => e.kind)).toEqual(['unexplained']);
  });

  it('does not take a marker of another hold or another session for this release (negative controls)', () => {
    const otherHold = interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n, held(10n)), markerPut(SESSION, 9n, 12n)]);
    expect(otherHold.events.map((e) => e.kind)).toEqual(['unexplained']);
    const otherSession = interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n, held(10n)), markerPut(OTHER_SESSION, 10n, 12n)]);
    expect(otherSession.events.map((e) => e.kind)).toEqual(['unexplained']);
    const otherSessionEnded = interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n, held(10n)), del(sessionKeyOf(OTHER_SESSION), 12n)]);
    expect(otherSessionEnded.events.map((e) => e.kind)).toEqual(['unexplained']);
  });

  it('reads a force-release with the /sys/force record of that very hold (ADR-20)', () => {
    const record = formatForceRecord({ key: 'payments/ledger-7', token: String(packToken(3, 10n)), holder: 'spiffe://a', requester: 'ops/alice', approver: 'ops/bob', reason: 'holder wedged since 03:00', enforcement: 'fenced' });
    const forced = interpretRevision(EPOCH_3, revision(15n), [del('/l/payments/ledger-7', 15n, held(10n)), put(kv('/sys/force/payments/ledger-7/10', record, 15n, 15n, leaseId(9n)))]);
    expect(forced.events).toEqual([
      expect.objectContaining({ kind: 'force-release', key: 'payments/ledger-7', token: packToken(3, 10n), requester: 'ops/alice', approver: 'ops/bob', reason: 'holder wedged since 03:00', enforcement: 'fenced' }),
    ]);
    const ofAnotherHold = interpretRevision(EPOCH_3, revision(15n), [del('/l/payments/ledger-7', 15n, held(10n)), put(kv('/sys/force/payments/ledger-7/8', record, 15n, 15n))]);
    expect(ofAnotherHold.events.map((e) => e.kind)).toEqual(['unexplained']);
  });

  it('reads an epoch advance: the holds it deleted carry the old epoch, and the state moves to the new one (ADR-03)', () => {
    const advanced = interpretRevision(EPOCH_3, revision(20n), [
      put(kv(EPOCH_KEY, formatEpochRecord({ epoch: 4, clusterId: 99n }), 2n, 20n), kv(EPOCH_KEY, formatEpochRecord({ epoch: 3, clusterId: 99n }), 2n, 5n)),
      del('/l/payments/ledger-7', 20n, held(10n)),
      del('/q/payments/ledger-7//1', 20n),
    ]);
    expect(advanced.state).toEqual({ epoch: 4 });
    expect(advanced.events.map((e) => [e.kind, e.key, e.token ?? e.epoch])).toEqual([
      ['epoch-advance', 'payments/ledger-7', packToken(3, 10n)],
      ['epoch', EPOCH_KEY, 4],
    ]);
    expect(advanced.events[1]).toMatchObject({ previousEpoch: 3, boundClusterId: 99n });
    const next = interpretRevision(advanced.state, revision(21n), [put(kv('/l/payments/ledger-7', HOLDER, 21n, 21n, SESSION))]);
    expect(next.events[0]?.token).toBe(packToken(4, 21n));
  });

  it('reads the first epoch record (lockstep init) and a shard map version; grants before any epoch carry no token', () => {
    const init = interpretRevision(FRESH_LOG_STATE, revision(2n), [put(kv(EPOCH_KEY, formatEpochRecord({ epoch: 1, clusterId: 5n }), 2n, 2n))]);
    expect(init.events).toEqual([{ kind: 'epoch', revision: 2n, key: EPOCH_KEY, epoch: 1, boundClusterId: 5n }]);
    expect(init.state).toEqual({ epoch: 1 });
    const map = interpretRevision(init.state, revision(3n), [put(kv(SHARD_MAP_KEY, JSON.stringify({ version: 7, regions: {} }), 3n, 3n))]);
    expect(map.events).toEqual([{ kind: 'shard-map', revision: 3n, key: SHARD_MAP_KEY, shardMapVersion: 7 }]);
    const early = interpretRevision(FRESH_LOG_STATE, revision(2n), [put(kv('/l/payments/x', HOLDER, 2n, 2n, SESSION))]);
    expect(early.events[0]).not.toHaveProperty('token');
  });

  it('ignores waiters, session records, markers and the election', () => {
    const noise = interpretRevision(EPOCH_3, revision(30n), [
      put(kv('/q/payments/ledger-7//5', '{}', 30n, 30n)),
      put(kv(sessionKeyOf(SESSION), '{}', 30n, 30n, SESSION)),
      markerPut(SESSION, 10n, 30n),
      put(kv('/e/audit-tailer/1', '', 30n, 30n)),
    ]);
    expect(noise.events).toEqual([]);
  });

  it('shows the rewrite of an existing holder key, which no lockstep arbiter writes, apart from a grant', () => {
    const rewrite = interpretRevision(EPOCH_3, revision(30n), [put(kv('/l/payments/ledger-8', formatHolderValue({ identity: 'spiffe://b', instance: '', sessionId: OTHER_SESSION, className: 'ledger' }), 11n, 30n, OTHER_SESSION))]);
    expect(rewrite.events).toEqual([expect.objectContaining({ kind: 'holder-rewrite', key: 'payments/ledger-8', identity: 'spiffe://b', grantRevision: 11n, token: packToken(3, 11n) })]);
  });

  it('classifies a delete without its previous value from the revision shape (prevKv compacted away)', () => {
    expect(interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n), markerPut(SESSION, 10n, 12n)]).events.map((e) => e.kind)).toEqual(['release']);
    expect(interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n), del(sessionKeyOf(SESSION), 12n)]).events.map((e) => e.kind)).toEqual(['expiry']);
    const bare = interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 12n)]).events[0];
    expect(bare).toEqual({ kind: 'unexplained', revision: 12n, key: 'payments/ledger-7', namespace: 'payments' });
  });

  it('refuses a batch that mixes revisions: a programmer error in the caller', () => {
    expect(() => interpretRevision(EPOCH_3, revision(12n), [del('/l/payments/ledger-7', 11n, held(10n))])).toThrow(/an event of revision 11 in the batch of revision 12/);
  });
});
