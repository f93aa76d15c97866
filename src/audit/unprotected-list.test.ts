import { describe, expect, it } from 'vitest';
import type { UnprotectedRecord } from '../../core/ports/spool.js';
import { unprotectedGrants, unprotectedOverlaps } from './unprotected-list.js';

function grant(arbiterId: string, seq: number, atMs: number, key = 'cache/warm-7'): UnprotectedRecord {
  const id = `${arbiterId}/1/${seq}`;
  return { id, kind: 'grant', grantId: id, arbiterId, key, namespace: 'cache', className: 'warmer', identity: 'spiffe://w', instance: `pod-${seq}`, atMs };
}
function end(of: UnprotectedRecord, seq: number, atMs: number, endReason: 'release' | 'expiry' | 'recovery' = 'release'): UnprotectedRecord {
  return { ...of, id: `${of.arbiterId}/1/${seq}`, kind: 'end', atMs, endReason };
}

describe('the reconciliation list', () => {
  it('pairs each grant with its end, and calls one without an end open', () => {
    const a1 = grant('a', 1, 100);
    const a2 = grant('a', 2, 300);
    const grants = unprotectedGrants([a1, end(a1, 3, 200, 'expiry'), a2]);
    expect(grants.map((g) => [g.grantId, g.startMs, g.endMs, g.endReason])).toEqual([
      ['a/1/1', 100, 200, 'expiry'],
      ['a/1/2', 300, undefined, 'open'],
    ]);
  });

  it('finds two arbiters granting one key at once, and not one arbiter granting it twice in turn', () => {
    const a1 = grant('a', 1, 100);
    const b1 = grant('b', 1, 150);
    const a2 = grant('a', 2, 200); // after a1 ended: the same arbiter, in turn
    const b2 = grant('b', 2, 400, 'cache/other');
    const grants = unprotectedGrants([a1, b1, end(a1, 3, 200), a2, end(b1, 4, 250, 'recovery'), b2]);
    const overlaps = unprotectedOverlaps(grants);
    expect(overlaps.map((o) => [o.key, o.first.grantId, o.second.grantId, o.fromMs, o.toMs])).toEqual([
      ['cache/warm-7', 'a/1/1', 'b/1/1', 150, 200],
      ['cache/warm-7', 'b/1/1', 'a/1/2', 200, 250],
    ]);
  });

  it('sees no overlap between intervals that only touch (the negative control), and an open one running on', () => {
    const a1 = grant('a', 1, 100);
    const b1 = grant('b', 1, 200);
    expect(unprotectedOverlaps(unprotectedGrants([a1, end(a1, 2, 200), b1]))).toEqual([]);
    const overlaps = unprotectedOverlaps(unprotectedGrants([a1, b1]));
    expect(overlaps.map((o) => [o.fromMs, o.toMs])).toEqual([[200, undefined]]);
  });
});
