// The lock arbiter (ADR-18): the one component that writes grants. Stateless for correctness: every
// decision is a txn against the log; its memory holds only caches and the best-effort wait queues.
import { CancelSource } from '../cancel.js';
import { LockError } from '../lock-error.js';
import { DEFAULT_MAX_WAIT_MS } from '../limits.js';
import { type LockKey, holderKeyOf, parseLockKey } from '../lock-key.js';
import type {
  AcquireRequest,
  AdvanceEpochRequest,
  AdvanceEpochResponse,
  ApproveEpochAdvanceRequest,
  ApproveForceReleaseRequest,
  ArbiterStatus,
  EpochAdvanceProposal,
  ForceReleaseProposal,
  ForceReleaseRequest,
  ForceReleaseResponse,
  CloseSessionRequest,
  DescribeKeyRequest,
  Grant,
  InspectResponse,
  KeepAliveRequest,
  KeepAliveResponse,
  KeyClass,
  OpenSessionRequest,
  ReleaseRequest,
  ReleaseResponse,
  Session,
  ValidateRequest,
  ValidateResponse,
} from '../ports/arbiter-api.js';
import type { ArbiterService, Caller } from '../ports/caller.js';
import type { Clock } from '../ports/clock.js';
import type { LockLog } from '../ports/lock-log.js';
import { isLockLogError } from '../ports/lock-log-error.js';
import type { Random } from '../ports/random.js';
import { parseToken, unpackToken } from '../token.js';
import type { LeaseId } from '../units.js';
import { OperatorDesk } from './operator-desk.js';
import { DurableTurn } from './durable-turn.js';
import { type DurableLine, waitDurably } from './durable-wait.js';
import { FailOpen, UNPROTECTED_TOKEN, type UnprotectedOptions } from './fail-open.js';
import { isMemorySessionId } from './memory-sessions.js';
import { type EpochSource, SINGLE_CLUSTER_EPOCHS } from './epoch-source.js';
import { EpochState } from './epoch-state.js';
import { type GrantAsk, Granter } from './grant-attempt.js';
import { inspectKey } from './inspect.js';
import { KeyQueue } from './key-queue.js';
import { LogGateway } from './log-gateway.js';
import type { ArbiterClass, Authorizer, ClassLookup, Placement } from './policy.js';
import { OPEN_SESSION_RETRY_BUDGET_MS, RELEASE_RETRY_BUDGET_MS, type RetryKind, retryWithin } from './log-retry.js';
import { releaseHold } from './release.js';
import { WaiterLease } from './waiter-lease.js';
import type { SealGuard } from './seal-guard.js';
import { type ArbiterSeams, HONEST_ARBITER_SEAMS } from './seams.js';
import { governingClass } from './governing-class.js';
import { SessionDirectory, checkIdentity, checkInstance, checkSessionTtl, expired } from './sessions.js';

export interface ArbiterOptions {
  readonly log: LockLog;
  readonly clock: Clock;
  readonly random: Random;
  readonly classes: ClassLookup;
  readonly authorizer: Authorizer;
  readonly placement?: Placement;
  /** ADR-15: the polling fallback for waiters that miss a notification. */
  readonly pollIntervalMs?: number;
  /** Longest wait a caller may ask for. */
  readonly maxWaitMs?: number;
  /** Tells this arbiter's approval request ids from another replica's (approvals.ts); src/ gives a random one. */
  readonly approvalIdPrefix?: string;
  /** Where the epoch comes from (ADR-03/07, issue 19): the coord cluster, or (default) the log itself. */
  readonly epochSource?: EpochSource;
  /**
   * ADR-04: the spool and audit store an `onQuorumLoss: open` class fails open with (fail-open.ts). Absent,
   * every class fails closed: a grant from memory that no spool recorded is an overlap nobody can reconcile.
   */
  readonly unprotected?: UnprotectedOptions;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;

/**
 * Every method is told who calls by the transport (ADR-19, core/ports/caller.ts); `actingAs(arbiter,
 * caller)` is the in-process ArbiterApi a client library speaks.
 */
export class Arbiter implements ArbiterService {
  private readonly guard: SealGuard;
  private readonly gateway: LogGateway;
  private readonly epoch: EpochState;
  private readonly sessions: SessionDirectory;
  private readonly granter: Granter;
  /** Where this arbiter's durable waiters keep their places (ADR-14, L5). */
  private readonly places: WaiterLease;
  private readonly queues = new Map<string, KeyQueue>();
  private readonly shutdown = new CancelSource();
  private lastAdvanceCheckMs = Number.NEGATIVE_INFINITY;
  /** Acquires that reached this arbiter: an in-memory waiter's place in its key's line (KeyQueue.join, ADR-14). */
  private arrivals = 0;
  private readonly desk: OperatorDesk;
  private readonly durableLine: DurableLine;
  private readonly failOpen: FailOpen | undefined;

