import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import type { ResponseHeader } from '../ports/lock-log.js';
import { clusterId, memberId, revision } from '../units.js';
import { SealGuard } from './seal-guard.js';

const header = (cluster: bigint, rev: bigint): ResponseHeader => ({ clusterId: clusterId(cluster), memberId: memberId(1n), revision: revision(rev), raftTerm: 2n });

function sealKind(action: () => void): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    if (isLockError(error, 'sealed')) return error.seal?.kind;
    throw error;
  }
}

describe('SealGuard (ADR-03)', () => {
  it('seals on a header from another cluster, and stays sealed', () => {
    const guard = new SealGuard();
    guard.bindCluster(0xaan);
    guard.observe(header(0xaan, 10n), guard.floor());
    expect(sealKind(() => guard.observe(header(0xbbn, 11n), guard.floor()))).toBe('cluster-id-mismatch');
    expect(sealKind(() => guard.observe(header(0xaan, 12n), guard.floor()))).toBe('cluster-id-mismatch');
  });

  it('seals when a request sent after seeing revision R is answered below R', () => {
    const guard = new SealGuard();
    guard.bindCluster(1n);
    guard.observe(header(1n, 100n), guard.floor());
    const floor = guard.floor();
    expect(sealKind(() => guard.observe(header(1n, 40n), floor))).toBe('revision-regression');
  });

  it('does not seal when concurrent requests complete out of revision order', () => {
    const guard = new SealGuard();
    guard.bindCluster(1n);
    const floorOfSlowRead = guard.floor(); // sent first, answered last
    guard.observe(header(1n, 101n), guard.floor());
    expect(sealKind(() => guard.observe(header(1n, 100n), floorOfSlowRead))).toBeUndefined();
  });

  it('does not apply the revision rule to headers from a possibly lagging member', () => {
    const guard = new SealGuard();
    guard.bindCluster(1n);
    guard.observe(header(1n, 100n), guard.floor());
    expect(sealKind(() => guard.observe(header(1n, 90n), undefined))).toBeUndefined();
  });

  it('opens again after an epoch advance binds a new cluster and revision', () => {
    const guard = new SealGuard();
    guard.bindCluster(1n);
    guard.observe(header(1n, 100n), guard.floor());
    expect(sealKind(() => guard.observe(header(2n, 5n), guard.floor()))).toBe('cluster-id-mismatch');
    guard.reset(2n, 6n);
    expect(sealKind(() => guard.observe(header(2n, 7n), guard.floor()))).toBeUndefined();
    expect(guard.sealed).toBeUndefined();
  });
});
