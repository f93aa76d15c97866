// The client library (ADR-10/12/13): sessions per (identity, TTL), re-entrant holds counted here, and
// the holder's view of whether it may still act. Only the outermost acquire and the last release of a
// key reach the arbiter (ADR-13).
import { LockError, isLockError } from '../lock-error.js';
import type { ArbiterApi, Grant, ReleaseRequest } from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import type { FencingToken } from '../units.js';
import { ClientSession, DEFAULT_FENCE_MARGIN_MS, type FenceReason } from './client-session.js';
import { type ClientSeams, HONEST_CLIENT_SEAMS } from './seams.js';

export interface LockClientOptions {
  readonly arbiter: ArbiterApi;
  readonly clock: Clock;
  readonly identity: string;
  /** ADR-12's margin before the TTL runs out; 1 s by default. */
  readonly fenceMarginMs?: number;
}

export interface AcquireOptions {
  readonly key: string;
  readonly className: string;
  /** The class's TTL: the session is chosen by it (ADR-10). */
  readonly ttlSeconds: number;
  readonly waitMs?: number;
  /** Required (ADR-12): called when the holder must stop acting, before the log can expire the hold. */
  readonly onFence: (reason: FenceReason) => void;
}

interface HoldState {
  readonly grant: Grant;
  readonly session: ClientSession;
  count: number;
  readonly fenceHandlers: Set<(reason: FenceReason) => void>;
}

/** One acquire's view of a hold. Release it exactly once. */
export class LockHandle {
  private released = false;

  constructor(
    private readonly client: LockClient,
    private readonly hold: HoldState,
    private readonly onFence: (reason: FenceReason) => void,
  ) {}

  get token(): FencingToken {
    return this.hold.grant.token;
  }

  get grant(): Grant {
    return this.hold.grant;
  }

  /** ADR-12: check before each unit of work. */
  canStart(): boolean {
    return !this.released && this.hold.session.canStart();
  }

  /** ADR-12: how long work started now may run before the fence; decline work that cannot finish. */
  remainingTtlMs(): number {
    return this.released ? 0 : this.hold.session.remainingTtlMs();
  }

  get fenced(): boolean {
    return this.hold.session.isFenced;
  }

  /**
   * ADR-12: the local deadline, on the client's Clock, at which onFence fires (send time of the last
   * successful keepalive + TTL - margin). It moves only forward, and only on a successful keepalive, so a
   * process outside this one may hold the holder's work to it when this one stops renewing (src/lock's
   * fence supervisor, issue 11 S4).
   */
  fenceDeadlineMs(): number {
    return this.hold.session.deadlineMs();
  }

  /** Returns whether this call reached the arbiter and deleted the hold (false for inner releases). */
  async release(): Promise<boolean> {
    if (this.released) throw new LockError('invalid-argument', `this handle for ${this.hold.grant.key} was already released`);
    this.released = true;
    this.hold.fenceHandlers.delete(this.onFence);
    return this.client.releaseHold(this.hold);
  }
}

export class LockClient {
  private readonly sessions = new Map<number, Promise<ClientSession>>();
  private readonly holds = new Map<string, HoldState>();
  /** Releases that ended with an unknown outcome, by key: settled before the key is acquired again. */
  private readonly releasesInDoubt = new Map<string, { readonly release: ReleaseRequest; readonly session: ClientSession }>();

  /**
   * `seams` is for test support only (scenarios/mutants.ts): it is deliberately not part of
   * LockClientOptions, and every production caller leaves it at the honest default.
   */
  constructor(
    private readonly options: LockClientOptions,
    private readonly seams: ClientSeams = HONEST_CLIENT_SEAMS,
  ) {}

  async acquire(request: AcquireOptions): Promise<LockHandle> {
    if (typeof request.onFence !== 'function') {
      throw new LockError('invalid-argument', 'onFence is required: a holder must be told when to stop (ADR-12)');
    }
    const existing = this.holds.get(request.key);
    if (existing !== undefined && !existing.session.isFenced) {
      if (existing.grant.className !== request.className) {
        throw new LockError('invalid-argument', `${request.key} is held here under class ${existing.grant.className}, not ${request.className}`);
      }
      existing.count += 1; // ADR-13: nested acquire costs nothing
      existing.fenceHandlers.add(request.onFence);
      return new LockHandle(this, existing, request.onFence);
    }
    await this.settleReleaseInDoubt(request.key);
    const session = await this.sessionFor(request.ttlSeconds);
    const grant = await this.options.arbiter.acquire({
      identity: this.options.identity,
      sessionId: session.sessionId,
      key: request.key,
      className: request.className,
      waitMs: request.waitMs ?? 0,
    });
    if (session.isFenced) {
      // The session died while the grant was in flight: the hold is on a lease we have given up on.
      throw new LockError('session-expired', `the session was fenced while acquiring ${request.key}; acquire again`);
    }
    const raced = this.holds.get(request.key);
    if (raced !== undefined && raced.grant.token === grant.token && !raced.session.isFenced) {
      // Two concurrent outer acquires in this process: the arbiter answered the second as re-entered.
      raced.count += 1;
      raced.fenceHandlers.add(request.onFence);
      return new LockHandle(this, raced, request.onFence);
    }
    const hold: HoldState = { grant, session, count: 1, fenceHandlers: new Set([request.onFence]) };
    this.holds.set(request.key, hold);
    return new LockHandle(this, hold, request.onFence);
  }

