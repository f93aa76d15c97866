import { ClientClosedError, EtcdLeaseInvalidError, GRPCDeadlineExceededError, GRPCOutOfRangeError, GRPCUnavailableError, GRPCUnknownError } from 'etcd3';
import { describe, expect, it } from 'vitest';
import { LockLogError } from '../../core/ports/lock-log-error.js';
import { toLockLogError, wasNeverSent } from './error-mapping.js';

const write = { description: 'txn on http://m0', mutates: true };
const read = { description: 'range on http://m0', mutates: false };

/** What grpc-js hands a stream's 'error' listener: a plain Error with the status fields attached. */
function rawGrpcError(code: number, name: string, details: string): Error {
  return Object.assign(new Error(`${code} ${name}: ${details}`), { code, details, metadata: {} });
}

const mapped = (error: unknown, context = write) => {
  const result = toLockLogError(error, context);
  return [result.code, result.outcome];
};

describe('toLockLogError', () => {
  it('maps etcd errors by their text, whatever class etcd3 gave them', () => {
    expect(mapped(new GRPCOutOfRangeError('11 OUT_OF_RANGE: etcdserver: mvcc: required revision has been compacted'), read)).toEqual(['compacted', 'failed']);
    expect(mapped(new GRPCOutOfRangeError('11 OUT_OF_RANGE: etcdserver: mvcc: required revision is a future revision'), read)).toEqual(['future-revision', 'failed']);
    expect(mapped(new EtcdLeaseInvalidError('5 NOT_FOUND: etcdserver: requested lease not found'))).toEqual(['lease-not-found', 'failed']);
    expect(mapped(rawGrpcError(9, 'FAILED_PRECONDITION', 'etcdserver: lease already exists'))).toEqual(['lease-exists', 'failed']);
    expect(mapped(rawGrpcError(8, 'RESOURCE_EXHAUSTED', 'etcdserver: too many requests'))).toEqual(['too-many-requests', 'failed']);
    expect(mapped(rawGrpcError(3, 'INVALID_ARGUMENT', 'etcdserver: request is too large'))).toEqual(['request-too-large', 'failed']);
    expect(mapped(rawGrpcError(3, 'INVALID_ARGUMENT', 'etcdserver: duplicate key given in txn request'))).toEqual(['invalid-argument', 'failed']);
  });

  it('treats the leader errors as not-leader, refused before anything was proposed', () => {
    for (const text of ['etcdserver: no leader', 'etcdserver: leader changed', 'etcdserver: not leader']) {
      expect(mapped(new GRPCUnavailableError(`14 UNAVAILABLE: ${text}`)), text).toEqual(['not-leader', 'failed']);
    }
    expect(mapped(new GRPCUnknownError('2 UNKNOWN: raft proposal dropped'))).toEqual(['not-leader', 'failed']);
    expect(mapped(rawGrpcError(2, 'UNKNOWN', 'not a primary lessor'))).toEqual(['not-leader', 'failed']);
  });

  it('makes a write that timed out or lost its connection indeterminate, and a read merely failed', () => {
    const etcdTimeout = new GRPCUnavailableError('14 UNAVAILABLE: etcdserver: request timed out, possibly due to previous leader failure');
    expect(mapped(etcdTimeout)).toEqual(['timeout', 'indeterminate']);
    expect(mapped(etcdTimeout, read)).toEqual(['timeout', 'failed']);
    expect(mapped(new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded'))).toEqual(['timeout', 'indeterminate']);
    expect(mapped(rawGrpcError(4, 'DEADLINE_EXCEEDED', 'Deadline exceeded after 8.001s'))).toEqual(['timeout', 'indeterminate']);
    expect(mapped(rawGrpcError(14, 'UNAVAILABLE', 'Connection dropped'))).toEqual(['unavailable', 'indeterminate']);
    expect(mapped(rawGrpcError(14, 'UNAVAILABLE', 'Connection dropped'), read)).toEqual(['unavailable', 'failed']);
    expect(mapped(rawGrpcError(13, 'INTERNAL', 'Received RST_STREAM with code 2'))).toEqual(['internal', 'indeterminate']);
    expect(mapped(new Error('something else entirely'))).toEqual(['internal', 'indeterminate']);
  });

  it('knows that "No connection established" means nothing was sent', () => {
    const refused = new GRPCUnavailableError('14 UNAVAILABLE: No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1');
    expect(mapped(refused)).toEqual(['unavailable', 'failed']);
    expect(wasNeverSent(refused)).toBe(true);
    expect(wasNeverSent(toLockLogError(refused, write))).toBe(true);
    expect(wasNeverSent(rawGrpcError(14, 'UNAVAILABLE', 'Connection dropped'))).toBe(false);
  });

  it('maps a closed etcd3 client to cancelled and passes LockLogErrors through', () => {
    expect(mapped(new ClientClosedError('KV'))).toEqual(['cancelled', 'failed']);
    const own = new LockLogError('compacted', 'x');
    expect(toLockLogError(own, write)).toBe(own);
  });

  it('says what was asked, of whom, and keeps the cause', () => {
    const cause = new GRPCDeadlineExceededError('4 DEADLINE_EXCEEDED: Deadline exceeded');
    const error = toLockLogError(cause, write);
    expect(error).toBeInstanceOf(LockLogError);
    expect(error.message).toBe('timeout: txn on http://m0: 4 DEADLINE_EXCEEDED: Deadline exceeded (the write may or may not have taken effect)');
    expect((error as { cause?: unknown }).cause).toBe(cause);
    expect(toLockLogError(new EtcdLeaseInvalidError('whatever'), write).message).toContain('requested lease not found');
  });
});
