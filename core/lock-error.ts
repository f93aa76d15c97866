// Expected refusals of the lock service, typed so a caller can switch on them (STYLE.md).
import { resumeStackTraces, suspendStackTraces } from './expected-error.js';
import type { SealReason } from './ports/arbiter-api.js';

export type LockErrorCode =
  /** Bad input: key, token, TTL, identity or request shape. Nothing was read or written. */
  | 'invalid-argument'
  /** The transport did not prove the caller's identity, and the action needs a proven one (ADR-19/20). */
  | 'unauthenticated'
  /** The identity has no prefix grant covering the key (ADR-19). Same error whether or not the key exists. */
  | 'denied'
  /** No LockClass of that name in the key's namespace. */
  | 'unknown-class'
  /** The key is held by another identity, and the request did not wait (or waiting is over: see wait-timeout). */
  | 'contended'
  /** The key stayed held for the whole wait. */
  | 'wait-timeout'
  /** The key is held by the same identity under another session: a leaked hold (ADR-13). */
  | 'leak'
  /** The arbiter refuses to serve: the log was restored or replaced (ADR-03). */
  | 'sealed'
  /** The key's namespace is homed to another region (ADR-08). */
  | 'redirect'
  /** The key's range is moving between shards and takes no new grants (ADR-09). */
  | 'draining'
  /** The session's lease is gone. */
  | 'session-expired'
  /** The session does not belong to this identity. */
  | 'session-mismatch'
  /** The log could not be reached; nothing happened. */
  | 'unavailable'
  /** The log did not answer in time: the operation may or may not have happened. */
  | 'indeterminate'
  /** Force-release or epoch advance without the approvals or acknowledgements they need (ADR-20). */
  | 'approval-required'
  /** The hold named is not the one there now (force-release of a hold that changed). */
  | 'stale'
  /** The caller is at one of its limits (core/limits.ts, docs/limits.md): nothing happened; retry later or ask for a raise. */
  | 'resource-exhausted';

export class LockError extends Error {
  override readonly name = 'LockError';
  readonly code: LockErrorCode;
  /** For `redirect`: the region the key is homed to. */
  readonly region: string | undefined;
  /** For `sealed`: why. */
  readonly seal: SealReason | undefined;
  /** Kept off the error's own enumerable fields, so a serializer that copies them (pino's err) cannot write it. */
  readonly #tokens: readonly string[];

  constructor(code: LockErrorCode, message: string, details: { region?: string; seal?: SealReason; cause?: unknown; tokens?: readonly string[] } = {}) {
    // An expected refusal: no stack (expected-error.ts).
    const limit = suspendStackTraces();
    super(`${code}: ${message}`);
    resumeStackTraces(limit);
    this.code = code;
    this.region = details.region;
    this.seal = details.seal;
    this.#tokens = details.tokens ?? [];
    if (details.cause !== undefined) (this as { cause?: unknown }).cause = details.cause;
  }

  /**
   * ADR-22: token text the message quotes. The caller may be shown it (it sent it); a log line may not, so
   * the logger censors these values wherever they appear (src/logging/call-fields.ts, issue 28).
   */
  get tokens(): readonly string[] {
    return this.#tokens;
  }
}

export function isLockError(error: unknown, code?: LockErrorCode): error is LockError {
  return error instanceof LockError && (code === undefined || error.code === code);
}
