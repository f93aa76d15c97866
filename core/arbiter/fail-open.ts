// ADR-04: failing open for efficiency classes. An arbiter learns that no etcd majority answers the way it
// fails closed: its log calls time out or report no leader until the caller's budget is spent (log-retry.ts
// mayRetry). For a class that declared `onQuorumLoss: open` (only an efficiency class may: class check
// refuses it elsewhere) it then grants from its own memory (memory-grants.ts) with token 0, which every
// fence refuses (core/fence/fence-rule.ts), marks the grant `unprotected`, and writes each grant and its
// end to the spool before it answers. Correctness classes stay closed: their acquires still go to etcd.
// While the outage lasts it asks etcd once a poll interval for a majority read; when one answers, every
// memory grant ends (its holder is told as a fence: its memory session is gone), new grants come from etcd
// again, and the spool is shipped to the audit store (unprotected-shipping.ts).
import { CancelSource, CancelledError, type CancelSignal } from '../cancel.js';
import { LockError } from '../lock-error.js';
import type { LockKey } from '../lock-key.js';
import type { Grant, KeepAliveResponse, ReleaseResponse, Session } from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import type { Spool, UnprotectedRecord, UnprotectedStore } from '../ports/spool.js';
import type { WallClock } from '../ports/wall-clock.js';
import { type FencingToken, type LeaseId, type Revision } from '../units.js';
import type { LogGateway } from './log-gateway.js';
import { toLockError } from './log-gateway.js';
import { IDEMPOTENT_REQUEST_TIMEOUT_MS, OPEN_SESSION_RETRY_BUDGET_MS, mayRetry } from './log-retry.js';
import { MemoryGrants, type MemoryHold } from './memory-grants.js';
import { MemorySessions, isMemorySessionId } from './memory-sessions.js';
import type { ArbiterClass } from './policy.js';
import { EPOCH_KEY, type SessionRecord } from './records.js';
import { endOf, shipSpool } from './unprotected-shipping.js';

/** The token of every grant from memory: below every token etcd mints (ADR-02: revisions start at 1). */
export const UNPROTECTED_TOKEN = 0n as FencingToken;

/** What an arbiter needs to fail open (ArbiterOptions.unprotected). */
export interface UnprotectedOptions {
  readonly spool: Spool;
  readonly store: UnprotectedStore;
  readonly arbiterId: string;
  /** Tells this run of the arbiter from earlier ones (a restart counter, a random id): spool ids never repeat. */
  readonly incarnation: string;
  /** Stamps the records, which people read in the reconciliation list. */
  readonly wallClock: WallClock;
}

export interface FailOpenDeps {
  readonly clock: Clock;
  readonly shutdown: CancelSignal;
  readonly pollIntervalMs: number;
  /** The arbiter's gateway: its failures raise the suspicion, and a majority read through it settles it. */
  readonly gateway: LogGateway;
  /** An etcd session's record from the arbiter's cache (SessionDirectory.ownedBy). */
  readonly etcdSession: (sessionId: LeaseId, identity: string) => Promise<SessionRecord>;
  /** Which classes fail open (seams.ts): honest, opensOnQuorumLoss. */
  readonly opens: (lockClass: ArbiterClass) => boolean;
}

/** A read-only txn, which etcd answers only with a majority (linearizable), sent with a short deadline. */
export function majorityRead(gateway: LogGateway): Promise<unknown> {
  return gateway.txn({ compare: [], success: [{ type: 'range', key: EPOCH_KEY, limit: 1 }], failure: [], timeoutMs: IDEMPOTENT_REQUEST_TIMEOUT_MS });
}

/**
 * The one reading of a log failure as "no majority answers" (a timeout, no leader: what the arbiter would
 * retry), for the suspicion, the outage's start and the majority reads alike. A refusal that is an answer
 * (sealed, ADR-03) is not one.
 */
function saysNoMajority(error: unknown): boolean {
  return mayRetry(toLockError(error), 'idempotent');
}

export function opensOnQuorumLoss(lockClass: Pick<ArbiterClass, 'onQuorumLoss'>): boolean {
  return lockClass.onQuorumLoss === 'open';
}

/**
 * How long majority reads must keep failing, once a log call failed, before the outage begins: the time a
 * new leader needs (log-retry.ts), so an election alone does not open anything.
 */
