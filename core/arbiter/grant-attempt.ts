// One grant attempt (ADR-02/03/13/15) and what settles an attempt the arbiter did not see the end of.
// The attempt is one grant txn (grant-txn.ts); its answer is classified, a changed epoch record adopted
// from the txn's own failure branch, and a txn that timed out (indeterminate: it may have committed) is
// resolved by reading the holder key, as the client resolves a release in doubt: never guessed (issue 11,
// L2: a grant that committed unseen was reported as wait-timeout or a refusal, and leaked on the caller's
// live session; L1: in a durable line the waiter then re-joined behind the waiter that waited for it).
import { assert } from '../assert.js';
import { LockError, isLockError } from '../lock-error.js';
import { type LockKey, guardKeyOf, holderKeyOf } from '../lock-key.js';
import type { Grant } from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import { isLockLogError } from '../ports/lock-log-error.js';
import type { TxnRequest } from '../ports/lock-log.js';
import { packToken } from '../token.js';
import type { LeaseId, Revision } from '../units.js';
import type { EpochState } from './epoch-state.js';
import { type GrantTxnInput, classifyGrant } from './grant-txn.js';
import { type HoldRead, readHold } from './inspect.js';
import type { AttemptOutcome, AttemptTrigger, Contender } from './key-queue.js';
import type { LogGateway } from './log-gateway.js';
import { IDEMPOTENT_REQUEST_TIMEOUT_MS, SETTLE_RETRY_BUDGET_MS, retryWithin } from './log-retry.js';
import { type SessionDirectory, expired } from './sessions.js';

/** Grant txns in one attempt: epoch changes and in-doubt txns that did not commit (TigerStyle: every retry loop has a maximum). */
const MAX_TXNS_PER_ATTEMPT = 4;

/** Who asks for which key, as one attempt needs it. */
export type GrantAsk = Omit<GrantTxnInput, 'epoch' | 'guardVersion'>;

/** How long after its wait's end a grant txn may still start: a healthy log's arrival reads, many times over. */
export const LATE_GRANT_SLACK_MS = 1_000;

/** Grant guard versions remembered (TigerStyle: a limit on everything); one forgotten costs a refused txn that reads it back. */
const MAX_GUARDS_KNOWN = 10_000;

export interface GranterDeps {
  readonly gateway: LogGateway;
  readonly epoch: EpochState;
  readonly sessions: SessionDirectory;
  /** The txn one grant attempt runs: productionGrantTxn (seams.ts), resolved once when the arbiter is built. */
  readonly grantTxnOf: (input: GrantTxnInput, trigger: AttemptTrigger) => TxnRequest;
  readonly clock: Clock;
  /** ADR-08/09: throws when the key may not be granted here (redirect, draining). */
  readonly checkPlacement: (key: LockKey, className: string) => void;
}

export class Granter {
  /**
   * The grant guard versions this arbiter knows are not 0, by guard key. Only a settle bumps one, so the
   * map holds the few (session, key) pairs whose grant was ever in doubt; a version this arbiter does
   * not know (another replica settled) fails the grant txn, whose failure branch reads it.
   */
  private readonly guards = new Map<string, bigint>();

  constructor(private readonly deps: GranterDeps) {}

  /** The attempt and the in-doubt resolution of one waiter, for its line (KeyQueue); `deadlineMs` is its wait's end. */
  contender(ask: GrantAsk, deadlineMs: number): Contender {
    return { attempt: (trigger) => this.attempt(ask, trigger, deadlineMs), resolve: () => this.settle(ask), ownHold: () => this.ownHold(ask), heldAt: () => this.heldByOtherAt(ask) };
  }

  /** The revision at which another session holds the key, or undefined (free, or this session's): a read only (KeyQueue polls). */
  async heldByOtherAt(ask: Pick<GrantAsk, 'key' | 'sessionId'>): Promise<Revision | undefined> {
    const read = await this.deps.gateway.range({ key: holderKeyOf(ask.key) });
    const holder = read.kvs[0];
    return holder !== undefined && holder.lease !== ask.sessionId ? read.header.revision : undefined;
  }

