// The arbiter's one retry policy for calls to the lock log (issue 12: availability under etcd faults).
//
// Measured on real etcd 3.4.23: after the leader is killed or paused, a new leader is elected in about
// 1 s, but a key stayed unavailable for about 7 s. A release txn sent to a follower is forwarded to the
// dead leader and lost; the follower answers only when etcd's request timeout (7 s) ends it, and the
// release was not sent again. And an acquire whose read met "etcdserver: leader changed" (a refusal:
// nothing was written) failed at once with `unavailable` instead of trying again inside its wait.
//
// The rule, in one place:
// - a call that is known to have written nothing (a read, or a write etcd refused: outcome 'failed' with
//   a transient code) may be sent again while the caller's deadline allows;
// - a call that is safe to apply twice may be sent again even when its outcome is unknown. A release is:
//   its txn compares the holder key's create revision and lease with the hold's own (ADR-10/13), so a
//   second copy deletes nothing the first did not. It is sent with a short per-request deadline, so a
//   copy lost with a dead leader is given up in about an election timeout, not etcd's 7 s, and the
//   adapter then starts the next copy at another member;
// - a grant txn is neither: one whose outcome is unknown is settled (grant-attempt.ts settle: a bump of
//   the session's grant guard, which every grant txn compares, with a read of the holder key in the same
//   txn), never sent again blind. Settled, a copy still on its way can no longer commit, so a grant txn
//   too goes with the short deadline: waiting out etcd's full one for a lost answer held its line's head,
//   and every waiter behind it, off a free key (issue 11, swarm seed 822).
// Pauses between sends double from RETRY_FIRST_PAUSE_MS; every loop has a maximum (TigerStyle).
import { isLockError } from '../lock-error.js';
import type { Clock } from '../ports/clock.js';
import { type LockLogErrorCode, isLockLogError } from '../ports/lock-log-error.js';

/**
 * Deadline of one send of an idempotent write (a release). etcd's election timeout is 1 s by default
 * (etcd-behaviour.md 0), and a healthy txn is answered in milliseconds (one fsync round): a send not
 * answered in this long is most likely lost with a leader, and sending another copy costs nothing.
 */
export const IDEMPOTENT_REQUEST_TIMEOUT_MS = 750;
/**
 * How long a release keeps trying, every copy included: the time a new leader needs (election timeout
 * up to 2 s randomised, plus the leader's first entry) several times over, and less than etcd's own 7 s
 * request timeout plus a copy, so a log that is really gone answers the caller no later than before.
 */
export const RELEASE_RETRY_BUDGET_MS = 8_000;
/**
 * How long a settle of a grant in doubt keeps sending copies (grant-attempt.ts settle): two or three,
 * enough to get past one lost answer. It runs when an answer is already late (a wait's end, a grant txn
 * that timed out), so it must not add a release's whole budget to it; failing, the outcome is told as
 * `indeterminate`, which is the truth.
 */
export const SETTLE_RETRY_BUDGET_MS = 2_000;
/**
 * openSession has no deadline in lock.v1: it keeps trying reads and refused lease grants this long, the
 * time a new leader needs, so an acquire that starts during an election waits it out.
 */
export const OPEN_SESSION_RETRY_BUDGET_MS = 4_000;
export const RETRY_FIRST_PAUSE_MS = 50;
export const RETRY_MAX_PAUSE_MS = 400;
/** Sends of one call at most. */
export const MAX_SENDS_PER_CALL = 40;

/** Codes after which another member, or the same one a moment later, may well answer. */
const TRANSIENT_CODES: ReadonlySet<LockLogErrorCode> = new Set(['not-leader', 'unavailable', 'timeout', 'too-many-requests']);

/** 'nothing-written': reads and refused writes only. 'idempotent': also writes whose outcome is unknown. */
export type RetryKind = 'nothing-written' | 'idempotent';

/** Whether `error`, as the gateway throws it (LockError with the LockLogError as cause), may be sent again. */
export function mayRetry(error: unknown, kind: RetryKind): boolean {
  if (!isLockError(error, 'unavailable') && !(kind === 'idempotent' && isLockError(error, 'indeterminate'))) return false;
  // Only failures of the log itself: an `unavailable` core raises on its own (the epoch kept changing,
  // the arbiter shutting down) has no LockLogError behind it and is the caller's to see.
  const cause = (error as { cause?: unknown }).cause;
  return isLockLogError(cause) && TRANSIENT_CODES.has(cause.code);
}

export interface RetryOptions {
  readonly clock: Clock;
  readonly kind: RetryKind;
  /** No send starts after this time of `clock`; the first always starts. */
  readonly deadlineMs: number;
  /** Called with each error that will be retried (a release counts its copies in doubt). */
  readonly onRetry?: (error: unknown) => void;
}

/** Sends until an answer, an error the policy does not retry, the deadline or MAX_SENDS_PER_CALL. */
export async function retryWithin<T>(options: RetryOptions, send: () => Promise<T>): Promise<T> {
  let pauseMs = RETRY_FIRST_PAUSE_MS;
  for (let sends = 1; ; sends += 1) {
    try {
      return await send();
    } catch (error) {
      const nowMs = options.clock.now();
      if (!mayRetry(error, options.kind) || sends >= MAX_SENDS_PER_CALL || nowMs + pauseMs >= options.deadlineMs) throw error;
      options.onRetry?.(error);
      await options.clock.sleep(pauseMs);
      pauseMs = Math.min(pauseMs * 2, RETRY_MAX_PAUSE_MS);
    }
  }
}
