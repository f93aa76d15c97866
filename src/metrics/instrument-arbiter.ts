// The ADR-22 signals of an arbiter, measured around its server side (ArbiterService: every call with its
// transport's Caller, ADR-19): a decorator, so the arbiter in core/ knows nothing of Prometheus, and the
// same wrapper serves `lockstep lock`'s in-process arbiter (through actingAs) and the gRPC server's. Every answer passes through unchanged; what is recorded are counts and durations
// under bounded labels (class-labels.ts), never a key, a session or a token.
import type { ClassLookup } from '../../core/arbiter/policy.js';
import { isLockError } from '../../core/lock-error.js';
import type { AcquireRequest, ArbiterApi, CloseSessionRequest, Grant, KeepAliveRequest, ReleaseRequest, ReleaseResponse } from '../../core/ports/arbiter-api.js';
import type { ArbiterService, Caller } from '../../core/ports/caller.js';
import type { Clock } from '../../core/ports/clock.js';
import { type ClassLabels, classLabels, noClassLabels } from './class-labels.js';
import { HoldBook, type HoldToConfirm, type TrackedHold } from './hold-book.js';
import type { ArbiterSignals } from './signals.js';
import { TTL_DEFAULT_SECONDS } from '../../core/classes/index.js';

export interface InstrumentDeps {
  readonly signals: ArbiterSignals;
  readonly classes: ClassLookup;
  /** The cluster label: the name of the etcd cluster this arbiter grants on (e.g. "entity-1"). */
  readonly cluster: string;
  readonly clock: Clock;
  /**
   * Where the hold book reads a hold back (confirm): the arbiter below any per-tenant quota and call log, so
   * metrics' own reads neither spend the holder's quota nor appear as its calls. Default: the wrapped api.
   */
  readonly readBack?: ArbiterService;
}

export function instrumentArbiter(api: ArbiterService, deps: InstrumentDeps): ArbiterService {
  return new InstrumentedArbiter(api, deps);
}

const SWEEP_INTERVAL_MS = 1_000;
/** Holds read back from the log per sweep (a limit on the reads metrics may cost, issue 29). */
const MAX_CONFIRMATIONS_PER_SWEEP = 64;

type Args<M extends keyof ArbiterService> = Parameters<ArbiterService[M]>;

class InstrumentedArbiter implements ArbiterService {
  private readonly book = new HoldBook();
  private lastSweepMs = Number.NEGATIVE_INFINITY;
  private confirming = false;

  constructor(
    private readonly api: ArbiterService,
    private readonly deps: InstrumentDeps,
  ) {
    deps.signals.sealed.set({ cluster: deps.cluster }, 0);
  }

  async openSession(...args: Args<'openSession'>): ReturnType<ArbiterApi['openSession']> {
    const session = await this.observe(this.api.openSession(...args));
    this.book.openSession(session.sessionId, session.ttlSeconds, this.deps.clock.now());
    return session;
  }

  async keepAlive(caller: Caller, request: KeepAliveRequest): ReturnType<ArbiterApi['keepAlive']> {
    this.sweep();
    const sentMs = this.deps.clock.now();
    try {
      const answer = await this.observe(this.api.keepAlive(caller, request));
      this.book.renewed(request.sessionId, answer.ttlSeconds, sentMs); // ADR-12: a renewal counts from its send
      return answer;
    } catch (error) {
      const held = this.book.classesHeldBy(request.sessionId);
      for (const labels of held.length === 0 ? [noClassLabels(this.deps.cluster)] : held) this.deps.signals.keepaliveFailures.inc(labels);
      if (isLockError(error, 'session-expired')) this.expired(this.book.closeSession(request.sessionId));
      throw error;
    }
  }

  async closeSession(caller: Caller, request: CloseSessionRequest): Promise<void> {
    await this.observe(this.api.closeSession(caller, request));
    // Closing revokes the lease, which ends its holds: the owner ended them, so they are not expiries.
    for (const hold of this.book.closeSession(request.sessionId)) this.holdEnded(hold);
  }

  async acquire(caller: Caller, request: AcquireRequest): Promise<Grant> {
    this.sweep();
    const labels = classLabels(this.deps.classes, this.deps.cluster, request.key, request.className);
    const startMs = this.deps.clock.now();
    const waits = request.waitMs > 0;
    if (waits) this.deps.signals.waiters.inc(labels);
    try {
      const grant = await this.observe(this.api.acquire(caller, request));
      this.deps.signals.grantLatency.observe(labels, (this.deps.clock.now() - startMs) / 1000);
      this.deps.signals.grants.inc(labels);
      if (grant.unprotected === true && !grant.reentered) this.deps.signals.unprotectedGrants.inc(labels); // ADR-04
      // Issue 29: counted here, by the arbiter that granted it, whichever arbiter its session was opened on.
      const ttlSeconds = this.deps.classes.get(grant.key.slice(0, grant.key.indexOf('/')), grant.className)?.ttlSeconds ?? TTL_DEFAULT_SECONDS; // its class was removed by a reload: the platform default
      const tracked = this.book.granted(grant.sessionId, grant.key, { labels, grantedAtMs: this.deps.clock.now(), ttlSeconds, caller });
      if (tracked.ended !== undefined) this.expired([tracked.ended]); // the key's last hold ended unseen
      if (tracked.counted) this.deps.signals.holds.inc(labels);
      return grant;
    } catch (error) {
      if (isLockError(error, 'contended') || isLockError(error, 'wait-timeout')) this.deps.signals.contended.inc(labels);
      throw error;
    } finally {
      this.deps.signals.acquires.inc(labels);
      if (waits) this.deps.signals.waiters.dec(labels);
    }
  }