  /**
   * `seams` is for test support only (scenarios/mutants.ts): it is deliberately not part of
   * ArbiterOptions, and every production caller leaves it at the honest default.
   */
  constructor(
    private readonly options: ArbiterOptions,
    private readonly seams: ArbiterSeams = HONEST_ARBITER_SEAMS,
  ) {
    this.guard = seams.sealGuard();
    this.gateway = new LogGateway(options.log, this.guard);
    this.epoch = new EpochState(this.gateway, this.guard, options.epochSource);
    if (seams.confirmBeforeWrite) this.gateway.confirmWritesWith(() => this.epoch.confirmCluster(), (ms) => options.clock.sleep(ms)); // issue 19
    this.sessions = new SessionDirectory(this.gateway, this.options.clock);
    this.places = new WaiterLease({ gateway: this.gateway, clock: options.clock, shutdown: this.shutdown });
    this.desk = new OperatorDesk(options, {
      gateway: this.gateway,
      guard: this.guard,
      epoch: this.epoch,
      checkPlacement: (key) => this.checkPlacement(key),
      wake: (key) => {
        for (const [text, queue] of this.queues) if (key === undefined || text === key) queue.wake();
      },
    });
    this.granter = new Granter({
      gateway: this.gateway,
      epoch: this.epoch,
      sessions: this.sessions,
      grantTxnOf: seams.grantTxn,
      clock: this.options.clock,
      checkPlacement: (key, className) => this.checkPlacement(key, this.options.classes.get(key.namespace, className)?.tier),
    });
    this.durableLine = { granter: this.granter, places: this.places, shutdown: this.shutdown, queueFor: (key) => this.queueFor(key), hasQueue: (key) => this.queues.has(key.text) };
    const failOpenDeps = { clock: options.clock, shutdown: this.shutdown.signal, pollIntervalMs: options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS, gateway: this.gateway, etcdSession: (id: LeaseId, identity: string) => this.sessions.ownedBy(id, identity), opens: seams.opensOnQuorumLoss };
    this.failOpen = options.unprotected === undefined ? undefined : new FailOpen(options.unprotected, failOpenDeps);
  }

  async openSession(caller: Caller, request: OpenSessionRequest): Promise<Session> {
    // Bad input is refused before the log is touched.
    const identity = checkIdentity(caller.identity);
    const instance = checkInstance(request.instance);
    checkSessionTtl(request.ttlSeconds);
    // Reads, and a lease grant etcd refused, wrote nothing: sent again through an election (issue 12).
    const viaEtcd = (): Promise<Session> =>
      this.retry('nothing-written', this.options.clock.now() + OPEN_SESSION_RETRY_BUDGET_MS, async () => {
        await this.reopenIfAdvanced();
        await this.epoch.get();
        return this.sessions.open(identity, instance, request.ttlSeconds);
      });
    return this.failOpen?.openSessionUnlessOutage(identity, instance, request.ttlSeconds, viaEtcd) ?? viaEtcd(); // ADR-04
  }

