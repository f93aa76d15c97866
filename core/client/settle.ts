// Calls to the arbiter whose outcome the client did not learn (a timeout: `indeterminate`, or the
// arbiter unreachable), settled until it is known (STYLE.md: unknown outcomes are first-class; issue 11,
// S1 and L2's client side). Two kinds:
// - a release in doubt may still land: a key is not acquired again until it has settled, and it is sent
//   again (the same txn is harmless if the first landed) until its outcome is known;
// - an acquire in doubt may have granted a hold on the live session that no handle owns: the holder is
//   read (inspect) and, if it is this session's and nothing here owns it, released.
// Settling stops when the session is fenced: its lease is given up (closed, or left to expire), so its
// holds end with it and no new session can be handed them back.
import { CancelledError } from '../cancel.js';
import { isLockError } from '../lock-error.js';
import type { ArbiterApi, ReleaseRequest } from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import type { ClientSession } from './client-session.js';
import type { KeyTraffic, PendingRelease } from './key-traffic.js';

/** First pause before a call in doubt is tried again, doubling up to SETTLE_MAX_PAUSE_MS. */
const SETTLE_FIRST_PAUSE_MS = 250;
const SETTLE_MAX_PAUSE_MS = 4_000;
/** Tries before giving a call in doubt up to its session's end (TigerStyle: every retry loop has a maximum). */
const MAX_SETTLE_TRIES = 1_000;
/**
 * How long a hold made by an acquire in doubt is kept for its caller before it is released. `indeterminate`
 * tells the caller to acquire again on the same session, which returns the hold if there is one; released
 * at the first read, it was gone before a caller that retried after a reconnect backoff came back, and in a
 * durable line (ADR-14) the caller had spent its turn and re-joined at the back (hot-key, durable, seed 1:
 * waiter-022's grant committed as the arbiter died; the settler released it at +250 ms, the waiter came back
 * at +530 ms and was granted after all 177 waiters behind it). One second is gRPC's initial reconnect
 * backoff: a caller that retries through its transport's reconnect is back within it.
 */
export const ORPHAN_HOLD_GRACE_MS = 1_000;

/** Errors after which a release may or may not have happened. */
export function leavesReleaseInDoubt(error: unknown): boolean {
  return isLockError(error, 'indeterminate') || isLockError(error, 'unavailable');
}

export interface SettlerDeps {
  readonly arbiter: ArbiterApi;
  readonly clock: Clock;
  readonly identity: string;
  readonly traffic: KeyTraffic;
  /** Whether a handle of this client owns a hold of `key` now. */
  readonly holdsKey: (key: string) => boolean;
}

export class Settler {
  constructor(private readonly deps: SettlerDeps) {}

  /** Sends a release; answers its first outcome. One in doubt stays pending and is settled in the background. */
  async release(request: ReleaseRequest, session: ClientSession): Promise<boolean> {
    // An earlier hold's release of this key may still be on its way: a task's acquire, sent while another
    // task held the key, was granted a new hold once that release landed, and answered before the release
    // was. Two releases of one key were then pending, a broken assertion, and this release was lost with
    // its hold on the live session (issue 11, swarm seed 1498). Settle that one first.
    await this.beforeAcquire(request.key);
    const pending = this.deps.traffic.beginRelease(request, session);
    try {
      return await this.sendOnce(pending);
    } catch (error) {
      if (this.deps.traffic.pendingRelease(request.key) === pending) void this.settleInBackground(pending);
      throw error;
    }
  }

  /**
   * Before an outer acquire of `key`: waits for a release of it in flight, and re-sends one in doubt.
   * Rejects if its outcome is still unknown: acquiring now could be answered with the hold it deletes.
   */
  async beforeAcquire(key: string): Promise<void> {
    for (let tries = 0; tries < MAX_SETTLE_TRIES; tries += 1) {
      const pending = this.deps.traffic.pendingRelease(key);
      if (pending === undefined) return;
      if (pending.inFlight !== undefined) {
        await pending.inFlight;
        continue;
      }
      if (this.giveUpWithSession(pending)) return;
      try {
        await this.sendOnce(pending);
      } catch (error) {
        if (!isLockError(error, 'session-expired')) throw error;
      }
    }
  }

