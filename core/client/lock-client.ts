// The client library (ADR-10/12/13): sessions per (identity, instance, TTL), re-entrant holds counted here, and
// the holder's view of whether it may still act. Only the outermost acquire and the last release of a
// key reach the arbiter (ADR-13).
import { assert } from '../assert.js';
import { LockError, isLockError } from '../lock-error.js';
import type { ArbiterApi, Grant } from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import type { FencingToken, LeaseId } from '../units.js';
import { ClientSession, DEFAULT_FENCE_MARGIN_MS, type FenceReason } from './client-session.js';
import { KeyTraffic } from './key-traffic.js';
import { type ClientSeams, HONEST_CLIENT_SEAMS } from './seams.js';
import { Settler } from './settle.js';

/** Answers naming a hold this process was releasing, in one acquire (TigerStyle: every retry loop has a maximum). */
const MAX_STALE_ANSWERS = 3;
/** Acquires answered `indeterminate` sent again inside one wait (TigerStyle: a maximum on every retry). */
const MAX_IN_DOUBT_RETRIES = 3;

export interface LockClientOptions {
  readonly arbiter: ArbiterApi;
  readonly clock: Clock;
  readonly identity: string;
  /**
   * Which replica of the identity's workload this client is (issue 29): replicas sharing a SPIFFE ID queue
   * as distinct holders, while one instance acquiring a key it holds from a second session is a leak
   * (ADR-13). A label, not a credential. Default '': the workload's one unnamed instance.
   */
  readonly instance?: string;
  /** ADR-12's margin before the TTL runs out; 1 s by default. */
  readonly fenceMarginMs?: number;
  /**
   * Observes every session fence, after its holds' onFence handlers and before the library's best-effort
   * revoke of the lease is sent. For recorders (the release gate's client, src/gate/client): a handle
   * already released gets no onFence, yet its hold stays in the log until the release lands, and the
   * session's fence is its deadline (ADR-12); a recorder that polled for it instead saw the revoke first.
   */
  readonly onSessionFenced?: (fence: { readonly sessionId: LeaseId; readonly reason: FenceReason }) => void;
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
  /** What is in flight to the arbiter per key (S1). */
  private readonly traffic = new KeyTraffic();
  private readonly settler: Settler;

  /**
   * `seams` is for test support only (scenarios/mutants.ts): it is deliberately not part of
   * LockClientOptions, and every production caller leaves it at the honest default.
   */
  constructor(
    private readonly options: LockClientOptions,
    private readonly seams: ClientSeams = HONEST_CLIENT_SEAMS,
  ) {
    this.settler = new Settler({ arbiter: options.arbiter, clock: options.clock, identity: options.identity, traffic: this.traffic, holdsKey: (key) => this.holds.has(key) });
  }

