// ADR-10/12: one session per (identity, instance, TTL), renewed by one keepalive every TTL/3, and the holder's
// two-stage reaction to losing contact:
// - at the first failed keepalive, canStart() turns false: in-flight work may finish, no new work starts;
// - at deadline = send time of the last successful keepalive + TTL - margin, onFence fires.
// The deadline is measured from *send* time: the leader renewed the lease no earlier than we sent,
// so our deadline precedes the leader's expiry for that keepalive (ADR-12's lesson).
import { CancelSource, CancelledError } from '../cancel.js';
import { isLockError } from '../lock-error.js';
import type { ArbiterApi } from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import type { LeaseId } from '../units.js';
import { MS_PER_SECOND } from '../units.js';
import { type ClientSeams, HONEST_CLIENT_SEAMS } from './seams.js';

export const DEFAULT_FENCE_MARGIN_MS = 1000; // ADR-12: "TTL minus a one-second margin"
/** After a failed keepalive, retry at this interval (bounded by TTL/3) rather than waiting a full period. */
const RETRY_AFTER_FAILURE_MS = 500;

export type FenceReason = 'deadline' | 'session-expired' | 'closed';

export interface SessionDeps {
  readonly arbiter: ArbiterApi;
  readonly clock: Clock;
  readonly identity: string;
  /** This replica's instance label (issue 29); '' or absent: none named. */
  readonly instance?: string;
  readonly marginMs: number;
  /** Called once when the session is fenced; the client then forgets it. */
  readonly onFenced: (session: ClientSession, reason: FenceReason) => void;
  /** Test support only (scenarios/mutants.ts); the honest default otherwise. */
  readonly seams?: ClientSeams;
}

export class ClientSession {
  private lastOkSendMs: number;
  private renewalFailing = false;
  private fenced: FenceReason | undefined;
  private readonly stop = new CancelSource();
  /** Keepalives sent and failed, for tests and metrics. */
  keepalivesSent = 0;
  keepalivesFailed = 0;

  private constructor(
    private readonly deps: SessionDeps,
    readonly sessionId: LeaseId,
    readonly ttlSeconds: number,
    openSentMs: number,
  ) {
    this.lastOkSendMs = openSentMs;
  }

  static async open(deps: SessionDeps, ttlSeconds: number): Promise<ClientSession> {
    const sentMs = deps.clock.now();
    // Named only when there is one: a client naming none sends what it always sent.
    const session = await deps.arbiter.openSession({ ttlSeconds, ...(deps.instance === undefined || deps.instance === '' ? {} : { instance: deps.instance }) });
    const renewedAtMs = (deps.seams ?? HONEST_CLIENT_SEAMS).renewedAtMs(sentMs, deps.clock.now());
    const client = new ClientSession(deps, session.sessionId, session.ttlSeconds, renewedAtMs);
    void client.keepAliveLoop();
    void client.fenceTimer();
    return client;
  }

  get isFenced(): boolean {
    return this.fenced !== undefined;
  }

  /** ADR-12 stage one: false from the first failed keepalive until one succeeds again, and after the deadline. */
  canStart(): boolean {
    return this.fenced === undefined && !this.renewalFailing && this.deps.clock.now() < this.deadlineMs();
  }

  /** The local deadline at which the holder must stop (ADR-12). */
  deadlineMs(): number {
    return this.lastOkSendMs + this.ttlSeconds * MS_PER_SECOND - this.deps.marginMs;
  }

  /** How long a unit of work started now may run before the fence. */
  remainingTtlMs(): number {
    return this.fenced === undefined ? Math.max(0, this.deadlineMs() - this.deps.clock.now()) : 0;
  }

  /** Ends the session: keepalives stop and the lease is revoked, releasing every hold at once (ADR-10). */
  async close(): Promise<void> {
    if (this.fenced === undefined) this.fence('closed');
    await this.deps.arbiter.closeSession({ sessionId: this.sessionId }).catch(() => undefined);
  }

  private periodMs(): number {
    return (this.ttlSeconds * MS_PER_SECOND) / 3;
  }

  private async keepAliveLoop(): Promise<void> {
    // The first keepalive is due a period after the open was *sent*, like every later one after its
    // send: counting from the answer let a slow open be fenced before its first keepalive (quorum-loss).
    let waitMs = Math.max(0, this.lastOkSendMs + this.periodMs() - this.deps.clock.now());
    while (this.fenced === undefined) {
      if (!(await this.pause(waitMs))) return;
      const sentMs = this.deps.clock.now();
      this.keepalivesSent += 1;
      const answered = new CancelSource();
      void this.markFailingIfSlow(answered);
      try {
        await this.deps.arbiter.keepAlive({ sessionId: this.sessionId });
        answered.cancel();
        if (this.fenced !== undefined) return;
        this.lastOkSendMs = Math.max(this.lastOkSendMs, (this.deps.seams ?? HONEST_CLIENT_SEAMS).renewedAtMs(sentMs, this.deps.clock.now()));
        this.renewalFailing = false;
        waitMs = Math.max(0, sentMs + this.periodMs() - this.deps.clock.now());
      } catch (error) {
        answered.cancel();
        this.keepalivesFailed += 1;
        this.renewalFailing = true; // ADR-12 stage one
        if (isLockError(error, 'session-expired') || isLockError(error, 'sealed')) {
          this.fence('session-expired');
          return;
        }
        waitMs = Math.min(RETRY_AFTER_FAILURE_MS, this.periodMs());
      }
    }
  }

  /** A keepalive unanswered for a whole period counts as failed for canStart(), while it is still awaited. */
  private async markFailingIfSlow(answered: CancelSource): Promise<void> {
    try {
      await this.deps.clock.sleep(this.periodMs(), answered.signal);
      this.renewalFailing = true;
    } catch {
      // answered in time
    }
  }

  private async fenceTimer(): Promise<void> {
    while (this.fenced === undefined) {
      const untilDeadlineMs = this.deadlineMs() - this.deps.clock.now();
      if (untilDeadlineMs <= 0) {
        this.fence('deadline'); // ADR-12 stage two
        return;
      }
      if (!(await this.pause(untilDeadlineMs))) return;
    }
  }

  /** Sleeps; false when the session stopped meanwhile. */
  private async pause(ms: number): Promise<boolean> {
    try {
      await this.deps.clock.sleep(ms, this.stop.signal);
      return this.fenced === undefined;
    } catch (error) {
      if (error instanceof CancelledError) return false;
      throw error;
    }
  }

  private fence(reason: FenceReason): void {
    if (this.fenced !== undefined) return;
    this.fenced = reason;
    this.stop.cancel();
    this.deps.onFenced(this, reason);
  }
}