  /** An acquire of `key` on `session` ended in doubt: resolve it in the background (one resolver per key). */
  doubtAcquire(key: string, session: ClientSession): void {
    if (this.deps.traffic.doubtAcquire(key, session)) void this.resolveAcquire(key, session, this.deps.clock.now() + ORPHAN_HOLD_GRACE_MS);
  }

  /** One send of a pending release; it settles unless the answer leaves it in doubt (then this rejects with that error). */
  private async sendOnce(pending: PendingRelease): Promise<boolean> {
    const sending = this.deps.arbiter.release(pending.request);
    pending.inFlight = sending.then(() => undefined, () => undefined);
    try {
      const answer = await sending;
      this.deps.traffic.settled(pending);
      return answer.released;
    } catch (error) {
      // session-expired and every definite refusal settle it: the hold went with its session, or the
      // release did not happen and cannot (sealed: the epoch advance deletes every hold).
      if (!leavesReleaseInDoubt(error)) this.deps.traffic.settled(pending);
      throw error;
    } finally {
      pending.inFlight = undefined;
    }
  }

  private async settleInBackground(pending: PendingRelease): Promise<void> {
    for (let tries = 0; tries < MAX_SETTLE_TRIES; tries += 1) {
      if (!(await this.pauseBeforeTry(tries, pending.session))) break;
      if (this.deps.traffic.pendingRelease(pending.request.key) !== pending || this.giveUpWithSession(pending)) return;
      if (pending.inFlight !== undefined) continue; // an acquire is re-sending it
      await this.sendOnce(pending).catch(() => undefined);
    }
    this.giveUpWithSession(pending);
  }

  /** A pending release on a fenced session needs no settling: a new session's acquire cannot be handed that hold. */
  private giveUpWithSession(pending: PendingRelease): boolean {
    if (!pending.session.isFenced) return false;
    this.deps.traffic.settled(pending);
    return true;
  }

  /** `keepUntilMs`: before it, a hold found unowned is left for the caller's own acquire (ORPHAN_HOLD_GRACE_MS). */
  private async resolveAcquire(key: string, session: ClientSession, keepUntilMs: number): Promise<void> {
    const { traffic } = this.deps;
    try {
      for (let tries = 0; tries < MAX_SETTLE_TRIES; tries += 1) {
        if (!(await this.pauseBeforeTry(tries, session, keepUntilMs))) return;
        if (this.deps.holdsKey(key)) return; // a later acquire was handed the hold: it is owned
        if (traffic.acquiresInFlight(key) > 0 || traffic.pendingRelease(key) !== undefined) continue; // their answers decide first
        let holder;
        try {
          holder = (await this.deps.arbiter.inspect(key)).holder;
        } catch {
          continue;
        }
        if (holder === undefined || holder.sessionId !== session.sessionId) return; // it did not grant, or that hold is gone
        // Read again after the inspect: an acquire sent meanwhile may be answered with this hold.
        if (this.deps.holdsKey(key) || traffic.acquiresInFlight(key) > 0 || traffic.pendingRelease(key) !== undefined) continue;
        // This session holds the key and no handle owns it (its caller was told the outcome is unknown): let it go.
        await this.release({ sessionId: session.sessionId, key, token: holder.token }, session).catch(() => undefined);
        return;
      }
    } finally {
      traffic.resolvedAcquire(key);
    }
  }

  /**
   * Waits before try `tries` (and at least until `notBeforeMs`); false when the session is fenced (nothing
   * left to settle) or the wait was cancelled.
   */
  private async pauseBeforeTry(tries: number, session: ClientSession, notBeforeMs = Number.NEGATIVE_INFINITY): Promise<boolean> {
    const pauseMs = Math.max(Math.min(SETTLE_FIRST_PAUSE_MS * 2 ** Math.min(tries, 8), SETTLE_MAX_PAUSE_MS), notBeforeMs - this.deps.clock.now());
    try {
      await this.deps.clock.sleep(pauseMs);
    } catch (error) {
      if (error instanceof CancelledError) return false;
      throw error;
    }
    return !session.isFenced;
  }
}
