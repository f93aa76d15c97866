// Releasing a hold (ADR-10/13): one txn deletes the holder key only if it is still the hold the token
// names (its create revision, on the caller's session lease) and the epoch record is still the one the
// token's epoch was compared against. The token's epoch is judged against the record in that same txn,
// never against a cached one: a replica whose cache was older than an advance made through another
// replica answered released:false without touching the log, leaving the hold on a live session
// (issue 11, S2).
//
// The txn is safe to send twice (a second copy compares the same create revision and lease, and deletes
// nothing the first did not), so it goes with a short per-request deadline and is sent again on a
// transient failure (log-retry.ts, issue 12): a copy lost with a dead leader no longer holds the key for
// etcd's 7 s request timeout. When a copy whose outcome was unknown did land, the next copy's compare
// fails: its failure branch reads the session's release marker (ADR-21), which names the hold the last
// release of the session deleted, so the answer is read from the log, not guessed.
import { LockError, isLockError } from '../lock-error.js';
import { type LockKey, holderKeyOf } from '../lock-key.js';
import { unpackToken } from '../token.js';
import type { FencingToken, LeaseId, Revision } from '../units.js';
import { EPOCH_RECORD_READ, type EpochState, epochUnchanged } from './epoch-state.js';
import type { LogGateway } from './log-gateway.js';
import { releaseMarkerKeyOf, releaseMarkerOps } from './release-marker.js';
import type { Clock } from '../ports/clock.js';
import type { TxnResponse } from '../ports/lock-log.js';
import { IDEMPOTENT_REQUEST_TIMEOUT_MS, RELEASE_RETRY_BUDGET_MS, retryWithin } from './log-retry.js';

/** Epoch changes seen in one release before giving up (TigerStyle: every retry loop has a maximum). */
const MAX_EPOCH_RELOADS = 3;

export interface ReleaseOutcome {
  /** Whether this txn deleted the hold. */
  readonly released: boolean;
  /** The revision of the deleting txn, when it did. */
  readonly atRevision: Revision | undefined;
}

export async function releaseHold(gateway: LogGateway, epochState: EpochState, key: LockKey, sessionId: LeaseId, token: FencingToken, clock: Clock): Promise<ReleaseOutcome> {
  const holderKey = holderKeyOf(key);
  const markerKey = releaseMarkerKeyOf(sessionId);
  const { epoch: tokenEpoch, revision } = unpackToken(token);
  const deadlineMs = clock.now() + RELEASE_RETRY_BUDGET_MS;
  /** A copy of this release got no answer: it may have landed. */
  let copyInDoubt = false;
  for (let reloads = 0; reloads <= MAX_EPOCH_RELOADS; reloads += 1) {
    const floor = epochState.floor();
    const current = await retryWithin({ clock, kind: 'nothing-written', deadlineMs }, () => epochState.get());
    // A token of another epoch than the record's names no hold that exists: every epoch advance deleted
    // all holds (ADR-03). The txn then only confirms the record, and deletes nothing.
    const sameEpoch = tokenEpoch === current.record.epoch;
    const onRetry = (error: unknown) => {
      if (isLockError(error, 'indeterminate')) copyInDoubt = true;
    };
    const response: TxnResponse = await retryWithin({ clock, kind: 'idempotent', deadlineMs, onRetry }, () =>
      gateway.txn({
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
        failure: [EPOCH_RECORD_READ, { type: 'range', key: markerKey }],
        timeoutMs: IDEMPOTENT_REQUEST_TIMEOUT_MS,
      }),
    );
    if (response.succeeded) return sameEpoch ? { released: true, atRevision: response.header.revision } : { released: false, atRevision: undefined };
    const [epochOp, markerOp] = response.responses;
    const seen = epochState.confirm(epochOp?.type === 'range' ? epochOp.kvs[0] : undefined, response.header, floor);
    if (seen.modRevision === current.modRevision) {
      // Not that hold (any more). If a copy of this very call was in doubt and the session's marker names
      // this hold, that copy deleted it: this call released it.
      const marker = markerOp?.type === 'range' ? markerOp.kvs[0] : undefined;
      if (sameEpoch && copyInDoubt && marker !== undefined && marker.value === revision.toString(10)) return { released: true, atRevision: marker.modRevision };
      return { released: false, atRevision: undefined };
    }
    // The record changed since the cache was filled (an advance through another replica): judge again.
  }
  throw new LockError('unavailable', 'the epoch kept changing during the release; retry');
}
