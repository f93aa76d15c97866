// The ADR-22 signals of an arbiter, measured around the ArbiterApi port: a decorator, so the arbiter in
// core/ knows nothing of Prometheus, and the same wrapper serves `lockstep lock`'s in-process arbiter and
// the gRPC server's. Every answer passes through unchanged; what is recorded are counts and durations
// under bounded labels (class-labels.ts), never a key, a session or a token.
import type { ClassLookup } from '../../core/arbiter/policy.js';
import { isLockError } from '../../core/lock-error.js';
import type { AcquireRequest, ArbiterApi, Grant, KeepAliveRequest, ReleaseRequest, ReleaseResponse } from '../../core/ports/arbiter-api.js';
import type { Clock } from '../../core/ports/clock.js';
import { type ClassLabels, classLabels, noClassLabels } from './class-labels.js';
import { HoldBook, type TrackedHold } from './hold-book.js';
import type { ArbiterSignals } from './signals.js';

export interface InstrumentDeps {
  readonly signals: ArbiterSignals;
  readonly classes: ClassLookup;
  /** The cluster label: the name of the etcd cluster this arbiter grants on (e.g. "entity-1"). */
  readonly cluster: string;
  readonly clock: Clock;
}

export function instrumentArbiter(api: ArbiterApi, deps: InstrumentDeps): ArbiterApi {
  return new InstrumentedArbiter(api, deps);
}

class InstrumentedArbiter implements ArbiterApi {
  private readonly book = new HoldBook();

  constructor(
    private readonly api: ArbiterApi,
    private readonly deps: InstrumentDeps,
  ) {
    deps.signals.sealed.set({ cluster: deps.cluster }, 0);
  }

  async openSession(...args: Parameters<ArbiterApi['openSession']>): ReturnType<ArbiterApi['openSession']> {
    const session = await this.observe(this.api.openSession(...args));
    this.book.openSession(session.sessionId, session.ttlSeconds, this.deps.clock.now());
    return session;
  }

  async keepAlive(request: KeepAliveRequest): ReturnType<ArbiterApi['keepAlive']> {
    this.sweep();
    const sentMs = this.deps.clock.now();
    try {
      const answer = await this.observe(this.api.keepAlive(request));
      this.book.renewed(request.sessionId, sentMs); // ADR-12: a renewal counts from its send
      return answer;
    } catch (error) {
      const held = this.book.classesHeldBy(request.sessionId);
      for (const labels of held.length === 0 ? [noClassLabels(this.deps.cluster)] : held) this.deps.signals.keepaliveFailures.inc({ ...labels });
      if (isLockError(error, 'session-expired')) this.expired(this.book.closeSession(request.sessionId));
      throw error;
    }
  }

  async closeSession(request: KeepAliveRequest): Promise<void> {
    await this.observe(this.api.closeSession(request));
    // Closing revokes the lease, which ends its holds: the owner ended them, so they are not expiries.
    for (const hold of this.book.closeSession(request.sessionId)) this.holdEnded(hold);
  }

  async acquire(request: AcquireRequest): Promise<Grant> {
    this.sweep();
    const labels = classLabels(this.deps.classes, this.deps.cluster, request.key, request.className);
    const startMs = this.deps.clock.now();
    const waits = request.waitMs > 0;
    if (waits) this.deps.signals.waiters.inc({ ...labels });
    try {
      const grant = await this.observe(this.api.acquire(request));
      this.deps.signals.grantLatency.observe({ ...labels }, (this.deps.clock.now() - startMs) / 1000);
      this.deps.signals.grants.inc({ ...labels });
      if (this.book.granted(grant.sessionId, grant.key, { labels, grantedAtMs: this.deps.clock.now() })) this.deps.signals.holds.inc({ ...labels });
      return grant;
    } catch (error) {
      if (isLockError(error, 'contended') || isLockError(error, 'wait-timeout')) this.deps.signals.contended.inc({ ...labels });
      throw error;
    } finally {
      this.deps.signals.acquires.inc({ ...labels });
      if (waits) this.deps.signals.waiters.dec({ ...labels });
    }
  }

  async release(request: ReleaseRequest): Promise<ReleaseResponse> {
    const answer = await this.observe(this.api.release(request));
    const hold = this.book.ended(request.sessionId, request.key);
    if (hold !== undefined) {
      // released:false: the hold was gone before its release came (its lease expired, or it was force-released).
      if (answer.released) this.holdEnded(hold);
      else this.expired([hold]);
    }
    return answer;
  }

  validate(...args: Parameters<ArbiterApi['validate']>): ReturnType<ArbiterApi['validate']> {
    return this.observe(this.api.validate(...args));
  }

  inspect(key: string): ReturnType<ArbiterApi['inspect']> {
    return this.observe(this.api.inspect(key));
  }

  requestForceRelease(...args: Parameters<ArbiterApi['requestForceRelease']>): ReturnType<ArbiterApi['requestForceRelease']> {
    return this.observe(this.api.requestForceRelease(...args));
  }

  approveForceRelease(...args: Parameters<ArbiterApi['approveForceRelease']>): ReturnType<ArbiterApi['approveForceRelease']> {
    return this.observe(this.api.approveForceRelease(...args));
  }

  requestEpochAdvance(...args: Parameters<ArbiterApi['requestEpochAdvance']>): ReturnType<ArbiterApi['requestEpochAdvance']> {
    return this.observe(this.api.requestEpochAdvance(...args));
  }

  async approveEpochAdvance(...args: Parameters<ArbiterApi['approveEpochAdvance']>): ReturnType<ArbiterApi['approveEpochAdvance']> {
    const answer = await this.observe(this.api.approveEpochAdvance(...args));
    this.deps.signals.sealed.set({ cluster: this.deps.cluster }, 0);
    return answer;
  }

  async status(): ReturnType<ArbiterApi['status']> {
    const answer = await this.observe(this.api.status());
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

  private sweep(): void {
    this.expired(this.book.sweepExpired(this.deps.clock.now()));
  }

  private holdEnded(hold: TrackedHold): void {
    this.deps.signals.holds.dec({ ...hold.labels });
    this.deps.signals.holdDuration.observe({ ...hold.labels }, (this.deps.clock.now() - hold.grantedAtMs) / 1000);
  }

  private expired(holds: readonly TrackedHold[]): void {
    for (const hold of holds) {
      this.holdEnded(hold);
      this.deps.signals.expiriesWithoutRelease.inc({ ...(hold.labels satisfies ClassLabels) });
    }
  }
}
