// Every failure of an etcd call becomes a LockLogError with a code a caller can switch on and an outcome
// saying whether a write may have happened (ARCHITECTURE.md, ports; STYLE.md: indeterminate outcomes are
// first-class). Two shapes arrive here: etcd3's typed errors from unary calls (etcd3 turns the gRPC status
// into a class and keeps "<code> <NAME>: <details>" as the message) and raw grpc-js errors from streams
// (with a numeric `code` and `details`). etcd's own error texts (etcdserver/api/v3rpc/rpctypes/error.go)
// are stable across 3.4 and 3.5, so they are matched first; the gRPC status code is the fallback.
import {
  ClientClosedError,
  EtcdLeaseInvalidError,
  GRPCCancelledError,
  GRPCDeadlineExceededError,
  GRPCInvalidArgumentError,
  GRPCResourceExhastedError,
  GRPCUnavailableError,
} from 'etcd3';
import { LockLogError, type LockLogErrorCode } from '../../core/ports/lock-log-error.js';
import { tlsFailureOf } from './tls-failure.js';

/** gRPC status codes (grpc/doc/statuscodes.md). */
const GrpcStatus = { cancelled: 1, invalidArgument: 3, deadlineExceeded: 4, resourceExhausted: 8, outOfRange: 11, unavailable: 14 } as const;

interface Rule {
  readonly text: string;
  readonly code: LockLogErrorCode;
  /** True when etcd refused the request before it could take effect, so even a write certainly failed. */
  readonly refused: boolean;
}

// Order matters where one text contains another.
const ETCD_RULES: readonly Rule[] = [
  { text: 'required revision has been compacted', code: 'compacted', refused: true },
  { text: 'required revision is a future revision', code: 'future-revision', refused: true },
  { text: 'requested lease not found', code: 'lease-not-found', refused: true },
  { text: 'lease already exists', code: 'lease-exists', refused: true },
  { text: 'too large lease TTL', code: 'invalid-argument', refused: true },
  { text: 'etcdserver: too many requests', code: 'too-many-requests', refused: true },
  { text: 'etcdserver: request is too large', code: 'request-too-large', refused: true },
  { text: 'etcdserver: no leader', code: 'not-leader', refused: true },
  { text: 'etcdserver: not leader', code: 'not-leader', refused: true },
  { text: 'etcdserver: leader changed', code: 'not-leader', refused: true },
  { text: 'raft proposal dropped', code: 'not-leader', refused: true },
  { text: 'not a primary lessor', code: 'not-leader', refused: true },
  { text: 'etcdserver: unhealthy cluster', code: 'unavailable', refused: true },
  { text: 'database space exceeded', code: 'internal', refused: true },
  // The three "request timed out" variants: the proposal may still commit (etcd-behaviour.md 2.2).
  { text: 'etcdserver: request timed out', code: 'timeout', refused: false },
  { text: 'etcdserver: request cancelled', code: 'cancelled', refused: false },
  { text: 'etcdserver: server stopped', code: 'unavailable', refused: false },
  // grpc-js found no connection to send on: nothing left this process.
  { text: 'No connection established', code: 'unavailable', refused: true },
];

function grpcStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'number') return code;
  if (error instanceof GRPCUnavailableError) return GrpcStatus.unavailable;
  if (error instanceof GRPCDeadlineExceededError) return GrpcStatus.deadlineExceeded;
  if (error instanceof GRPCCancelledError) return GrpcStatus.cancelled;
  if (error instanceof GRPCInvalidArgumentError) return GrpcStatus.invalidArgument;
  if (error instanceof GRPCResourceExhastedError) return GrpcStatus.resourceExhausted;
  const leading = /^(?:\w+: )?(\d{1,2}) [A-Z_]+: /.exec(error instanceof Error ? error.message : '');
  return leading?.[1] === undefined ? undefined : Number(leading[1]);
}

function ruleForStatus(status: number | undefined): Rule {
  switch (status) {
    case GrpcStatus.deadlineExceeded:
      return { text: '', code: 'timeout', refused: false };
    case GrpcStatus.unavailable:
      return { text: '', code: 'unavailable', refused: false };
    case GrpcStatus.cancelled:
      return { text: '', code: 'cancelled', refused: false };
    case GrpcStatus.invalidArgument:
      return { text: '', code: 'invalid-argument', refused: true };
    case GrpcStatus.resourceExhausted:
      return { text: '', code: 'too-many-requests', refused: false };
    default:
      return { text: '', code: 'internal', refused: false };
  }
}

function messageOf(error: unknown): string {
  // etcd3 builds this one as `Lease ${message} is expired or revoked`, which reads badly.
  if (error instanceof EtcdLeaseInvalidError) return 'etcdserver: requested lease not found';
  if (error instanceof Error) {
    const details = (error as { details?: unknown }).details;
    return typeof details === 'string' && details !== '' && !error.message.includes(details) ? `${error.message} (${details})` : error.message;
  }
  return String(error);
}

function classify(error: unknown): Rule {
  if (error instanceof EtcdLeaseInvalidError) return { text: '', code: 'lease-not-found', refused: true };
  if (error instanceof ClientClosedError) return { text: '', code: 'cancelled', refused: true };
  const message = messageOf(error);
  return ETCD_RULES.find((rule) => message.includes(rule.text)) ?? ruleForStatus(grpcStatusOf(error));
}

export interface CallContext {
  /** What was asked and of whom, for the message: "txn on http://127.0.0.1:2379". */
  readonly description: string;
  /** True for calls that change state (writes, lease grant/revoke/keepalive, compact). */
  readonly mutates: boolean;
}

/** The LockLogError for a failed etcd call. A LockLogError passes through unchanged. */
export function toLockLogError(error: unknown, context: CallContext): LockLogError {
  if (error instanceof LockLogError) return error;
  const rule = classify(error);
  const outcome = context.mutates && !rule.refused ? 'indeterminate' : 'failed';
  const suffix = outcome === 'indeterminate' ? ' (the write may or may not have taken effect)' : '';
  const message = messageOf(error);
  return new LockLogError(rule.code, `${context.description}: ${tlsFailureOf(message) ?? message}${suffix}`, { outcome, cause: error });
}

/** True when the request certainly never reached etcd, so another endpoint may be tried at once. */
export function wasNeverSent(error: unknown): boolean {
  if (error instanceof ClientClosedError) return false;
  const cause = error instanceof LockLogError ? (error as { cause?: unknown }).cause : error;
  return messageOf(cause).includes('No connection established');
}