export const QUORUM_LOSS_CONFIRM_MS = OPEN_SESSION_RETRY_BUDGET_MS;
/** Between majority reads while the loss is only suspected: an election's length is what is being measured. */
const SUSPECT_PROBE_MS = 500;
/**
 * The latest an openSession sent when the quorum is already gone is answered from memory (issue 33): the
 * confirmation, and the probe that sees it through (a pause and a majority read that times out). A lock.v1
 * client's call deadline (8 s, DEFAULT_CALL_TIMEOUT_MS of the network arbiter, src/client/network-arbiter.ts) must exceed it, with room for a loaded host.
 */
export const QUORUM_LOSS_DETECT_MS = QUORUM_LOSS_CONFIRM_MS + SUSPECT_PROBE_MS + IDEMPOTENT_REQUEST_TIMEOUT_MS;

export class FailOpen {
  private outage = false;
  /** When a log call first failed with no majority since the last good majority read; undefined: no suspicion. */
  private suspectSinceMs: number | undefined;
  private readonly outageWaiters: (() => void)[] = [];
  /** Records from an earlier run, or not yet shipped: the quorum watch runs until they are. */
  private unshipped = false;
  private watching = false;
  private seq = 0;
  private readonly sessions: MemorySessions;
  private readonly grants: MemoryGrants;

  constructor(private readonly options: UnprotectedOptions, private readonly deps: FailOpenDeps) {
    this.sessions = new MemorySessions(deps.clock, `${options.arbiterId}/${options.incarnation}`);
    this.grants = new MemoryGrants({
      clock: deps.clock,
      newId: () => this.newId(),
      record: (hold) => options.spool.append(this.recordOf(hold, 'grant')),
      recordEnd: (hold, endReason) => options.spool.append({ ...this.recordOf(hold, 'end'), endReason }),
    });
    deps.gateway.reportFailuresTo((error) => this.suspect(error));
    void this.shipLeftovers();
  }

  get inOutage(): boolean {
    return this.outage;
  }

  /** Whether `error` (what the etcd path threw, its budget spent) says no majority answers; if so, the outage begins. */
  quorumLost(error: unknown): boolean {
    if (!saysNoMajority(error)) return false;
    this.beginOutage();
    return true;
  }

  /** A log call failed: if for want of a majority, majority reads now tell within QUORUM_LOSS_CONFIRM_MS whether it is lost. */
  suspect(error: unknown): void {
    if (saysNoMajority(error)) this.suspectFrom(this.deps.clock.now());
  }

  /**
   * An acquire of an open class on its way through etcd when the outage begins is answered from memory
   * instead (its wait would otherwise run out against a log that cannot answer). Should the etcd path
   * still commit later, that hold is its session's, and ends with the session's lease (ADR-10).
   */
  unlessOutage(viaEtcd: Promise<Grant>, lockClass: ArbiterClass, fromMemory: () => Promise<Grant>): Promise<Grant> {
    return this.deps.opens(lockClass) ? this.raceOutage(viaEtcd, fromMemory) : viaEtcd;
  }

  /**
   * An openSession (issue 33): its etcd path (`viaEtcd`) raced against the outage, answered from memory once
   * the loss is confirmed. Its lease grant goes with etcd's whole deadline (ReqTimeout, 7 s) and fails no
   * sooner, so waiting for that failure answered the first caller of an outage after about 7 s, past a
   * lock.v1 client's own call deadline (8 s, less its start-up): `lockstep lock` exited 5, indeterminate.
   * Unanswered after IDEMPOTENT_REQUEST_TIMEOUT_MS, the call raises the suspicion instead, counted from its
   * send, and majority reads settle it within QUORUM_LOSS_DETECT_MS: an election alone still opens nothing.
   * A lease etcd grants after all is nobody's: nothing renews it and it expires by its TTL (ADR-10).
   */
  async openSessionUnlessOutage(identity: string, instance: string, ttlSeconds: number, viaEtcd: () => Promise<Session>): Promise<Session> {
    const fromMemory = (): Session => this.sessions.open(identity, instance, ttlSeconds);
    if (this.outage) return fromMemory();
    const answered = new CancelSource();
    void this.suspectIfUnanswered(this.deps.clock.now(), answered.signal);
    try {
      return await this.raceOutage(viaEtcd(), () => Promise.resolve(fromMemory()));
    } catch (error) {
      if (this.quorumLost(error)) return fromMemory();
      throw error;
    } finally {
      answered.cancel();
    }
  }

