// The lock arbiter (ADR-18): the one component that writes grants. Stateless for correctness: every
// decision is a txn against the log; its memory holds only caches and the best-effort wait queues.
import { CancelSource } from '../cancel.js';
import { LockError } from '../lock-error.js';
import { type LockKey, holderKeyOf, parseLockKey } from '../lock-key.js';
import type {
  AcquireRequest,
  AdvanceEpochRequest,
  AdvanceEpochResponse,
  ArbiterApi,
  ArbiterStatus,
  ForceReleaseRequest,
  ForceReleaseResponse,
  Grant,
  InspectResponse,
  KeepAliveRequest,
  KeepAliveResponse,
  OpenSessionRequest,
  ReleaseRequest,
  ReleaseResponse,
  Session,
  ValidateRequest,
  ValidateResponse,
} from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import type { LockLog } from '../ports/lock-log.js';
import { isLockLogError } from '../ports/lock-log-error.js';
import type { Random } from '../ports/random.js';
import { parseHolderValue } from './records.js';
import { packToken, parseToken, unpackToken } from '../token.js';
import type { Revision } from '../units.js';
import { advanceEpoch, forceRelease } from './admin.js';
import { DurableTurn } from './durable-turn.js';
import { EpochState } from './epoch-state.js';
import { type GrantTxnInput, classifyGrant } from './grant-txn.js';
import { inspectKey } from './inspect.js';
import { type AttemptTrigger, KeyQueue } from './key-queue.js';
import { LogGateway } from './log-gateway.js';
import type { ArbiterClass, Authorizer, ClassLookup, Placement } from './policy.js';
import type { SealGuard } from './seal-guard.js';
import { type ArbiterSeams, HONEST_ARBITER_SEAMS } from './seams.js';
import { SessionDirectory, checkIdentity, checkSessionTtl, expired } from './sessions.js';

export interface ArbiterOptions {
  readonly log: LockLog;
  readonly clock: Clock;
  readonly random: Random;
  readonly classes: ClassLookup;
  readonly authorizer: Authorizer;
  readonly placement?: Placement;
  /** ADR-15: the polling fallback for waiters that miss a notification. */
  readonly pollIntervalMs?: number;
  /** Create epoch 1 on a log with no epoch record (a brand-new cluster). */
  readonly bootstrapEpoch?: boolean;
  /** Longest wait a caller may ask for. */
  readonly maxWaitMs?: number;
}

const DEFAULT_POLL_INTERVAL_MS = 1000;
export const DEFAULT_MAX_WAIT_MS = 10 * 60 * 1000;
/** Epoch changes seen in one acquire before giving up (TigerStyle: every retry loop has a maximum). */
const MAX_EPOCH_RELOADS = 3;

