// classifyGrant is pure: a grant txn's answer in, the outcome out (ADR-02/03/13/15). These answers are
// built by hand, shaped as etcd gives them, so every branch is reached without a cluster.
import { describe, expect, it } from 'vitest';
import { AssertionError } from '../assert.js';
import { parseLockKey } from '../lock-key.js';
import type { KeyValue, ResponseOp, TxnResponse } from '../ports/lock-log.js';
import { clusterId, leaseId, memberId, revision } from '../units.js';
import { type GrantTxnInput, classifyGrant, grantTxn } from './grant-txn.js';
import { EPOCH_KEY, formatEpochRecord, formatHolderValue } from './records.js';

const SESSION = leaseId(7n);
const OTHER_SESSION = leaseId(8n);
const input: GrantTxnInput = {
  key: parseLockKey('orders/o-1'),
  identity: 'spiffe://t/alice',
  instance: '',
  sessionId: SESSION,
  className: 'writes',
  epoch: { record: { epoch: 3, clusterId: 1n }, modRevision: revision(5n) },
  guardVersion: 0n,
};

function kv(key: string, value: string, createRevision: bigint, lease: bigint, modRevision = createRevision): KeyValue {
  return { key, value, createRevision: revision(createRevision), modRevision: revision(modRevision), version: 1n, lease: leaseId(lease) };
}
const epochKv = (modRevision: bigint): KeyValue => kv(EPOCH_KEY, formatEpochRecord({ epoch: 3, clusterId: 1n }), 2n, 0n, modRevision);
const range = (found: KeyValue | undefined): ResponseOp => ({ type: 'range', kvs: found === undefined ? [] : [found], count: found === undefined ? 0 : 1, more: false });
function refused(holder: KeyValue | undefined, epoch: KeyValue | undefined, guard?: KeyValue): TxnResponse {
  return { header: { clusterId: clusterId(1n), memberId: memberId(1n), revision: revision(40n), raftTerm: 2n }, succeeded: false, responses: [range(holder), range(epoch), range(guard)] };
}
const guardKv = (version: bigint): KeyValue => ({ ...kv('/g/orders/o-1//7', '', 31n, 7n), version });
const holder = (identity: string, session: bigint, lease = session, instance = '') => kv('/l/orders/o-1', formatHolderValue({ identity, instance, sessionId: leaseId(session), className: 'writes' }), 30n, lease);

describe('classifyGrant', () => {
  it('reads a committed txn as granted at its header revision', () => {
    const response: TxnResponse = { ...refused(undefined, undefined), succeeded: true, responses: [{ type: 'put' }] };
    expect(classifyGrant(input, response)).toEqual({ kind: 'granted', revision: 40n, reentered: false });
  });

  it('classifies a refusal by the holder read in the same txn: re-entered, leak, contended', () => {
    expect(classifyGrant(input, refused(holder(input.identity, SESSION), epochKv(5n)))).toEqual({ kind: 'granted', revision: 30n, reentered: true });
    expect(classifyGrant(input, refused(holder(input.identity, OTHER_SESSION), epochKv(5n))).kind).toBe('leak');
    expect(classifyGrant(input, refused(holder('spiffe://t/bob', OTHER_SESSION), epochKv(5n)))).toMatchObject({ kind: 'contended', seenAt: 40n });
    // A value naming our session on another lease is not ours (the lease decides what expires with us).
    expect(classifyGrant(input, refused(holder(input.identity, SESSION, OTHER_SESSION), epochKv(5n))).kind).toBe('leak');
  });

  it('calls another instance of the same identity contended, and the same instance a leak (issue 29)', () => {
    const replica = { ...input, instance: 'pod-b' };
    expect(classifyGrant(replica, refused(holder(input.identity, OTHER_SESSION, OTHER_SESSION, 'pod-a'), epochKv(5n))).kind).toBe('contended');
    expect(classifyGrant(replica, refused(holder(input.identity, OTHER_SESSION, OTHER_SESSION, 'pod-b'), epochKv(5n))).kind).toBe('leak');
    // A hold written before instances is the unnamed instance's: a named replica waits for it.
    expect(classifyGrant(replica, refused(holder(input.identity, OTHER_SESSION), epochKv(5n))).kind).toBe('contended');
  });

  it('reports a changed or missing epoch record before looking at the holder', () => {
    expect(classifyGrant(input, refused(undefined, epochKv(9n)))).toMatchObject({ kind: 'epoch-changed', epochKv: { modRevision: 9n } });
    expect(classifyGrant(input, refused(holder('spiffe://t/bob', OTHER_SESSION), undefined))).toEqual({ kind: 'epoch-changed', epochKv: undefined });
  });

  it('asserts the "cannot happen": the epoch compare held, so the holder compare failed, yet the same txn read no holder', () => {
    // Only a broken LockLog (or a broken grantTxn) answers this; it was once treated as contended.
    expect(() => classifyGrant(input, refused(undefined, epochKv(5n)))).toThrow(AssertionError);
  });

  it('asserts that a refusal answers the failure branch it asked for', () => {
    const shortAnswer: TxnResponse = { ...refused(undefined, undefined), responses: [] };
    expect(() => classifyGrant(input, shortAnswer)).toThrow(AssertionError);
    expect(grantTxn(input).failure).toHaveLength(3);
  });

  it('compares the grant guard at the version it was given, and reports a moved guard before the holder (issue 11, L2)', () => {
    expect(grantTxn({ ...input, guardVersion: 2n }).compare).toContainEqual({ key: '/g/orders/o-1//7', target: 'version', op: '=', value: 2n });
    // A settle bumped the guard to 1: refused whoever holds the key, and retried at version 1.
    expect(classifyGrant(input, refused(undefined, epochKv(5n), guardKv(1n)))).toEqual({ kind: 'guard-changed', version: 1n });
    expect(classifyGrant(input, refused(holder('spiffe://t/bob', OTHER_SESSION), epochKv(5n), guardKv(1n))).kind).toBe('guard-changed');
    // At the version it knew, the guard is not why it was refused: the holder is.
    expect(classifyGrant({ ...input, guardVersion: 1n }, refused(holder('spiffe://t/bob', OTHER_SESSION), epochKv(5n), guardKv(1n))).kind).toBe('contended');
  });
});
