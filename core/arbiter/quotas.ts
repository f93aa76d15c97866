// Per-identity quotas (issue 28, ADR-18: quotas live in the arbiter): sessions, holds, waiters, calls in
// flight and a call rate, each refused `resource-exhausted` with a message naming the limit, so a caller
// at its limit is refused and nobody else notices. The limits are core/limits.ts's defaults, raised (or
// lowered) per identity by its LockGrant documents' `limits` (docs/limits.md).
//
// The renewal path is exempt from the call quotas: keepAlive, release and closeSession keep or end what
// already exists, and a tenant flooding at its rate must not fence its own holders (ADR-12). They are
// bounded anyway, by the sessions and holds quotas.
//
// Counts are this arbiter's: what went through it. A session's count ends when it is closed, or when it
// was not renewed through here within its TTL (its lease expired, or its client renews through another
// replica); a hold's ends with its release or its session. So a count is never above the truth for
// long, and a tenant is never locked out by a hold that is gone.
import { DEFAULT_IDENTITY_LIMITS, type IdentityLimits } from '../limits.js';
import { LockError, isLockError } from '../lock-error.js';
import type { AcquireRequest, CloseSessionRequest, KeepAliveRequest, OpenSessionRequest, ReleaseRequest, Session } from '../ports/arbiter-api.js';
import type { ArbiterService, Caller } from '../ports/caller.js';
import type { Clock } from '../ports/clock.js';
import { TokenBucket } from './token-bucket.js';
import { MAX_TTL_SECONDS } from './sessions.js';

export interface QuotaOptions {
  readonly clock: Clock;
  /** The identity's limits (its grants' `limits` over the defaults); default: the platform defaults for all. */
  readonly limitsOf?: (identity: string) => IdentityLimits;
}

/** What one identity has through this arbiter now. */
class Usage {
  /** Session id (as text) -> when it expires unless renewed. Change it through setSession / endSession. */
  readonly sessions = new Map<string, number>();
  /** Key -> the session id (as text) its hold is on. */
  readonly holds = new Map<string, string>();
  opening = 0;
  waiters = 0;
  calls = 0;
  /**
   * At most the earliest expiry in `sessions`: before it nothing has expired, so the counts need no walk.
   * Every call counts (issue 30: the walk over a tenant's sessions and holds on every acquire was 2.2% of
   * serve at 64 sessions, and grows with the tenant up to its limits).
   */
  #noExpiryBeforeMs = Number.POSITIVE_INFINITY;
  /** A session ended since the holds were last walked, so a hold may be on a session that is gone. */
  #holdsMayBeOrphaned = false;
  constructor(readonly bucket: TokenBucket) {}

  setSession(id: string, expiresAtMs: number): void {
    this.sessions.set(id, expiresAtMs);
    this.#noExpiryBeforeMs = Math.min(this.#noExpiryBeforeMs, expiresAtMs);
  }

  endSession(id: string): void {
    if (this.sessions.delete(id)) this.#holdsMayBeOrphaned = true;
  }

  liveSessions(nowMs: number): number {
    if (nowMs < this.#noExpiryBeforeMs) return this.sessions.size;
    let earliestMs = Number.POSITIVE_INFINITY;
    for (const [id, expiresAtMs] of this.sessions) {
      if (expiresAtMs <= nowMs) this.endSession(id);
      else earliestMs = Math.min(earliestMs, expiresAtMs);
    }
    this.#noExpiryBeforeMs = earliestMs;
    return this.sessions.size;
  }

  liveHolds(nowMs: number): number {
    this.liveSessions(nowMs);
    if (this.#holdsMayBeOrphaned) {
      for (const [key, session] of this.holds) if (!this.sessions.has(session)) this.holds.delete(key);
      this.#holdsMayBeOrphaned = false;
    }
    return this.holds.size;
  }

  idle(): boolean {
    return this.sessions.size === 0 && this.holds.size === 0 && this.opening === 0 && this.waiters === 0 && this.calls === 0;
  }
}

const RAISE = 'ask the namespace owners to raise it in the LockGrant\'s spec.limits (docs/limits.md)';

export class QuotaGate implements ArbiterService {
  readonly #usage = new Map<string, Usage>();
  /** The table's size after its last sweep: it is swept for idle identities whenever it doubles. */
  #sweptAt = 64;