export class Arbiter implements ArbiterApi {
  private readonly guard: SealGuard;
  private readonly gateway: LogGateway;
  private readonly epoch: EpochState;
  private readonly sessions: SessionDirectory;
  private readonly queues = new Map<string, KeyQueue>();
  private readonly shutdown = new CancelSource();
  private lastAdvanceCheckMs = Number.NEGATIVE_INFINITY;

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
    this.epoch = new EpochState(this.gateway, this.guard, options.bootstrapEpoch ?? false);
    this.sessions = new SessionDirectory(this.gateway);
  }

  async openSession(request: OpenSessionRequest): Promise<Session> {
    // Bad input is refused before the log is touched: on a brand-new log the first epoch.get() writes
    // the epoch record, which a refused request must not do.
    checkIdentity(request.identity);
    checkSessionTtl(request.ttlSeconds);
    await this.reopenIfAdvanced();
    await this.epoch.get();
    return this.sessions.open(request.identity, request.ttlSeconds);
  }

  async keepAlive(request: KeepAliveRequest): Promise<KeepAliveResponse> {
    await this.reopenIfAdvanced();
    await this.sessions.ownedBy(request.sessionId, checkIdentity(request.identity));
    const response = await this.gateway.leaseKeepAlive(request.sessionId);
    if (response.ttlSeconds <= 0) {
      this.sessions.forget(request.sessionId);
      throw expired(request.sessionId);
    }
    return { ttlSeconds: response.ttlSeconds };
  }

  async closeSession(request: KeepAliveRequest): Promise<void> {
    await this.sessions.ownedBy(request.sessionId, checkIdentity(request.identity));
    this.sessions.forget(request.sessionId);
    await this.gateway.leaseRevoke(request.sessionId, ['lease-not-found']).catch((error: unknown) => {
      if (!isLockLogError(error, 'lease-not-found')) throw error; // already gone: closed is closed
    });
  }

  async acquire(request: AcquireRequest): Promise<Grant> {
    const identity = checkIdentity(request.identity);
    const key = parseLockKey(request.key);
    const lockClass = this.admit(identity, key, request.className);
    if (!Number.isFinite(request.waitMs) || request.waitMs < 0 || request.waitMs > (this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS)) {
      throw new LockError('invalid-argument', `waitMs ${request.waitMs} must be between 0 and ${this.options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS}`);
    }
    const deadlineMs = this.options.clock.now() + request.waitMs; // the wait counts from arrival
    await this.reopenIfAdvanced();
    this.guard.assertOpen();
    const session = await this.sessions.ownedBy(request.sessionId, identity);
    if (session.ttlSeconds !== lockClass.ttlSeconds) {
      throw new LockError('invalid-argument', `session ${request.sessionId} has TTL ${session.ttlSeconds} s but class ${lockClass.namespace}/${lockClass.name} needs ${lockClass.ttlSeconds} s; one session per (identity, TTL) (ADR-10/11)`);
    }
    const attempt = (trigger: AttemptTrigger) => this.attemptGrant({ key, identity, sessionId: request.sessionId, className: lockClass.name }, trigger);
    if (lockClass.fairness === 'durable' && request.waitMs > 0) {
      return this.waitDurably(new DurableTurn(this.gateway, key, request.sessionId), key, identity, lockClass.name, deadlineMs);
    }
    const queue = this.queues.get(key.text);
    if (queue === undefined || request.waitMs === 0) {
      const first = await attempt('arrival');
      if ('granted' in first) return first.granted;
      if (request.waitMs === 0) throw new LockError('contended', `${key.text} is held by another identity; wait in line with waitMs > 0`);
      return this.queueFor(key).join(attempt, deadlineMs, first.contendedAt);
    }
    const mine = await this.ownHold(key, request.sessionId, identity, lockClass.name);
    if (mine !== undefined) return mine;
    return queue.join(attempt, deadlineMs, undefined);
  }

  private async ownHold(key: LockKey, sessionId: Grant['sessionId'], identity: string, className: string): Promise<Grant | undefined> {
    const epoch = await this.epoch.get();
    const response = await this.gateway.range({ key: holderKeyOf(key) });
    const kv = response.kvs[0];
    if (kv === undefined || kv.lease !== sessionId || parseHolderValue(kv.value)?.sessionId !== sessionId) return undefined;
    return { key: key.text, token: packToken(epoch.record.epoch, kv.createRevision), epoch: epoch.record.epoch, revision: kv.createRevision, sessionId, identity, className, reentered: true };
  }

  async release(request: ReleaseRequest): Promise<ReleaseResponse> {
    const identity = checkIdentity(request.identity);
    const key = parseLockKey(request.key);
    await this.sessions.ownedBy(request.sessionId, identity);
    const current = await this.epoch.get();
    const { epoch, revision } = unpackToken(request.token);
    if (epoch !== current.record.epoch) return { released: false }; // the epoch advance already deleted it
    const holderKey = holderKeyOf(key);
    const response = await this.gateway.txn({
      compare: [
        { key: holderKey, target: 'create', op: '=', value: revision },
        { key: holderKey, target: 'lease', op: '=', value: request.sessionId },
      ],
      success: [{ type: 'delete', key: holderKey }],
      failure: [],
    });
    if (response.succeeded) this.queues.get(key.text)?.wake('hint', response.header.revision); // a hint for local waiters (ADR-15)
    return { released: response.succeeded };
  }

  async validate(request: ValidateRequest): Promise<ValidateResponse> {
    const identity = checkIdentity(request.identity);
    const key = parseLockKey(request.key);
    const token = parseToken(request.token);
    this.authorise(identity, key); // before any read: the answer names a holder's token (ADR-16/19)
    this.checkPlacement(key);
    const inspected = await this.inspect(key.text);
    const currentToken = inspected.holder?.token;
    return { valid: currentToken !== undefined && currentToken === token, currentToken };
  }

  async inspect(keyText: string): Promise<InspectResponse> {
    const key = parseLockKey(keyText);
    this.checkPlacement(key);
    const current = await this.epoch.get();
    return inspectKey(this.gateway, this.options.classes, key, current.record.epoch);
  }

  async forceRelease(request: ForceReleaseRequest): Promise<ForceReleaseResponse> {
    // The epoch is read only after the request has been checked, for the same reason as in openSession.
    const response = await forceRelease(this.gateway, this.options.classes, request, async () => (await this.epoch.get()).record.epoch);
    if (response.released) this.queues.get(parseLockKey(request.key).text)?.wake();
    return response;
  }

  async advanceEpoch(request: AdvanceEpochRequest): Promise<AdvanceEpochResponse> {
    const response = await advanceEpoch(this.gateway, request, this.epoch.known?.record.epoch ?? 0);
    this.guard.reset(response.clusterId, response.revision);
    this.epoch.adopt(response.epochKv);
    for (const queue of this.queues.values()) queue.wake();
    return { epoch: response.epoch, clusterId: response.clusterId, holdsDeleted: response.holdsDeleted };
  }

  async status(): Promise<ArbiterStatus> {
    await this.reopenIfAdvanced();
    await this.epoch.get().catch(() => undefined);
    const known = this.epoch.known;
    return { epoch: known?.record.epoch, clusterId: known?.record.clusterId, sealed: this.guard.sealed };
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
    const lockClass = this.options.classes.get(key.namespace, className);
    if (lockClass === undefined) {
      throw new LockError('unknown-class', `no LockClass ${key.namespace}/${className}; a key's class must be declared in its namespace (ADR-24)`);
    }
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

  /**
   * ADR-14 `fairness: durable`: the waiter's place is a key in the log; the local FIFO still decides
   * which of this arbiter's waiters may look, but only the first in the durable line attempts a grant.
   */
  private async waitDurably(turn: DurableTurn, key: LockKey, identity: string, className: string, deadlineMs: number): Promise<Grant> {
    const mine = await this.ownHold(key, turn.sessionId, identity, className);
    if (mine !== undefined) return mine;
    const rank = await turn.join();
    const attempt = async (trigger: AttemptTrigger): Promise<{ granted: Grant } | { contendedAt: Revision }> => {
      const position = await turn.isFirst();
      if (!position.first) return { contendedAt: position.seenAt };
      return this.attemptGrant({ key, identity, sessionId: turn.sessionId, className, waiterKey: turn.waiterKey }, trigger);
    };
    try {
      const queue = this.queues.get(key.text);
      const first = queue === undefined ? await attempt('arrival') : undefined;
      const outcome = first !== undefined && 'granted' in first ? first.granted : await (queue ?? this.queueFor(key)).join(attempt, deadlineMs, first?.contendedAt, rank);
      // A re-entered grant did not run the txn that deletes the waiter key.
      if (outcome.reentered) await turn.leave();
      return outcome;
    } catch (error) {
      // A waiter that gives up leaves the line (best effort: the key also goes with its session). An
      // arbiter shutting down does not take its waiters' places with it: that is the point of durable.
      if (!this.shutdown.aborted) await turn.leave().catch(() => undefined);
      throw error;
    }
  }

  private async attemptGrant(input: Omit<GrantTxnInput, 'epoch'>, trigger: AttemptTrigger): Promise<{ granted: Grant } | { contendedAt: Revision }> {
    // ADR-09: placement is checked at every attempt, not only on arrival: a waiter that queued before its
    // range began to drain (or moved away) must not be granted here during the move (found by shard-move).
    this.checkPlacement(input.key, this.options.classes.get(input.key.namespace, input.className)?.tier);
    for (let reloads = 0; ; reloads += 1) {
      const epoch = await this.epoch.get();
      const full: GrantTxnInput = { ...input, epoch };
      const response = await this.gateway.txn(this.seams.grantTxn(full, trigger), { passThrough: ['lease-not-found'] }).catch((error: unknown) => {
        if (isLockLogError(error, 'lease-not-found')) {
          this.sessions.forget(input.sessionId);
          throw expired(input.sessionId);
        }
        throw error;
      });
      const outcome = classifyGrant(full, response);
      switch (outcome.kind) {
        case 'granted':
          return {
            granted: {
              key: input.key.text,
              token: packToken(epoch.record.epoch, outcome.revision),
              epoch: epoch.record.epoch,
              revision: outcome.revision,
              sessionId: input.sessionId,
              identity: input.identity,
              className: input.className,
              reentered: outcome.reentered,
            },
          };
        case 'contended':
          return { contendedAt: outcome.seenAt };
        case 'leak':
          throw new LockError('leak', `${input.key.text} is already held by ${input.identity} under session ${outcome.holder.sessionId}, not ${input.sessionId}: a leaked hold; release it from that session or let it expire (ADR-13)`);
        case 'epoch-changed':
          if (outcome.epochKv === undefined) {
            this.guard.seal({ kind: 'no-epoch-record' });
            this.guard.assertOpen();
          }
          if (reloads >= MAX_EPOCH_RELOADS) throw new LockError('unavailable', 'the epoch kept changing during the grant; retry');
          await this.epoch.reload();
      }
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
