// Typed errors of the LockLog port: never a raw gRPC error (ARCHITECTURE.md, ports).
import type { Revision } from '../units.js';

export type LockLogErrorCode =
  /** The member has no leader, or lost it while the request was in flight. */
  | 'not-leader'
  /** The request's deadline passed. For a write: it may still commit. */
  | 'timeout'
  /** No member could be reached, or the stream broke. */
  | 'unavailable'
  /** The revision asked for has been compacted away. */
  | 'compacted'
  /** The revision asked for is above the current revision. */
  | 'future-revision'
  | 'lease-not-found'
  | 'lease-exists'
  | 'too-many-requests'
  | 'request-too-large'
  | 'invalid-argument'
  | 'cancelled'
  | 'internal';

/** 'failed': it did not happen. 'indeterminate': it may or may not have happened (a write that timed out). */
export type Outcome = 'failed' | 'indeterminate';

export class LockLogError extends Error {
  override readonly name = 'LockLogError';
  readonly code: LockLogErrorCode;
  readonly outcome: Outcome;
  /** For `compacted`: the compaction revision; a new watch may start there. */
  readonly compactRevision: Revision | undefined;

  constructor(code: LockLogErrorCode, message: string, options: { outcome?: Outcome; compactRevision?: Revision; cause?: unknown } = {}) {
    super(`${code}: ${message}`);
    this.code = code;
    this.outcome = options.outcome ?? 'failed';
    this.compactRevision = options.compactRevision;
    if (options.cause !== undefined) (this as { cause?: unknown }).cause = options.cause;
  }
}

export function isLockLogError(error: unknown, code?: LockLogErrorCode): error is LockLogError {
  return error instanceof LockLogError && (code === undefined || error.code === code);
}
