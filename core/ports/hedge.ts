// How a call that is safe to send twice is spread over etcd's members, by both LockLog adapters: src/etcd/
// against real etcd, sim/cluster/ against the simulated one, so the simulator predicts what the real client
// does. One rule, one place: the constants and the algorithm (hedgedCall) live here; each adapter supplies
// only its timers and how one member is asked.
// - issue 11, L6: one stuck member cost a false fence with a healthy quorum, because a keepalive waited its
//   full request deadline on the first member before failing over;
// - issue 35, swarm seed 71316: the same, through a read. A keepalive that reaches an arbiter replica which
//   did not open the session first reads the session's record (core/arbiter/sessions.ts ownedBy); that
//   range waited its 8 s deadline on the stuck member, the keepalive behind it, and two holders were fenced
//   at their deadline (ADR-12). A read changes nothing, so it is hedged as a keepalive is.
// Hedged: a lease keepalive (it renews, it writes no log entry) and every read (a range, a read-only txn, a
// lease's time-to-live). Never a write: a write sent twice could apply twice. Nor status, which describes
// the member asked.
import { LockLogError, type LockLogErrorCode } from './lock-log-error.js';

/**
 * Deadline of a keepalive, every member's attempt included. It must end inside the fence budget, so that
 * a keepalive nobody answered is given up while a retry can still renew: from a keepalive's send to the
 * fence there are 2·TTL/3 − 1 s (ADR-12), 2.33 s at the platform's minimum TTL of 5 s (ADR-11), 9 s at
 * the default 15 s. A healthy keepalive is answered by the leader without a Raft entry, in milliseconds;
 * its slow paths (the leader waiting up to 1 s for its applied index, a follower forwarding while a
 * leader is elected) are what the hedge is for, not this deadline. A hedged read keeps its own deadline.
 */
export const KEEPALIVE_TIMEOUT_MS = 2_000;

/**
 * A hedged call not answered in this long is sent to the next member too. 500 ms is many round trips on
 * any network a lock cluster runs on, and leaves a TTL-5 s holder 1.8 s of its fence budget for the next
 * member's answer.
 */
export const HEDGE_AFTER_MS = 500;

/** Answers another member would give too: a hedged call ends on them at once. */
export const HEDGE_DEFINITIVE_CODES: ReadonlySet<LockLogErrorCode> = new Set(['lease-not-found', 'invalid-argument', 'cancelled', 'compacted', 'future-revision', 'request-too-large']);

export interface HedgePlan {
  /** How many members there are, and the one asked first. */
  readonly members: number;
  readonly first: number;
  /** Ask the next member too when the last one asked has not answered in this long; Infinity: never. */
  readonly hedgeAfterMs: number;
  /** Deadline of the whole call, every member's attempt included. */
  readonly timeoutMs: number;
}

/** The adapter's own timers: the simulated process's clock, or the host's. */
export interface HedgeTimers {
  now(): number;
  /** Calls `fire` after `ms`; the returned function cancels it. */
  after(ms: number, fire: () => void): () => void;
}

/** One member asked: its answer (a LockLogError when it fails), and how to stop waiting for it. */
export interface HedgeAttempt<T> {
  readonly answer: Promise<T>;
  abandon(): void;
}

/**
 * Asks `plan.first`; when it has not answered within the hedge delay, or failed, the next member too, and
 * so on (the delay re-armed at each new member) until every member was asked. The first answer wins and
 * names its member, which the adapter makes current for later calls; the others are abandoned. Fails on a
 * failure once every member was asked (the members still silent are abandoned), on a definitive failure at
 * once, or at the deadline.
 * `ask(member, leftMs)` sends the call to `member` with `leftMs` left of the deadline.
 */
export function hedgedCall<T>(plan: HedgePlan, timers: HedgeTimers, ask: (member: number, leftMs: number) => HedgeAttempt<T>): Promise<{ readonly value: T; readonly member: number }> {
  const startedMs = timers.now();
  const attempts: HedgeAttempt<T>[] = [];
  let settled = false;
  let cancelHedge: (() => void) | undefined;
  return new Promise((resolve, reject) => {
    const finish = (outcome: { readonly value: T; readonly member: number } | LockLogError): void => {
      if (settled) return;
      settled = true;
      cancelHedge?.();
      for (const attempt of attempts) attempt.abandon(); // their late answers are ignored
      if (outcome instanceof LockLogError) reject(outcome);
      else resolve(outcome);
    };
    const askNext = (): boolean => {
      const leftMs = plan.timeoutMs - (timers.now() - startedMs);
      if (settled || attempts.length >= plan.members || leftMs <= 0) return false;
      const member = (plan.first + attempts.length) % plan.members;
      cancelHedge?.();
      cancelHedge = Number.isFinite(plan.hedgeAfterMs) ? timers.after(plan.hedgeAfterMs, askNext) : undefined;
      const attempt = ask(member, leftMs);
      attempts.push(attempt);
      attempt.answer.then(
        (value) => finish({ value, member }),
        (error: unknown) => {
          if (settled) return;
          const failed = error instanceof LockLogError ? error : new LockLogError('internal', String(error));
          if (HEDGE_DEFINITIVE_CODES.has(failed.code)) return finish(failed);
          // A member that failed is replaced at once. When none is left to ask, this failure is the answer:
          // waiting on for a member still silent held a read to its whole deadline while the healthy members
          // had answered `not-leader` in an election (issue 35, on real etcd); the caller's retry asks again.
          if (!askNext()) finish(failed);
        },
      );
      return true;
    };
    askNext();
  });
}