  async keepAlive(caller: Caller, request: KeepAliveRequest): Promise<KeepAliveResponse> {
    if (this.failOpen !== undefined && isMemorySessionId(request.sessionId)) return this.failOpen.keepAlive(checkIdentity(caller.identity), request.sessionId);
    await this.reopenIfAdvanced();
    await this.sessions.ownedBy(request.sessionId, checkIdentity(caller.identity));
    const response = await this.gateway.leaseKeepAlive(request.sessionId);
    if (response.ttlSeconds <= 0) {
      this.sessions.forget(request.sessionId);
      throw expired(request.sessionId);
    }
    return { ttlSeconds: response.ttlSeconds };
  }

  async closeSession(caller: Caller, request: CloseSessionRequest): Promise<void> {
    if (this.failOpen !== undefined && isMemorySessionId(request.sessionId)) return this.failOpen.closeSession(checkIdentity(caller.identity), request.sessionId);
    await this.sessions.ownedBy(request.sessionId, checkIdentity(caller.identity));
    await this.failOpen?.closeSession(caller.identity, request.sessionId);
    this.sessions.forget(request.sessionId);
    await this.gateway.leaseRevoke(request.sessionId, ['lease-not-found']).catch((error: unknown) => {
      if (!isLockLogError(error, 'lease-not-found')) throw error; // already gone: closed is closed
    });
  }

  /** A grant leaves the arbiter only once its epoch source has witnessed its revision (coord-epochs.ts, issue 19). */
  async acquire(caller: Caller, request: AcquireRequest): Promise<Grant> {
    const grant = await this.acquireUnwitnessed(caller, request);
    if (grant.unprotected === true) return grant; // ADR-04: token 0 names no epoch to witness
    const { epoch, revision } = unpackToken(grant.token);
    await (this.options.epochSource ?? SINGLE_CLUSTER_EPOCHS).witness(epoch, revision);
    return grant;
  }

  private async acquireUnwitnessed(caller: Caller, request: AcquireRequest): Promise<Grant> {
    const identity = checkIdentity(caller.identity);
    const key = parseLockKey(request.key);
    const lockClass = this.admit(identity, key, request.className);
    if (!Number.isFinite(request.waitMs) || request.waitMs < 0 || request.waitMs > (this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS)) {
      throw new LockError('invalid-argument', `waitMs ${request.waitMs} must be between 0 and ${this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS}`);
    }
    const deadlineMs = this.options.clock.now() + request.waitMs; // the wait counts from arrival
    const arrival = this.arrivals++; // taken before the first await: the line is in the order acquires arrived (ADR-14)
    // The arrival (reads, and a first grant txn whose failure wrote nothing) is sent again inside the
    // caller's wait when the log refused it, as in an election (issue 12); the wait in line is not.
    const fromMemory = (): Promise<Grant> => (this.failOpen as FailOpen).acquire(identity, key, lockClass, request.sessionId, Math.max(0, deadlineMs - this.options.clock.now()));
    if (this.failOpen?.servesFromMemory(request.sessionId, lockClass) === true) return fromMemory(); // ADR-04
    try {
      const viaEtcd = this.retry('nothing-written', deadlineMs, () => this.arrive(request, key, identity, lockClass, deadlineMs, arrival)).then((arrived) => ('granted' in arrived ? arrived.granted : arrived.join()));
      return await (this.failOpen?.unlessOutage(viaEtcd, lockClass, fromMemory) ?? viaEtcd);
    } catch (error) {
      if (this.failOpen?.failsOpen(error, lockClass) === true) return fromMemory();
      throw error;
    }
  }

