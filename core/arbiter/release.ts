// Releasing a hold (ADR-10/13): one txn deletes the holder key only if it is still the hold the token
// names (its create revision, on the caller's session lease) and the epoch record is still the one the
// token's epoch was compared against. The token's epoch is judged against the record in that same txn,
// never against a cached one: a replica whose cache was older than an advance made through another
// replica answered released:false without touching the log, leaving the hold on a live session
// (issue 11, S2).
import { LockError } from '../lock-error.js';
import { type LockKey, holderKeyOf } from '../lock-key.js';
import { unpackToken } from '../token.js';
import type { FencingToken, LeaseId, Revision } from '../units.js';
import { EPOCH_RECORD_READ, type EpochState, epochUnchanged } from './epoch-state.js';
import type { LogGateway } from './log-gateway.js';
import { releaseMarkerOps } from '../audit/markers.js';

/** Epoch changes seen in one release before giving up (TigerStyle: every retry loop has a maximum). */
const MAX_EPOCH_RELOADS = 3;

export interface ReleaseOutcome {
  /** Whether this txn deleted the hold. */
  readonly released: boolean;
  /** The revision of the deleting txn, when it did. */
  readonly atRevision: Revision | undefined;
}

export async function releaseHold(gateway: LogGateway, epochState: EpochState, key: LockKey, sessionId: LeaseId, token: FencingToken): Promise<ReleaseOutcome> {
  const holderKey = holderKeyOf(key);
  const { epoch: tokenEpoch, revision } = unpackToken(token);
  for (let reloads = 0; reloads <= MAX_EPOCH_RELOADS; reloads += 1) {
    const floor = epochState.floor();
    const current = await epochState.get();
    // A token of another epoch than the record's names no hold that exists: every epoch advance deleted
    // all holds (ADR-03). The txn then only confirms the record, and deletes nothing.
    const sameEpoch = tokenEpoch === current.record.epoch;
    const response = await gateway.txn({
      compare: [
        epochUnchanged(current),
        ...(sameEpoch
          ? [
              { key: holderKey, target: 'create' as const, op: '=' as const, value: revision },
              { key: holderKey, target: 'lease' as const, op: '=' as const, value: sessionId },
            ]
          : []),
      ],
      // ADR-21: the release marker, in the same txn, is how the audit tells this release from an expiry.
      success: sameEpoch ? [{ type: 'delete', key: holderKey }, ...releaseMarkerOps(sessionId, revision)] : [],
      failure: [EPOCH_RECORD_READ],
    });
    if (response.succeeded) return sameEpoch ? { released: true, atRevision: response.header.revision } : { released: false, atRevision: undefined };
    const epochOp = response.responses[0];
    const seen = epochState.confirm(epochOp?.type === 'range' ? epochOp.kvs[0] : undefined, response.header, floor);
    if (seen.modRevision === current.modRevision) return { released: false, atRevision: undefined }; // not that hold (any more)
    // The record changed since the cache was filled (an advance through another replica): judge again.
  }
  throw new LockError('unavailable', 'the epoch kept changing during the release; retry');
}