  constructor(
    private readonly inner: ArbiterService,
    private readonly options: QuotaOptions,
  ) {}

  async openSession(caller: Caller, request: OpenSessionRequest): Promise<Session> {
    return this.call(caller, async (usage, limits) => {
      const nowMs = this.options.clock.now();
      if (usage.liveSessions(nowMs) + usage.opening >= limits.sessions) {
        throw refuse(caller, `has ${usage.sessions.size + usage.opening} sessions open through this arbiter, the limit (sessions ${limits.sessions}); close sessions it no longer uses, or ${RAISE}`);
      }
      usage.opening += 1;
      try {
        const session = await this.inner.openSession(caller, request);
        usage.setSession(String(session.sessionId), this.options.clock.now() + session.ttlSeconds * 1000);
        return session;
      } finally {
        usage.opening -= 1;
      }
    });
  }

  async keepAlive(caller: Caller, request: KeepAliveRequest): Promise<{ ttlSeconds: number }> {
    const usage = this.usageOf(caller.identity);
    try {
      const answer = await this.inner.keepAlive(caller, request);
      usage.setSession(String(request.sessionId), this.options.clock.now() + answer.ttlSeconds * 1000);
      return answer;
    } catch (error) {
      if (isLockError(error, 'session-expired')) usage.endSession(String(request.sessionId));
      throw error;
    } finally {
      this.forgetIfIdle(caller.identity, usage);
    }
  }

  async closeSession(caller: Caller, request: CloseSessionRequest): Promise<void> {
    const usage = this.usageOf(caller.identity);
    try {
      await this.inner.closeSession(caller, request);
      usage.endSession(String(request.sessionId));
    } finally {
      this.forgetIfIdle(caller.identity, usage);
    }
  }

  async acquire(caller: Caller, request: AcquireRequest): ReturnType<ArbiterService['acquire']> {
    return this.call(caller, async (usage, limits) => {
      const nowMs = this.options.clock.now();
      const key = String(request.key);
      if (!usage.holds.has(key) && usage.liveHolds(nowMs) >= limits.holds) {
        throw refuse(caller, `holds ${usage.holds.size} keys through this arbiter, the limit (holds ${limits.holds}); release holds it no longer needs, or ${RAISE}`);
      }
      const waits = typeof request.waitMs === 'number' && request.waitMs > 0;
      if (waits && usage.waiters >= limits.waiters) {
        throw refuse(caller, `has ${usage.waiters} acquires waiting in line, the limit (waiters ${limits.waiters}); wait for some to be answered, or ${RAISE}`);
      }
      if (waits) usage.waiters += 1;
      try {
        const grant = await this.inner.acquire(caller, request);
        usage.holds.set(key, String(grant.sessionId));
        if (!usage.sessions.has(String(grant.sessionId))) usage.setSession(String(grant.sessionId), nowMs + 1000 * MAX_UNKNOWN_SESSION_SECONDS);
        return grant;
      } finally {
        if (waits) usage.waiters -= 1;
      }
    });
  }

  async release(caller: Caller, request: ReleaseRequest): ReturnType<ArbiterService['release']> {
    const usage = this.usageOf(caller.identity);
    try {
      const answer = await this.inner.release(caller, request);
      if (usage.holds.get(String(request.key)) === String(request.sessionId)) usage.holds.delete(String(request.key));
      return answer;
    } finally {
      this.forgetIfIdle(caller.identity, usage);
    }
  }