  private async arrive(request: AcquireRequest, key: LockKey, identity: string, lockClass: ArbiterClass, deadlineMs: number, arrival: number): Promise<{ granted: Grant } | { join: () => Promise<Grant> }> {
    await this.reopenIfAdvanced();
    this.guard.assertOpen();
    const session = await this.sessions.ownedBy(request.sessionId, identity);
    if (session.ttlSeconds !== lockClass.ttlSeconds) {
      throw new LockError('invalid-argument', `session ${request.sessionId} has TTL ${session.ttlSeconds} s but class ${lockClass.namespace}/${lockClass.name} needs ${lockClass.ttlSeconds} s; one session per (identity, TTL) (ADR-10/11)`);
    }
    const ask: GrantAsk = { key, identity, instance: session.instance, sessionId: request.sessionId, className: lockClass.name };
    if (lockClass.fairness === 'durable' && request.waitMs > 0) {
      return { join: () => waitDurably(this.durableLine, new DurableTurn(this.gateway, this.places, key, request.sessionId, { clock: this.options.clock, deadlineMs }), ask, deadlineMs) };
    }
    if (!this.queues.has(key.text) || request.waitMs === 0) {
      const first = await this.granter.attempt(ask, 'arrival', deadlineMs);
      if ('granted' in first) return first;
      if (request.waitMs === 0) throw new LockError('contended', `${key.text} is held by another identity; wait in line with waitMs > 0`);
      return { join: () => this.queueFor(key).join(this.granter.contender(ask, deadlineMs), deadlineMs, first.contendedAt, undefined, arrival) };
    }
    const mine = await this.granter.ownHold(ask);
    if (mine !== undefined) return { granted: mine };
    // The line is looked up again after the read, when joining: it may have emptied and been forgotten
    // meanwhile, and joining that one started a second line for the key, which no release through here woke.
    return { join: () => this.queueFor(key).join(this.granter.contender(ask, deadlineMs), deadlineMs, undefined, undefined, arrival) };
  }

  async release(caller: Caller, request: ReleaseRequest): Promise<ReleaseResponse> {
    const identity = checkIdentity(caller.identity);
    const key = parseLockKey(request.key);
    if (this.failOpen !== undefined && request.token === UNPROTECTED_TOKEN) return this.failOpen.release(identity, key, request.sessionId); // ADR-04
    await this.retry('nothing-written', this.options.clock.now() + RELEASE_RETRY_BUDGET_MS, () => this.sessions.ownedBy(request.sessionId, identity));
    const outcome = await releaseHold(this.gateway, this.epoch, key, request.sessionId, request.token, this.options.clock);
    if (outcome.atRevision !== undefined) this.queues.get(key.text)?.wake('hint', outcome.atRevision); // a hint for local waiters (ADR-15)
    return { released: outcome.released };
  }

  async validate(caller: Caller, request: ValidateRequest): Promise<ValidateResponse> {
    const identity = checkIdentity(caller.identity);
    const key = parseLockKey(request.key);
    const token = parseToken(request.token);
    this.authorise(identity, key); // before any read: the answer names a holder's token (ADR-16/19)
    this.checkPlacement(key);
    const inspected = await inspectKey(this.epoch, this.options.classes, key);
    const currentToken = inspected.holder?.token;
    return { valid: currentToken !== undefined && currentToken === token, currentToken };
  }

  /** Who holds a key names a token: asked by a workload granted the key, or by an operator of it (ADR-19/20). */
  async inspect(caller: Caller, keyText: string): Promise<InspectResponse> {
    const identity = checkIdentity(caller.identity);
    const key = parseLockKey(keyText);
    if (!this.options.authorizer.operates(identity, key.text)) this.authorise(identity, key);
    this.checkPlacement(key);
    return inspectKey(this.epoch, this.options.classes, key);
  }

  /**
   * Issue 29, ADR-24: the class that governs a key, from this arbiter's registry, so a client needs no class
   * file. Refused exactly as acquire refuses a key outside the caller's grants, before the registry is read.
   */
  async describeKey(caller: Caller, request: DescribeKeyRequest): Promise<KeyClass> {
    const identity = checkIdentity(caller.identity);
    const key = parseLockKey(request.key);
    this.authorise(identity, key);
    const lockClass = governingClass(this.options.classes, key, request.className ?? '');
    return { key: key.text, namespace: key.namespace, className: lockClass.name, ttlSeconds: lockClass.ttlSeconds, enforcement: lockClass.enforcement, fairness: lockClass.fairness };
  }

  /** ADR-20: the first of two operators; nothing is written, and the answer shows the class's enforcement. */
  requestForceRelease(caller: Caller, request: ForceReleaseRequest): Promise<ForceReleaseProposal> {
    return this.desk.requestForceRelease(caller, request);
  }