  /** Whether an acquire of `lockClass` whose etcd path threw `error` is granted from memory instead. */
  failsOpen(error: unknown, lockClass: ArbiterClass): boolean {
    return this.deps.opens(lockClass) && this.quorumLost(error);
  }

  /** An acquire this arbiter answers from memory: a memory session's, or an open class's during an outage. */
  servesFromMemory(sessionId: LeaseId, lockClass: ArbiterClass): boolean {
    return isMemorySessionId(sessionId) || (this.outage && this.deps.opens(lockClass));
  }

  openSession(identity: string, instance: string, ttlSeconds: number): Session {
    return this.sessions.open(identity, instance, ttlSeconds);
  }

  keepAlive(identity: string, sessionId: LeaseId): KeepAliveResponse {
    return { ttlSeconds: this.sessions.renew(sessionId, identity) };
  }

  /** Ends the session's holds from memory (its spooled ends written); forgets a memory session. */
  async closeSession(identity: string, sessionId: LeaseId): Promise<void> {
    if (isMemorySessionId(sessionId)) this.sessions.ownedBy(sessionId, identity);
    this.sessions.forget(sessionId);
    await this.grants.endSession(sessionId, new LockError('session-expired', `session ${sessionId} was closed`), 'release');
  }

  async acquire(identity: string, key: LockKey, lockClass: ArbiterClass, sessionId: LeaseId, waitMs: number): Promise<Grant> {
    await this.expireSessions();
    if (!this.deps.opens(lockClass)) {
      throw new LockError('unavailable', `class ${lockClass.namespace}/${lockClass.name} fails closed (ADR-04) and session ${sessionId} is one this arbiter opened from memory while no etcd majority answered; retry once the quorum is back`);
    }
    const session = isMemorySessionId(sessionId) ? this.sessions.ownedBy(sessionId, identity) : this.sessions.track(sessionId, await this.deps.etcdSession(sessionId, identity));
    if (session.ttlSeconds !== lockClass.ttlSeconds) {
      throw new LockError('invalid-argument', `session ${sessionId} has TTL ${session.ttlSeconds} s but class ${lockClass.namespace}/${lockClass.name} needs ${lockClass.ttlSeconds} s; one session per (identity, TTL) (ADR-10/11)`);
    }
    const ask = { key: key.text, namespace: key.namespace, className: lockClass.name, identity, instance: session.instance, sessionId };
    const { reentered } = await this.grants.acquire(ask, waitMs);
    return { key: key.text, token: UNPROTECTED_TOKEN, epoch: 0, revision: 0n as Revision, sessionId, identity, className: lockClass.name, reentered, unprotected: true };
  }

  /** A release of a grant from memory (token 0); its end is spooled before the answer. */
  async release(identity: string, key: LockKey, sessionId: LeaseId): Promise<ReleaseResponse> {
    if (this.grants.holdOf(key.text, sessionId)?.ask.identity !== identity) return { released: false };
    return { released: await this.grants.end(key.text, sessionId, 'release') };
  }

  /** Grants held from memory now (metrics, tests). */
  get holds(): readonly MemoryHold[] {
    return this.grants.holds;
  }

  private async expireSessions(): Promise<void> {
    for (const sessionId of this.sessions.takeExpired()) {
      await this.grants.endSession(sessionId, new LockError('session-expired', `session ${sessionId} expired`), 'expiry');
    }
  }

  /** `viaEtcd`'s answer, or `fromMemory`'s once the outage begins (the etcd path's later outcome is dropped). */
  private raceOutage<T>(viaEtcd: Promise<T>, fromMemory: () => Promise<T>): Promise<T> {
    const outage = new Promise<void>((begun) => (this.outage ? begun() : this.outageWaiters.push(begun)));
    return Promise.race([viaEtcd.then((value) => ({ value })), outage.then(() => undefined)]).then((won) => {
      if (won !== undefined) return won.value;
      viaEtcd.catch(() => undefined);
      return fromMemory();
    });
  }