  /**
   * One grant attempt. Rejects `indeterminate` only when the grant txn's outcome is unknown and the
   * holder key could not be read either.
   */
  async attempt(ask: GrantAsk, trigger: AttemptTrigger, deadlineMs: number): Promise<AttemptOutcome> {
    // ADR-09: placement is checked at every attempt, not only on arrival: a waiter that queued before its
    // range began to drain (or moved away) must not be granted here during the move (found by shard-move).
    this.deps.checkPlacement(ask.key, ask.className);
    const guardKey = guardKeyOf(ask.key, ask.sessionId);
    for (let txns = 1; ; txns += 1) {
      const floor = this.deps.epoch.floor();
      const epoch = await this.deps.epoch.get();
      const full: GrantTxnInput = { ...ask, epoch, guardVersion: this.guards.get(guardKey) ?? 0n };
      // No grant starts long after the wait it serves is over: the reads before it can each take etcd's
      // whole deadline (a partitioned arbiter), and a grant sent then reached nobody, its caller's own call
      // having timed out (issue 11, swarm seed 1605). The gateway asks `stillWanted` last, after its own
      // waits (the write confirmation), just before sending; the slack lets a try-lock (its wait ends on
      // arrival) make its reads. Refused there, nothing was written, so the caller may simply retry.
      let response;
      try {
        response = await this.deps.gateway.txn({ ...this.deps.grantTxnOf(full, trigger), timeoutMs: IDEMPOTENT_REQUEST_TIMEOUT_MS }, { passThrough: ['lease-not-found'], stillWanted: () => this.deps.clock.now() <= deadlineMs + LATE_GRANT_SLACK_MS });
      } catch (error) {
        if (isLockLogError(error, 'lease-not-found')) {
          this.deps.sessions.forget(ask.sessionId);
          throw expired(ask.sessionId);
        }
        if (!isLockError(error, 'indeterminate')) throw error;
        const settled = await this.settleInDoubt(ask, error);
        if (settled !== undefined) return settled;
        if (txns >= MAX_TXNS_PER_ATTEMPT) throw new LockError('unavailable', `the lock log did not answer ${txns} grant txns for ${ask.key.text} in time, and none committed; retry`);
        // Not again once the wait is over: a txn that timed out takes etcd's whole deadline, and a grant
        // sent after it reached a caller who had stopped waiting (its own call timed out), a hold nobody
        // was handed (issue 11, swarm seed 371). Nothing was granted: the guard saw to that.
        if (this.deps.clock.now() >= deadlineMs) throw new LockError('unavailable', `the grant txn for ${ask.key.text} got no answer and did not commit, and the wait is over; retry`);
        continue; // it did not commit, and the key is free: try again
      }
      const outcome = classifyGrant(full, response);
      switch (outcome.kind) {
        case 'granted':
          return { granted: grantOf(ask, epoch.record.epoch, outcome.revision, outcome.reentered) };
        case 'contended':
          return { contendedAt: outcome.seenAt };
        case 'leak':
          throw new LockError('leak', `${ask.key.text} is already held by ${holderName(ask)} under session ${outcome.holder.sessionId}, not ${ask.sessionId}: a leaked hold; release it from that session or let it expire (ADR-13)`);
        case 'epoch-changed':
          // The failure branch read the record in the same txn: adopt it (or seal on it) without a second read.
          this.deps.epoch.confirm(outcome.epochKv, response.header, floor);
          if (txns >= MAX_TXNS_PER_ATTEMPT) throw new LockError('unavailable', 'the epoch kept changing during the grant; retry');
          break;
        case 'guard-changed':
          // A settle (here or on another replica) bumped the guard: the failure branch read its version.
          this.remember(guardKey, outcome.version);
          if (txns >= MAX_TXNS_PER_ATTEMPT) throw new LockError('unavailable', `the grant guard of ${ask.key.text} kept changing during the grant; retry`);
      }
    }
  }

  /**
   * The caller's own hold of the key, read with the epoch record in one txn (S2), or undefined.
   * `reentered`: whether to call it a hold the session already had (ADR-13) or the one this acquire made.
   */
  async ownHold(ask: Pick<GrantAsk, 'key' | 'identity' | 'sessionId' | 'className'>, reentered = true): Promise<Grant | undefined> {
    const read = await readHold(this.deps.epoch, ask.key);
    return mineIn(read, ask.sessionId) ? grantOf(ask, read.epoch.record.epoch, read.kv.createRevision, reentered) : undefined;
  }

