// lock.v1's errors on the wire (proto/lockstep/lock/v1/lock.proto, ErrorDetail): a gRPC status code a
// stock client understands, and lockstep's own code in the status details for one that wants to switch
// on it. One table both ways, so the server and the network client cannot disagree.
import { Code, ConnectError } from '@connectrpc/connect';
import { LockError, type LockErrorCode } from '../../core/lock-error.js';
import type { SealReason } from '../../core/ports/arbiter-api.js';
import { ErrorCode, ErrorDetailSchema, type SealReason as WireSealReason, SealReason_Kind } from '../gen/lockstep/lock/v1/lock_pb.js';

const TABLE: Record<LockErrorCode, readonly [ErrorCode, Code]> = {
  'invalid-argument': [ErrorCode.INVALID_ARGUMENT, Code.InvalidArgument],
  denied: [ErrorCode.DENIED, Code.PermissionDenied],
  unauthenticated: [ErrorCode.UNAUTHENTICATED, Code.Unauthenticated],
  'unknown-class': [ErrorCode.UNKNOWN_CLASS, Code.NotFound],
  contended: [ErrorCode.CONTENDED, Code.Aborted],
  'wait-timeout': [ErrorCode.WAIT_TIMEOUT, Code.Aborted],
  leak: [ErrorCode.LEAK, Code.AlreadyExists],
  sealed: [ErrorCode.SEALED, Code.FailedPrecondition],
  redirect: [ErrorCode.REDIRECT, Code.FailedPrecondition],
  draining: [ErrorCode.DRAINING, Code.Unavailable],
  'session-expired': [ErrorCode.SESSION_EXPIRED, Code.NotFound],
  'session-mismatch': [ErrorCode.SESSION_MISMATCH, Code.PermissionDenied],
  unavailable: [ErrorCode.UNAVAILABLE, Code.Unavailable],
  // gRPC's DEADLINE_EXCEEDED says the operation may have completed: exactly lockstep's in-doubt outcome.
  indeterminate: [ErrorCode.INDETERMINATE, Code.DeadlineExceeded],
  'approval-required': [ErrorCode.APPROVAL_REQUIRED, Code.FailedPrecondition],
  stale: [ErrorCode.STALE, Code.Aborted],
  'resource-exhausted': [ErrorCode.RESOURCE_EXHAUSTED, Code.ResourceExhausted],
};

const BY_WIRE = new Map<ErrorCode, LockErrorCode>(Object.entries(TABLE).map(([code, [wire]]) => [wire, code as LockErrorCode]));

/** The message without LockError's `code: ` prefix, which the detail carries on its own. */
function bareMessage(error: LockError): string {
  return error.message.startsWith(`${error.code}: `) ? error.message.slice(error.code.length + 2) : error.message;
}

export function toConnectError(error: LockError): ConnectError {
  const [wire, status] = TABLE[error.code];
  const message = bareMessage(error);
  return new ConnectError(message, status, undefined, [
    { desc: ErrorDetailSchema, value: { code: wire, message, region: error.region ?? '', ...(error.seal === undefined ? {} : { seal: sealToWire(error.seal) }) } },
  ]);
}

/**
 * The LockError a server sent, or undefined when the error carries no lockstep detail (the connection
 * failed, a proxy answered, the deadline passed on the client): those the caller classifies itself.
 */
export function fromConnectError(error: ConnectError): LockError | undefined {
  const detail = error.findDetails(ErrorDetailSchema)[0];
  const code = detail === undefined ? undefined : BY_WIRE.get(detail.code);
  if (detail === undefined || code === undefined) return undefined;
  const seal = detail.seal === undefined ? undefined : sealFromWire(detail.seal);
  return new LockError(code, detail.message, { ...(detail.region === '' ? {} : { region: detail.region }), ...(seal === undefined ? {} : { seal }) });
}

function sealToWire(seal: SealReason): { kind: SealReason_Kind; expected: string; seen: string } {
  switch (seal.kind) {
    case 'cluster-id-mismatch':
      return { kind: SealReason_Kind.CLUSTER_ID_MISMATCH, expected: seal.expected.toString(), seen: seal.seen.toString() };
    case 'revision-regression':
      return { kind: SealReason_Kind.REVISION_REGRESSION, expected: seal.highestSeen.toString(), seen: seal.seen.toString() };
    case 'epoch-regression':
      return { kind: SealReason_Kind.EPOCH_REGRESSION, expected: String(seal.highestSeen), seen: String(seal.seen) };
    case 'no-epoch-record':
      return { kind: SealReason_Kind.NO_EPOCH_RECORD, expected: '', seen: '' };
  }
}

export function sealFromWire(seal: WireSealReason): SealReason | undefined {
  const big = (text: string): bigint => (/^[0-9]+$/.test(text) ? BigInt(text) : 0n);
  switch (seal.kind) {
    case SealReason_Kind.CLUSTER_ID_MISMATCH:
      return { kind: 'cluster-id-mismatch', expected: big(seal.expected), seen: big(seal.seen) };
    case SealReason_Kind.REVISION_REGRESSION:
      return { kind: 'revision-regression', highestSeen: big(seal.expected), seen: big(seal.seen) };
    case SealReason_Kind.EPOCH_REGRESSION:
      return { kind: 'epoch-regression', highestSeen: Number(big(seal.expected)), seen: Number(big(seal.seen)) };
    case SealReason_Kind.NO_EPOCH_RECORD:
      return { kind: 'no-epoch-record' };
    default:
      return undefined;
  }
}

export { sealToWire };
