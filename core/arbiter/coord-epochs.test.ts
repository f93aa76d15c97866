import { describe, expect, it } from 'vitest';
import type { ResponseHeader } from '../ports/lock-log.js';
import { clusterId, memberId, revision } from '../units.js';
import { coordEpochKey, formatCoordEpochRecord, judgeAgainstCoord, parseCoordEpochRecord } from './coord-epochs.js';

const header = (cluster: bigint, rev: bigint): ResponseHeader => ({ clusterId: clusterId(cluster), memberId: memberId(1n), revision: revision(rev), raftTerm: 2n });
const coord = { epoch: 4, clusterId: 7n, highestRevision: 120n };

describe('the coord cluster\'s epoch record of an entity cluster (ADR-03/07, issue 19)', () => {
  it('serves an entity log whose record, cluster ID and revision agree with the coord record', () => {
    expect(judgeAgainstCoord(coord, { epoch: 4, clusterId: 7n }, header(7n, 120n))).toBeUndefined();
    expect(judgeAgainstCoord(coord, { epoch: 4, clusterId: 7n }, header(7n, 500n))).toBeUndefined();
  });

  it('seals an old backup: the restored record names an epoch below the coord\'s', () => {
    expect(judgeAgainstCoord(coord, { epoch: 3, clusterId: 7n }, header(7n, 900n))).toEqual({ kind: 'epoch-regression', highestSeen: 4, seen: 3 });
  });

  it('seals a same-token restore: same cluster ID and epoch, but a revision below the highest handed out', () => {
    expect(judgeAgainstCoord(coord, { epoch: 4, clusterId: 7n }, header(7n, 119n))).toEqual({ kind: 'revision-regression', highestSeen: 120n, seen: 119n });
  });

  it('seals an entity log ahead of its coord record (the coord cluster was restored), a foreign cluster, and an unregistered one', () => {
    expect(judgeAgainstCoord(coord, { epoch: 5, clusterId: 7n }, header(7n, 900n))).toEqual({ kind: 'epoch-regression', highestSeen: 5, seen: 4 });
    expect(judgeAgainstCoord(coord, { epoch: 4, clusterId: 7n }, header(8n, 900n))).toEqual({ kind: 'cluster-id-mismatch', expected: 7n, seen: 8n });
    expect(judgeAgainstCoord(undefined, { epoch: 4, clusterId: 7n }, header(7n, 900n))).toEqual({ kind: 'no-epoch-record' });
  });

  it('round-trips the record and refuses malformed ones and bad cluster names', () => {
    expect(parseCoordEpochRecord(formatCoordEpochRecord(coord))).toEqual(coord);
    expect(parseCoordEpochRecord('{"epoch":0,"clusterId":"7","highestRevision":"1"}')).toBeUndefined();
    expect(parseCoordEpochRecord('{"epoch":2,"clusterId":7,"highestRevision":"1"}')).toBeUndefined();
    expect(parseCoordEpochRecord('not json')).toBeUndefined();
    expect(coordEpochKey('orders-etcd')).toBe('/sys/epochs/orders-etcd');
    expect(() => coordEpochKey('Orders/../x')).toThrow(/lower-case letters, digits or dashes/);
  });
});