  private remember(guardKey: string, version: bigint): void {
    this.guards.delete(guardKey); // re-inserted last: the oldest is forgotten first
    if (this.guards.size >= MAX_GUARDS_KNOWN) {
      const oldest = this.guards.keys().next();
      if (oldest.done !== true) this.guards.delete(oldest.value);
    }
    this.guards.set(guardKey, version);
  }

  /**
   * Settles a grant txn whose answer never came: whether it committed, and that it never will. Reading
   * the holder key alone was not enough: a copy of the txn still on its way (queued at a paused member,
   * which forwards it when it resumes) committed after the read had found the key free and the caller
   * had been told `wait-timeout`, and the hold stayed on the caller's live session with nobody knowing
   * of it (issue 11, L2; swarm seed 617). So the read goes in one txn after a bump of the session's grant
   * guard for the key: every grant txn compares the guard's version, so a copy sent before the bump can
   * no longer commit once the bump has. Ours in the read: that grant. Otherwise: undefined (not granted,
   * and never will be by that txn). Costs one put, only on this path.
   */
  async settle(ask: Pick<GrantAsk, 'key' | 'identity' | 'sessionId' | 'className'>): Promise<Grant | undefined> {
    const read = await this.guardedRead(ask);
    return mineIn(read, ask.sessionId) ? grantOf(ask, read.epoch.record.epoch, read.kv.createRevision, false) : undefined;
  }

  /** The holder key, read in one txn after a bump of the session's grant guard for the key (settle). */
  private async guardedRead(ask: Pick<GrantAsk, 'key' | 'sessionId'>): Promise<HoldRead> {
    const guardKey = guardKeyOf(ask.key, ask.sessionId);
    // Safe to send twice (a second bump fences as well as one): short copies, retried for a while (log-retry.ts).
    const read = await retryWithin({ clock: this.deps.clock, kind: 'idempotent', deadlineMs: this.deps.clock.now() + SETTLE_RETRY_BUDGET_MS }, () =>
      readHold(this.deps.epoch, ask.key, [{ type: 'put', key: guardKey, value: '', lease: ask.sessionId }], IDEMPOTENT_REQUEST_TIMEOUT_MS),
    );
    // At least this: if another replica bumped it too, the next grant txn is refused and reads the exact version.
    this.remember(guardKey, (this.guards.get(guardKey) ?? 0n) + 1n);
    return read;
  }

  /**
   * A grant txn that timed out, settled (settle). Ours: that grant. Held by another: contended at the
   * read's revision. Free: it did not commit (undefined: the caller may try again). The settle failing too
   * leaves it in doubt: `indeterminate`, with the txn's error as its cause.
   */
  private async settleInDoubt(ask: GrantAsk, timedOut: LockError): Promise<AttemptOutcome | undefined> {
    let read: HoldRead;
    try {
      read = await this.guardedRead(ask);
    } catch (error) {
      // Sealed; or the session lease is gone (the guard's put names it), and every key on it with it.
      if (isLockError(error, 'sealed') || isLockError(error, 'session-expired')) throw error;
      throw new LockError('indeterminate', `the grant txn for ${ask.key.text} got no answer, and the holder key could not be read: it may be held by this session; acquire again on the same session (it returns the hold if there is one) or inspect it`, { cause: timedOut });
    }
    if (mineIn(read, ask.sessionId)) return { granted: grantOf(ask, read.epoch.record.epoch, read.kv.createRevision, false) };
    if (read.kv !== undefined) return { contendedAt: read.header.revision };
    return undefined;
  }
}

/** `identity` or `identity (instance x)`: the holder the leak rule compares (issue 29). */
function holderName(ask: Pick<GrantAsk, 'identity' | 'instance'>): string {
  return ask.instance === '' ? ask.identity : `${ask.identity} (instance ${ask.instance})`;
}

function mineIn(read: HoldRead, sessionId: LeaseId): read is HoldRead & { kv: NonNullable<HoldRead['kv']> } {
  return read.kv !== undefined && read.token !== undefined && read.kv.lease === sessionId && read.holder?.sessionId === sessionId;
}

function grantOf(ask: Pick<GrantAsk, 'key' | 'identity' | 'sessionId' | 'className'>, epoch: number, revision: Grant['revision'], reentered: boolean): Grant {
  assert(revision > 0n, () => `a grant of ${ask.key.text} at revision ${revision}`);
  return { key: ask.key.text, token: packToken(epoch, revision), epoch, revision, sessionId: ask.sessionId, identity: ask.identity, className: ask.className, reentered };
}
