// The release marker (ADR-21, docs/audit.md): how the log itself tells a release from an expiry. A watch
// delete does not say why a holder key went, and both a release txn and a lease revocation delete it. So
// the release txn also puts one small key, in the same txn: one revision, no extra consensus round, no
// extra fsync. The key is per session, `/s/<session>/released`, overwritten by each release of that session,
// and lives on the session's lease, so it goes away with the session (in the revocation's revision, beside
// the session record). Its value is the revision that granted the released hold (R of the token, ADR-02),
// so a reader can check it names the hold deleted beside it.
//
// Cost per release: one more put op in the release txn, a key of at most 31 bytes (`/s/` + 19 digits +
// `/released`) and a value of at most 15 digits, so one more key version in etcd's history until the next
// compaction; at most one live marker key per live session. A lease revocation writes nothing new: its
// revision already deletes the session record `/s/<session>` beside the holds, which is the expiry's own sign.
import type { KeyValue, RequestOp } from '../ports/lock-log.js';
import { sessionKeyOf } from './records.js';
import type { LeaseId, Revision } from '../units.js';

const MARKER_SUFFIX = '/released';

/** Where a session's release marker lives. */
export function releaseMarkerKeyOf(sessionId: LeaseId): string {
  return `${sessionKeyOf(sessionId)}${MARKER_SUFFIX}`;
}

/** The ops a release txn adds to its success branch, beside the delete of the holder key (ADR-21). */
export function releaseMarkerOps(sessionId: LeaseId, grantRevision: Revision | bigint): RequestOp[] {
  return [{ type: 'put', key: releaseMarkerKeyOf(sessionId), value: grantRevision.toString(10), lease: sessionId }];
}

/** The grant revision a marker put names, or undefined when `kv` is not a well-formed release marker. */
export function readReleaseMarker(kv: KeyValue): { readonly sessionKey: string; readonly grantRevision: bigint } | undefined {
  if (!kv.key.endsWith(MARKER_SUFFIX) || !/^(0|[1-9][0-9]{0,18})$/.test(kv.value)) return undefined;
  return { sessionKey: kv.key.slice(0, -MARKER_SUFFIX.length), grantRevision: BigInt(kv.value) };
}