  async acquire(request: AcquireOptions): Promise<LockHandle> {
    if (typeof request.onFence !== 'function') {
      throw new LockError('invalid-argument', 'onFence is required: a holder must be told when to stop (ADR-12)');
    }
    const nested = this.nestedAcquire(request);
    if (nested !== undefined) return nested;
    let deadlineMs: number | undefined; // the wait counts from the first send; an acquire sent again asks for what is left
    let doubt: unknown; // the last `indeterminate` answer of this acquire, if one was sent again after it
    for (let tries = 1; ; tries += 1) {
      // S1: a key whose release is in flight or in doubt is not acquired again until that release has
      // settled: the arbiter would answer "re-entered" with the hold the release then deletes.
      await this.settler.beforeAcquire(request.key);
      const session = await this.sessionFor(request.ttlSeconds);
      const again = this.nestedAcquire(request); // another task of this process may have acquired it meanwhile
      if (again !== undefined) return again;
      deadlineMs ??= this.options.clock.now() + (request.waitMs ?? 0);
      const ticket = this.traffic.beginAcquire(request.key);
      let grant: Grant;
      let releasing: boolean;
      try {
        grant = await this.options.arbiter.acquire({
          sessionId: session.sessionId,
          key: request.key,
          className: request.className,
          waitMs: Math.max(0, deadlineMs - this.options.clock.now()),
        });
        releasing = this.traffic.releasedDuring(ticket, grant.token);
      } catch (error) {
        // A retry refused outright (the range began to drain, say) does not undo the doubt of the call
        // before it: that one may have granted, so its `indeterminate` stays the answer, and the settler
        // resolves it (swarm seeds 574, 2116, 4238: answered `draining` with the first call's grant in the log).
        if (!isLockError(error, 'indeterminate')) throw doubt ?? error;
        doubt = error;
        // L2: the grant may have committed on this live session with no handle to own it: resolve it.
        this.settler.doubtAcquire(request.key, session);
        // An acquire on the same session is answered with the hold if there is one (the settler keeps an
        // orphan for ORPHAN_HOLD_GRACE_MS for just this), so while the wait has time left, ask again: the
        // arbiter the wait was in line on may have died (its stream cancelled after the call was sent),
        // and the transport sends the next call to another one (issue 12: a waiter of a killed arbiter
        // was answered indeterminate, `lockstep lock` exit 5, instead of moving its wait).
        if (tries >= MAX_IN_DOUBT_RETRIES || this.options.clock.now() >= deadlineMs || session.isFenced) throw error;
        continue;
      } finally {
        this.traffic.endAcquire(ticket);
      }
      if (session.isFenced) {
        // The session died while the grant was in flight: the hold is on a lease we have given up on.
        throw new LockError('session-expired', `the session was fenced while acquiring ${request.key}; acquire again`);
      }
      if (!releasing) return this.holdFrom(request, session, grant);
      // S1: answered with a hold whose release this process sent meanwhile (a re-entered answer found it
      // before the release landed): the release deletes it. Settle that release and ask again.
      if (tries >= MAX_STALE_ANSWERS) throw new LockError('unavailable', `${request.key} was answered ${tries} times with a hold this process was releasing; retry`);
    }
  }

  /** The current hold count for a key (0 when not held here). */
  holdCount(key: string): number {
    return this.holds.get(key)?.count ?? 0;
  }

  async releaseHold(hold: HoldState): Promise<boolean> {
    assert(hold.count > 0, () => `a hold of ${hold.grant.key} released more often than it was acquired`);
    hold.count -= 1;
    if (hold.count > 0) return false;
    if (this.holds.get(hold.grant.key) === hold) this.holds.delete(hold.grant.key);
    if (hold.session.isFenced) return false;
    // The release is pending until its outcome is known; one in doubt is settled before the key is
    // acquired again, and sent again until it is known (settle.ts; found by lockstep explore, seed 8197).
    return this.settler.release({ sessionId: hold.session.sessionId, key: hold.grant.key, token: hold.grant.token }, hold.session);
  }

  /** ADR-13: a nested acquire of a key held here costs nothing; undefined when it must go to the arbiter. */
  private nestedAcquire(request: AcquireOptions): LockHandle | undefined {
    const existing = this.holds.get(request.key);
    if (existing === undefined || existing.session.isFenced) return undefined;
    if (existing.grant.className !== request.className) {
      throw new LockError('invalid-argument', `${request.key} is held here under class ${existing.grant.className}, not ${request.className}`);
    }
    existing.count += 1;
    existing.fenceHandlers.add(request.onFence);
    return new LockHandle(this, existing, request.onFence);
  }

  private holdFrom(request: AcquireOptions, session: ClientSession, grant: Grant): LockHandle {
    assert(grant.key === request.key && grant.sessionId === session.sessionId, () => `the arbiter answered an acquire of ${request.key} on session ${session.sessionId} with a grant of ${grant.key} on session ${grant.sessionId}`);
    this.traffic.resolvedAcquire(request.key); // a handle owns the key's hold now, whatever an earlier acquire in doubt made
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
            ...(this.options.instance === undefined ? {} : { instance: this.options.instance }),
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
    this.options.onSessionFenced?.({ sessionId: session.sessionId, reason });
    if (reason !== 'closed') {
      // Best effort: revoke the old lease so its holds do not read as leaks when we come back (ADR-13).
      void this.options.arbiter.closeSession({ sessionId: session.sessionId }).catch(() => undefined);
    }
  }
}
