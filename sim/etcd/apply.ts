// Applying one committed Raft entry to a member's etcd state (etcdserver/apply.go applierV3backend.Apply
// l.111-176). Every member applies the same entries in the same order and must end in the same state,
// which stateDigest() checks. Reads (Range, read-only Txn), renewals and TimeToLive are not entries: the
// member serves them from state.store / state.lessor directly.
import type { ResponseOp, TxnRequest } from '../../core/ports/lock-log.js';
import type { LeaseId, Revision } from '../../core/units.js';
import { Lessor, type LeaseCheckpoint, type LessorConfig } from './lessor.js';
import { MvccStore } from './mvcc-store.js';
import { succeed, type Outcome } from './outcome.js';
import { executeTxn } from './txn.js';
import { WatchHub } from './watch-hub.js';

export { describeState, stateDigest } from './state-digest.js';

export interface EtcdState {
  readonly store: MvccStore;
  readonly lessor: Lessor;
  readonly watches: WatchHub;
}

export interface EtcdStateConfig {
  readonly lessor?: LessorConfig;
}

/** A fresh member: store at revision 1, no leases, not primary, no watchers. */
export function createEtcdState(config: EtcdStateConfig = {}): EtcdState {
  const lessor = new Lessor(config.lessor);
  const store = new MvccStore(lessor);
  return { store, lessor, watches: new WatchHub(store) };
}

/**
 * The state a snapshot holds (issue 16): what replaying the applied log into a fresh state would build,
 * copied without the replay. Independent of `state`; a fresh watch hub (watches are not state).
 */
export function copyEtcdState(state: EtcdState): EtcdState {
  const lessor = state.lessor.copyAsReplayed();
  const store = state.store.copy(lessor);
  return { store, lessor, watches: new WatchHub(store) };
}

/** The requests that travel as Raft entries (pb.InternalRaftRequest, the subset the port uses). */
export type EtcdRequest =
  | { readonly kind: 'txn'; readonly txn: TxnRequest }
  /** The id is chosen by the receiving member before proposing (v3_server.go LeaseGrant l.253-264). */
  | { readonly kind: 'lease-grant'; readonly id: LeaseId; readonly ttlSeconds: number }
  | { readonly kind: 'lease-revoke'; readonly id: LeaseId }
  | { readonly kind: 'lease-checkpoint'; readonly checkpoints: readonly LeaseCheckpoint[] }
  | { readonly kind: 'compaction'; readonly revision: Revision };

/** The port's response shapes without the header. */
export type EtcdResponseBody =
  | { readonly kind: 'txn'; readonly succeeded: boolean; readonly responses: readonly ResponseOp[] }
  | { readonly kind: 'lease-grant'; readonly id: LeaseId; readonly ttlSeconds: number }
  | { readonly kind: 'lease-revoke' }
  | { readonly kind: 'lease-checkpoint' }
  | { readonly kind: 'compaction' };

export interface Applied {
  readonly body: EtcdResponseBody;
  /** The header revision: the store revision after the apply (apply.go Txn l.383-389, newHeader l.1029). */
  readonly revision: Revision;
}

/**
 * Applies one entry. `nowMs` is the member's clock at apply time: a primary starts a granted lease's
 * expiry then (lessor.go Grant l.303-307) and schedules checkpoints from it. Errors are etcd's:
 * lease-not-found, lease-exists, compacted (with compactRevision), future-revision, invalid-argument
 * (a TTL above MaxLeaseTTL). A failed entry changes nothing.
 */
export function applyRequest(state: EtcdState, request: EtcdRequest, nowMs: number): Outcome<Applied> {
  const body = applyBody(state, request, nowMs);
  if (!body.ok) return body;
  return succeed({ body: body.value, revision: state.store.currentRevision() });
}

function applyBody(state: EtcdState, request: EtcdRequest, nowMs: number): Outcome<EtcdResponseBody> {
  switch (request.kind) {
    case 'txn': {
      const result = executeTxn(state.store, state.lessor, request.txn);
      return result.ok ? succeed({ kind: 'txn', ...result.value }) : result;
    }
    case 'lease-grant': {
      const granted = state.lessor.grant(request.id, request.ttlSeconds, nowMs);
      return granted.ok ? succeed({ kind: 'lease-grant', ...granted.value }) : granted;
    }
    case 'lease-revoke': {
      // The RangeDeleter is the store itself, so the revoke's deletes reach watchers as one batch.
      const revoked = state.lessor.revoke(request.id, state.store);
      return revoked.ok ? succeed({ kind: 'lease-revoke' }) : revoked;
    }
    case 'lease-checkpoint':
      // applierV3backend.LeaseCheckpoint (apply.go l.606-614): a missing lease is skipped, never an error.
      for (const checkpoint of request.checkpoints) state.lessor.checkpoint(checkpoint.id, checkpoint.remainingTtlSeconds, nowMs);
      return succeed({ kind: 'lease-checkpoint' });
    case 'compaction': {
      const compacted = state.store.compact(request.revision);
      return compacted.ok ? succeed({ kind: 'compaction' }) : compacted;
    }
  }
}