  /** A call sent at `sentMs` and not answered within IDEMPOTENT_REQUEST_TIMEOUT_MS raises the suspicion from its send. */
  private async suspectIfUnanswered(sentMs: number, answered: CancelSignal): Promise<void> {
    try {
      await this.deps.clock.sleep(IDEMPOTENT_REQUEST_TIMEOUT_MS, answered);
    } catch (error) {
      if (error instanceof CancelledError) return;
      throw error;
    }
    this.suspectFrom(sentMs);
  }

  private suspectFrom(sinceMs: number): void {
    if (this.outage || this.suspectSinceMs !== undefined) return;
    this.suspectSinceMs = sinceMs;
    void this.watchQuorum();
  }

  /** While suspected, in outage, or with records to ship: a majority read each interval; the outage begins or ends on its answers. */
  private async watchQuorum(): Promise<void> {
    if (this.watching) return;
    this.watching = true;
    try {
      while ((this.outage || this.unshipped || this.suspectSinceMs !== undefined) && !this.deps.shutdown.aborted) {
        await this.deps.clock.sleep(this.outage ? this.deps.pollIntervalMs : SUSPECT_PROBE_MS, this.deps.shutdown);
        await this.expireSessions();
        if (!(await this.majorityAnswers())) {
          if (this.suspectSinceMs !== undefined && this.deps.clock.now() - this.suspectSinceMs >= QUORUM_LOSS_CONFIRM_MS) this.beginOutage();
          continue;
        }
        this.suspectSinceMs = undefined;
        if (this.outage) await this.endOutage();
        if (this.unshipped) await this.ship().catch(() => undefined); // the store may be down too: tried again next interval
      }
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
    } finally {
      this.watching = false;
    }
  }

  /**
   * Whether etcd answers a majority read. A refusal that is an answer (the log sealed after a restore, ADR-03:
   * etcd told the cluster ID) is not a quorum loss: counting it as one failed a restored, sealed arbiter
   * open, granting from memory while it must serve nothing, for as long as it stayed sealed (swarm seed 10).
   */
  private majorityAnswers(): Promise<boolean> {
    return majorityRead(this.deps.gateway).then(() => true, (error: unknown) => !saysNoMajority(error));
  }

  private beginOutage(): void {
    this.suspectSinceMs = undefined;
    if (this.outage) return;
    this.outage = true;
    for (const begun of this.outageWaiters.splice(0)) begun();
    void this.watchQuorum();
  }

  /** ADR-04 recovery: new grants come from etcd again, and every memory grant and session ends (a fence). */
  private async endOutage(): Promise<void> {
    this.outage = false;
    this.unshipped = true;
    this.sessions.clear();
    await this.grants.endAll(new LockError('unavailable', 'the etcd quorum is back and grants from memory have ended (ADR-04); open a new session and acquire again'));
  }

  private async ship(): Promise<void> {
    const stillHeld = new Set(this.grants.holds.map((h) => h.grantId));
    await shipSpool({
      spool: this.options.spool,
      store: this.options.store,
      stillHeld,
      endLost: (grant) => this.options.spool.append(endOf(grant, this.newId(), this.options.wallClock.nowMs(), 'recovery')),
    });
    // Records appended meanwhile (a new outage) are shipped at that outage's end.
    this.unshipped = this.outage;
  }

  /** A restarted arbiter ships what an earlier run spooled, once a majority answers. */
  private async shipLeftovers(): Promise<void> {
    const left = await this.options.spool.read().catch(() => []); // unreadable now: the next outage's recovery ships it
    if (left.length === 0) return;
    this.unshipped = true;
    await this.watchQuorum();
  }

  private recordOf(hold: MemoryHold, kind: UnprotectedRecord['kind']): UnprotectedRecord {
    const { ask } = hold;
    const id = kind === 'grant' ? hold.grantId : this.newId();
    return { id, kind, grantId: hold.grantId, arbiterId: this.options.arbiterId, key: ask.key, namespace: ask.namespace, className: ask.className, identity: ask.identity, instance: ask.instance, atMs: this.options.wallClock.nowMs() };
  }

  private newId(): string {
    this.seq += 1;
    return `${this.options.arbiterId}/${this.options.incarnation}/${this.seq}`;
  }
}