  /** The current hold count for a key (0 when not held here). */
  holdCount(key: string): number {
    return this.holds.get(key)?.count ?? 0;
  }

  async releaseHold(hold: HoldState): Promise<boolean> {
    hold.count -= 1;
    if (hold.count > 0) return false;
    if (this.holds.get(hold.grant.key) === hold) this.holds.delete(hold.grant.key);
    if (hold.session.isFenced) return false;
    const release = { identity: this.options.identity, sessionId: hold.session.sessionId, key: hold.grant.key, token: hold.grant.token };
    try {
      return (await this.options.arbiter.release(release)).released;
    } catch (error) {
      // A release whose outcome is unknown may still commit later. If this session acquired the key
      // again meanwhile, the arbiter would answer "already held by this session" (re-entered) with the
      // old hold, which the late release then deletes: a holder working on a hold the log no longer has
      // (found by lockstep explore, seed 8197). So the next acquire of the key settles the release first.
      if (isLockError(error, 'indeterminate') || isLockError(error, 'unavailable')) this.releasesInDoubt.set(hold.grant.key, { release, session: hold.session });
      throw error;
    }
  }

  /**
   * Re-sends a release whose outcome was unknown; the same txn is harmless if the first one landed. Only
   * the same session can be handed its old hold back, so a release on a session since fenced (its lease
   * given up) or expired needs no settling: a new session's acquire cannot re-enter that hold.
   */
  private async settleReleaseInDoubt(key: string): Promise<void> {
    const doubt = this.releasesInDoubt.get(key);
    if (doubt === undefined) return;
    if (!doubt.session.isFenced) {
      try {
        await this.options.arbiter.release(doubt.release); // throws if still unknown: acquiring now would be unsafe
      } catch (error) {
        if (!isLockError(error, 'session-expired')) throw error;
      }
    }
    this.releasesInDoubt.delete(key);
  }

  /** Closes every session: their leases are revoked, so every hold ends in one entry each. */
  async close(): Promise<void> {
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    const settled = await Promise.allSettled(sessions);
    await Promise.all(settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value.close()] : [])));
  }

  /** The live session for this TTL, opening one if there is none or the last one was fenced. */
  private async sessionFor(ttlSeconds: number): Promise<ClientSession> {
    for (let tries = 0; tries < 2; tries += 1) {
      let pending = this.sessions.get(ttlSeconds);
      if (pending === undefined) {
        pending = ClientSession.open(
          {
            arbiter: this.options.arbiter,
            clock: this.options.clock,
            identity: this.options.identity,
            marginMs: this.options.fenceMarginMs ?? DEFAULT_FENCE_MARGIN_MS,
            onFenced: (fenced, reason) => this.onSessionFenced(fenced, reason),
            seams: this.seams,
          },
          ttlSeconds,
        );
        this.sessions.set(ttlSeconds, pending);
      }
      let session: ClientSession;
      try {
        session = await pending;
      } catch (error) {
        if (this.sessions.get(ttlSeconds) === pending) this.sessions.delete(ttlSeconds);
        throw error;
      }
      if (!session.isFenced) return session;
      if (this.sessions.get(ttlSeconds) === pending) this.sessions.delete(ttlSeconds);
    }
    throw new LockError('unavailable', `could not keep a session with TTL ${ttlSeconds} s alive; the lock service may be unreachable`);
  }

  private onSessionFenced(session: ClientSession, reason: FenceReason): void {
    for (const [key, hold] of [...this.holds]) {
      if (hold.session !== session) continue;
      this.holds.delete(key);
      for (const handler of hold.fenceHandlers) handler(reason);
    }
    if (reason !== 'closed') {
      // Best effort: revoke the old lease so its holds do not read as leaks when we come back (ADR-13).
      void this.options.arbiter.closeSession({ identity: this.options.identity, sessionId: session.sessionId }).catch(() => undefined);
    }
  }
}