  /** ADR-20: a second, different operator; one txn deletes the hold and writes the force record. */
  approveForceRelease(caller: Caller, request: ApproveForceReleaseRequest): Promise<ForceReleaseResponse> {
    return this.desk.approveForceRelease(caller, request);
  }

  /** ADR-03: the first of two operators proposes advancing a sealed log's epoch. Nothing is read. */
  requestEpochAdvance(caller: Caller, request: AdvanceEpochRequest): Promise<EpochAdvanceProposal> {
    return this.desk.requestEpochAdvance(caller, request);
  }

  approveEpochAdvance(caller: Caller, request: ApproveEpochAdvanceRequest): Promise<AdvanceEpochResponse> {
    return this.desk.approveEpochAdvance(caller, request);
  }

  /** No caller needed: the answer names no key or holder. */
  async status(_caller?: Caller): Promise<ArbiterStatus> {
    await this.reopenIfAdvanced();
    await this.epoch.get().catch(() => undefined);
    const known = this.epoch.known;
    return { epoch: known?.record.epoch, clusterId: known?.record.clusterId, sealed: this.guard.sealed };
  }

  private retry<T>(kind: RetryKind, deadlineMs: number, send: () => Promise<T>): Promise<T> {
    return retryWithin({ clock: this.options.clock, kind, deadlineMs }, send);
  }

  /** Ends all waits; the log client belongs to the caller. */
  close(): void {
    this.shutdown.cancel();
  }

  /**
   * While sealed, looks (at most once per poll interval) for an epoch advance made through another
   * replica, so one two-person advance opens every arbiter (see EpochState.adoptAdvance).
   */
  private async reopenIfAdvanced(): Promise<void> {
    if (this.guard.sealed === undefined) return;
    const now = this.options.clock.now();
    if (now - this.lastAdvanceCheckMs < (this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS)) return;
    this.lastAdvanceCheckMs = now;
    if (await this.epoch.adoptAdvance().catch(() => false)) {
      for (const queue of this.queues.values()) queue.wake();
    }
  }

  /** Bad input and authorisation are decided before any read of the log (ADR-19). */
  private authorise(identity: string, key: LockKey): void {
    if (!this.options.authorizer.allows(identity, key.text)) {
      // One error whether or not the key or class exists: a denial leaks nothing (ADR-19).
      throw new LockError('denied', `${identity} has no grant covering ${key.text}; ask the namespace owner for a LockGrant`);
    }
  }

  private admit(identity: string, key: LockKey, className: string): ArbiterClass {
    this.authorise(identity, key);
    const lockClass = governingClass(this.options.classes, key, className);
    this.checkPlacement(key, lockClass.tier);
    return lockClass;
  }

  /** ADR-08/09: a key homed elsewhere is redirected, never forwarded; a moving range takes no new grants. */
  private checkPlacement(key: LockKey, tier?: 'coord' | 'entity'): void {
    const placement = this.options.placement?.check(key.text, tier);
    if (placement?.kind === 'redirect') {
      throw new LockError('redirect', `${key.text} is homed to region ${placement.region}; call that region's arbiter (ADR-08)`, { region: placement.region });
    }
    if (placement?.kind === 'draining') {
      throw new LockError('draining', `${key.text} is in a range moving between shards and takes no new grants until the move completes (ADR-09)`);
    }
  }

  private queueFor(key: LockKey): KeyQueue {
    let queue = this.queues.get(key.text);
    if (queue === undefined) {
      const created: KeyQueue = new KeyQueue({
        gateway: this.gateway,
        clock: this.options.clock,
        random: this.options.random,
        holderKey: holderKeyOf(key),
        pollIntervalMs: this.options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS,
        shutdown: this.shutdown,
        onEmpty: () => {
          if (this.queues.get(key.text) === created) this.queues.delete(key.text);
        },
      });
      queue = created;
      this.queues.set(key.text, queue);
    }
    return queue;
  }
}