  validate: ArbiterService['validate'] = (caller, request) => this.call(caller, () => this.inner.validate(caller, request));
  inspect: ArbiterService['inspect'] = (caller, key) => this.call(caller, () => this.inner.inspect(caller, key));
  describeKey: ArbiterService['describeKey'] = (caller, request) => this.call(caller, () => this.inner.describeKey(caller, request));
  requestForceRelease: ArbiterService['requestForceRelease'] = (caller, request) => this.call(caller, () => this.inner.requestForceRelease(caller, request));
  approveForceRelease: ArbiterService['approveForceRelease'] = (caller, request) => this.call(caller, () => this.inner.approveForceRelease(caller, request));
  requestEpochAdvance: ArbiterService['requestEpochAdvance'] = (caller, request) => this.call(caller, () => this.inner.requestEpochAdvance(caller, request));
  approveEpochAdvance: ArbiterService['approveEpochAdvance'] = (caller, request) => this.call(caller, () => this.inner.approveEpochAdvance(caller, request));
  /** No caller to count (the answer names no key): a health probe is not a tenant's call. */
  status: ArbiterService['status'] = (caller) => this.inner.status(caller);

  /** Identities with something counted now (for tests: an idle identity is forgotten, so the map is bounded). */
  get trackedIdentities(): number {
    return this.#usage.size;
  }

  /** The call quotas (rate, calls in flight) around one call that is not on the renewal path. */
  private async call<T>(caller: Caller, run: (usage: Usage, limits: IdentityLimits) => Promise<T>): Promise<T> {
    const limits = this.limitsOf(caller.identity);
    const usage = this.usageOf(caller.identity);
    try {
      if (!usage.bucket.take(this.options.clock.now(), limits.callsPerSecond, limits.callBurst)) {
        throw refuse(caller, `is calling faster than its limit (callsPerSecond ${limits.callsPerSecond}, callBurst ${limits.callBurst}); slow down and retry with backoff, or ${RAISE}`);
      }
      if (usage.calls >= limits.concurrentCalls) {
        throw refuse(caller, `has ${usage.calls} calls in flight, the limit (concurrentCalls ${limits.concurrentCalls}); wait for answers before sending more, or ${RAISE}`);
      }
      usage.calls += 1;
      try {
        return await run(usage, limits);
      } finally {
        usage.calls -= 1;
      }
    } finally {
      this.forgetIfIdle(caller.identity, usage);
    }
  }

  private limitsOf(identity: string): IdentityLimits {
    return this.options.limitsOf?.(identity) ?? DEFAULT_IDENTITY_LIMITS;
  }

  private usageOf(identity: unknown): Usage {
    const name = String(identity);
    let usage = this.#usage.get(name);
    if (usage === undefined) {
      if (this.#usage.size >= 2 * this.#sweptAt) this.sweep();
      usage = new Usage(new TokenBucket(this.options.clock.now(), this.limitsOf(name).callBurst));
      this.#usage.set(name, usage);
    }
    return usage;
  }

  /** Forgets every idle identity (amortised: run when the table doubled), so identities that never call again do not stay. */
  private sweep(): void {
    for (const [identity, usage] of this.#usage) this.forgetIfIdle(identity, usage);
    this.#sweptAt = Math.max(64, this.#usage.size);
  }

  /** An identity with nothing counted and a full bucket is forgotten: the map holds only the active. */
  private forgetIfIdle(identity: string, usage: Usage): void {
    const nowMs = this.options.clock.now();
    const limits = this.limitsOf(identity);
    usage.liveHolds(nowMs);
    if (usage.idle() && usage.bucket.full(nowMs, limits.callsPerSecond, limits.callBurst)) this.#usage.delete(identity);
  }
}

/** A hold on a session opened through another arbiter: counted for the longest TTL (ADR-11), unless renewed here. */
const MAX_UNKNOWN_SESSION_SECONDS = MAX_TTL_SECONDS;

function refuse(caller: Caller, what: string): LockError {
  return new LockError('resource-exhausted', `${caller.identity.slice(0, 256)} ${what}`);
}
