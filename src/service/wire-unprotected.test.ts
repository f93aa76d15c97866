// ADR-04 on the wire: a grant made from an arbiter's memory crosses lock.v1 marked unprotected, so the
// client (and `lockstep lock`) can tell its holder; an etcd grant crosses unmarked.
import { fromBinary, toBinary } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import type { Grant } from '../../core/ports/arbiter-api.js';
import type { FencingToken } from '../../core/units.js';
import { leaseId } from '../../core/units.js';
import { GrantSchema } from '../gen/lockstep/lock/v1/lock_pb.js';
import { grantFromWire, grantToWire } from './wire-messages.js';

const etcdGrant: Grant = { key: 'cache/warm-7', token: (1n << 48n) as FencingToken, epoch: 1, revision: 9n, sessionId: leaseId(7n), identity: 'spiffe://w', className: 'warmer', reentered: false };
const memoryGrant: Grant = { ...etcdGrant, token: 0n as FencingToken, epoch: 0, revision: 0n, sessionId: leaseId(-3n), unprotected: true };

const across = (grant: Grant): Grant => grantFromWire(fromBinary(GrantSchema, toBinary(GrantSchema, grantToWire(grant))));

describe('Grant.unprotected on the wire', () => {
  it('carries a grant from memory whole: token 0, a memory session, marked unprotected', () => {
    expect(across(memoryGrant)).toEqual(memoryGrant);
  });

  it('leaves an etcd grant unmarked (the control)', () => {
    expect(across(etcdGrant)).toEqual(etcdGrant);
    expect(across(etcdGrant).unprotected).toBeUndefined();
  });
});
