import { describe, expect, it } from 'vitest';
import { sessionKeyOf } from './records.js';
import { leaseId, revision } from '../units.js';
import { readReleaseMarker, releaseMarkerKeyOf, releaseMarkerOps } from './release-marker.js';

describe('release markers (ADR-21)', () => {
  it('are one put on the session lease, under the session record, naming the released hold', () => {
    const session = leaseId(2n ** 62n + 5n);
    expect(releaseMarkerOps(session, revision(1234n))).toEqual([{ type: 'put', key: `${sessionKeyOf(session)}/released`, value: '1234', lease: session }]);
    // The stated cost: the longest marker key is 31 bytes (a lease id has at most 19 digits).
    expect(releaseMarkerKeyOf(leaseId(2n ** 63n - 1n)).length).toBe(31);
  });

  it('read back only from a well-formed marker', () => {
    const kv = (key: string, value: string) => ({ key, value, createRevision: revision(9n), modRevision: revision(9n), version: 1n, lease: leaseId(5n) });
    expect(readReleaseMarker(kv(releaseMarkerKeyOf(leaseId(5n)), '1234'))).toEqual({ sessionKey: sessionKeyOf(leaseId(5n)), grantRevision: 1234n });
    for (const [key, value] of [[releaseMarkerKeyOf(leaseId(5n)), ''], [releaseMarkerKeyOf(leaseId(5n)), '01'], [releaseMarkerKeyOf(leaseId(5n)), '12a'], ['/s/5', '1234']] as const) {
      expect(readReleaseMarker(kv(key, value))).toBeUndefined();
    }
  });
});
