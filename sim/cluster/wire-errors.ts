// The errors a member answers with, in etcd's own words (etcdserver/errors.go, lease/lessor.go,
// v3rpc/rpctypes/error.go), classified the way the real adapter's error-mapping.ts classifies them:
// `refused` errors certainly did not take effect; the others may have (a timed-out write).
import type { LockLogError } from '../../core/ports/lock-log-error.js';
import type { WireError } from './protocol.js';

const refused = (code: WireError['code'], message: string): WireError => ({ code, message, refused: true });

/** ErrTimeout: the proposal or read did not finish within ReqTimeout; a write may still commit. */
export const REQUEST_TIMED_OUT: WireError = { code: 'timeout', message: 'etcdserver: request timed out', refused: false };
/** ErrTimeoutDueToLeaderFail (server.go parseProposeCtxErr): the request started around a leader change. */
export const TIMED_OUT_LEADER_FAIL: WireError = { code: 'timeout', message: 'etcdserver: request timed out, possibly due to previous leader failure', refused: false };
/** ErrTimeoutWaitAppliedIndex (v3_server.go waitAppliedIndex). */
export const APPLY_WAIT_TIMED_OUT: WireError = { code: 'timeout', message: 'etcdserver: request timed out, waiting for the applied index took too long', refused: false };
/** ErrNoLeader (waitLeader ran out of time). */
export const NO_LEADER = refused('not-leader', 'etcdserver: no leader');
/** ErrLeaderChanged (a ReadIndex round saw a new leader). */
export const LEADER_CHANGED = refused('not-leader', 'etcdserver: leader changed');
/** lease.ErrNotPrimary, which v3rpc leaves unmapped (codes.Unknown). */
export const NOT_PRIMARY = refused('not-leader', 'not a primary lessor');
/** raft.ErrProposalDropped (a leader transfer is in progress). */
export const PROPOSAL_DROPPED = refused('not-leader', 'raft proposal dropped');
export const TOO_MANY_REQUESTS = refused('too-many-requests', 'etcdserver: too many requests');
export const REQUEST_TOO_LARGE = refused('request-too-large', 'etcdserver: request is too large');

/** An error the etcd state machines answered (apply or validation): etcd refused it, nothing changed. */
export function refusedBy(error: LockLogError): WireError {
  const message = error.message.startsWith(`${error.code}: `) ? error.message.slice(error.code.length + 2) : error.message;
  return error.compactRevision === undefined ? refused(error.code, message) : { ...refused(error.code, message), compactRevision: error.compactRevision };
}