  async release(caller: Caller, request: ReleaseRequest): Promise<ReleaseResponse> {
    this.sweep();
    const answer = await this.observe(this.api.release(caller, request));
    const hold = this.book.ended(request.sessionId, request.key);
    if (hold !== undefined) {
      // released:false: the hold was gone before its release came (its lease expired, or it was force-released).
      if (answer.released) this.holdEnded(hold);
      else this.expired([hold]);
    }
    return answer;
  }

  validate(...args: Args<'validate'>): ReturnType<ArbiterApi['validate']> {
    return this.observe(this.api.validate(...args));
  }

  inspect(...args: Args<'inspect'>): ReturnType<ArbiterApi['inspect']> {
    return this.observe(this.api.inspect(...args));
  }

  describeKey(...args: Args<'describeKey'>): ReturnType<ArbiterApi['describeKey']> {
    return this.observe(this.api.describeKey(...args));
  }

  requestForceRelease(...args: Args<'requestForceRelease'>): ReturnType<ArbiterApi['requestForceRelease']> {
    return this.observe(this.api.requestForceRelease(...args));
  }

  approveForceRelease(...args: Args<'approveForceRelease'>): ReturnType<ArbiterApi['approveForceRelease']> {
    return this.observe(this.api.approveForceRelease(...args));
  }

  requestEpochAdvance(...args: Args<'requestEpochAdvance'>): ReturnType<ArbiterApi['requestEpochAdvance']> {
    return this.observe(this.api.requestEpochAdvance(...args));
  }

  async approveEpochAdvance(...args: Args<'approveEpochAdvance'>): ReturnType<ArbiterApi['approveEpochAdvance']> {
    const answer = await this.observe(this.api.approveEpochAdvance(...args));
    this.deps.signals.sealed.set({ cluster: this.deps.cluster }, 0); // the advance opens the log again (ADR-03)
    return answer;
  }

  async status(caller: Caller): ReturnType<ArbiterApi['status']> {
    const answer = await this.observe(this.api.status(caller));
    this.deps.signals.sealed.set({ cluster: this.deps.cluster }, answer.sealed === undefined ? 0 : 1);
    return answer;
  }

  /** Every answer passes here: a `sealed` refusal from any call sets the seal gauge (ADR-03). */
  private async observe<T>(call: Promise<T>): Promise<T> {
    try {
      return await call;
    } catch (error) {
      if (isLockError(error, 'sealed')) this.deps.signals.sealed.set({ cluster: this.deps.cluster }, 1);
      throw error;
    }
  }

  /** At most once a second: the sweep walks every tracked session, and acquires come thousands a second. */
  private sweep(): void {
    const nowMs = this.deps.clock.now();
    if (nowMs - this.lastSweepMs < SWEEP_INTERVAL_MS) return;
    this.lastSweepMs = nowMs;
    this.expired(this.book.sweepExpired(nowMs));
    if (!this.confirming) void this.confirm(this.book.dueForConfirmation(nowMs, MAX_CONFIRMATIONS_PER_SWEEP));
  }

  /**
   * Issue 29: holds whose session renews through another arbiter are read back from the log once a TTL
   * (inspect, as their own caller); one the log no longer holds ended without a release seen here.
   */
  private async confirm(due: readonly HoldToConfirm[]): Promise<void> {
    if (due.length === 0) return;
    this.confirming = true;
    try {
      for (const hold of due) {
        // A read that fails says nothing: the hold is asked again a TTL later.
        const stillHeld = await (this.deps.readBack ?? this.api).inspect(hold.caller, hold.key).then((answer) => answer.holder === undefined ? false : answer.holder.sessionId === hold.sessionId, () => true);
        const ended = this.book.confirmed(hold, stillHeld, this.deps.clock.now());
        if (ended !== undefined) this.expired([ended]);
      }
    } finally {
      this.confirming = false;
    }
  }

  private holdEnded(hold: TrackedHold): void {
    this.deps.signals.holds.dec(hold.labels);
    this.deps.signals.holdDuration.observe(hold.labels, (this.deps.clock.now() - hold.grantedAtMs) / 1000);
  }

  private expired(holds: readonly TrackedHold[]): void {
    for (const hold of holds) {
      this.holdEnded(hold);
      this.deps.signals.expiriesWithoutRelease.inc(hold.labels satisfies ClassLabels);
    }
  }
}
