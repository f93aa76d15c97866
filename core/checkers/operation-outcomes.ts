// How a lock client's error goes into a history (issue 15, docs/history-format.md): `fail` only where the
// operation certainly took no effect, `info` (unknown outcome) for everything else. Calling an indeterminate
// answer a failure is how a history of a correct service comes out illegal: a grant that did commit,
// recorded as failed, holds the key in the log while the model thinks it free. The gate's client
// (src/gate/client) and the simulator's prediction of the gate (scenarios/gate-prediction.ts) both record
// through these, so a refusal means the same in the measured and the predicted history.
import { isLockError } from '../lock-error.js';

/** Refusals of an acquire that grant nothing (the arbiter decided, and answered). */
const ACQUIRE_DEFINITE = new Set(['contended', 'wait-timeout', 'denied', 'unknown-class', 'invalid-argument', 'leak', 'sealed', 'redirect', 'draining']);

export interface Outcome {
  readonly type: 'fail' | 'info';
  readonly value: { readonly error: string };
}

const codeOf = (error: unknown): string => (isLockError(error) ? error.code : error instanceof Error ? error.name : 'error');

/** An acquire that threw. `indeterminate`, `unavailable`, `session-expired` (the grant may be on the lease) and anything unknown: info. */
export function acquireOutcome(error: unknown): Outcome {
  const code = codeOf(error);
  return { type: isLockError(error) && ACQUIRE_DEFINITE.has(error.code) ? 'fail' : 'info', value: { error: code } };
}

/**
 * A release that threw. `session-expired`: the lease and its holds were gone, so this release deleted
 * nothing (fail). In doubt (indeterminate, unavailable) or unknown: info.
 */
export function releaseOutcome(error: unknown): Outcome {
  const code = codeOf(error);
  return { type: isLockError(error, 'session-expired') ? 'fail' : 'info', value: { error: code } };
}

/** A write that threw (not a fence refusal, which is an answer): it may have reached the resource. */
export function writeOutcome(error: unknown): Outcome {
  return { type: 'info', value: { error: codeOf(error) } };
}
