// ADR-14/15: waiters for one key queue in arrival order in this arbiter's memory (best effort: lost on
// arbiter restart). Only the head of the line makes grant attempts, so one release causes one attempt.
// A watch on the holder key, started just after the revision at which the key was seen held, wakes the
// head; a watch event is only a hint that triggers a full grant txn, never a grant (ADR-15). A waiter
// that misses a notification polls every second with jitter until its deadline.
import { assert } from '../assert.js';
import { CancelSource, CancelledError, onCancel } from '../cancel.js';
import { LockError, isLockError } from '../lock-error.js';
import type { Grant } from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import type { Watch } from '../ports/lock-log.js';
import { type Random, jitteredMs } from '../ports/random.js';
import type { Revision } from '../units.js';
import { revision } from '../units.js';
import type { LogGateway } from './log-gateway.js';

/**
 * Why an attempt is made: the caller's arrival, a delete event on the watched holder key, a hint (a
 * release through this arbiter, a broken watch, an epoch advance) or the poll fallback. The honest
 * arbiter runs the same full grant txn for every trigger (ADR-15); the trigger exists for the seams.
 */
export type AttemptTrigger = 'arrival' | 'watch-event' | 'hint' | 'poll';

/** What one attempt found: a grant, or the revision at which the key was seen held (or, for a durable waiter, others ahead in line). */
/**
 * `rank`: a durable waiter's place in the log's line as the attempt read it (its waiter key's create
 * revision). It changes when the place was taken again at the back (an epoch advance cleared /q, another
 * task of the same session left the shared place, the waiting lease ended), and the line re-sorts on it.
 */
export type AttemptOutcome = { readonly granted: Grant } | { readonly contendedAt: Revision; readonly aheadInLine?: boolean; readonly rank?: bigint };

/** A waiter's two calls into the arbiter. */
export interface Contender {
  /** One full grant attempt (ADR-15). Rejects `indeterminate` when its outcome stayed unknown. */
  readonly attempt: (trigger: AttemptTrigger) => Promise<AttemptOutcome>;
  /**
   * After an attempt whose outcome stayed unknown: the grant it made, read from the holder key, or
   * undefined when the key is not the caller's (issue 11, L2: a committed grant reported as wait-timeout
   * leaked on the caller's live session). Rejects when the read fails too.
   */
  readonly resolve: () => Promise<Grant | undefined>;
  /**
   * At a wait's end with no attempt in doubt: the caller's session's own hold of the key, if it has one
   * (a read). Another task of the same session may have been granted it by a request whose answer was
   * lost; this waiter is then answered with it (re-entered, ADR-13), not `wait-timeout` while its session
   * holds the key (issue 11, swarm seed 340). Absent: wait-timeout without a read.
   */
  readonly ownHold?: () => Promise<Grant | undefined>;
  /**
   * A read of the holder key (it writes nothing): the revision at which another session was seen holding
   * the key, or undefined when it may be free (or is this session's). A poll reads first and sends the
   * grant txn only when the key may be free: a poll of a held key then costs a read, not a Raft entry,
   * and a poll sent while the leader is gone is answered when a new one is elected ("leader changed"),
   * where a grant txn forwarded to the dead leader waited out etcd's 7 s request timeout and held the
   * line's head that long after the key was released (issue 12). Absent: polls attempt at once.
   */
  readonly heldAt?: () => Promise<Revision | undefined>;
}

export const MAX_WAITERS_PER_KEY = 10_000;
const POLL_JITTER_FRACTION = 0.2;

const YIELD = Symbol('yield');

interface PendingWake {
  readonly trigger: AttemptTrigger;
  /** The newest change the wake reports; undefined for one that names none (a poll, a broken watch), never stale. */
  readonly changedAt: bigint | undefined;
}

/** Two wakes not yet served are one: the later trigger, stale only if both named a change already seen. */
function mergeWake(pending: PendingWake | undefined, next: PendingWake): PendingWake {
  if (pending === undefined) return next;
  const changedAt = pending.changedAt === undefined || next.changedAt === undefined ? undefined : pending.changedAt > next.changedAt ? pending.changedAt : next.changedAt;
  return { trigger: next.trigger, changedAt };
}
interface Waiter {
  /** A durable waiter's place in the log's line (its waiter key's create revision); it moves when the place is taken again (rerank). */
  rank: bigint | undefined;
  /** An in-memory waiter's place: the order its acquire reached this arbiter (see join). */
  readonly arrival: number | undefined;
  readonly contender: Contender;
  /** The last attempt's outcome is unknown: the wait may not end before resolving it. */
  inDoubt: boolean;
  /** An attempt of this waiter is in flight: it may grant, so the waiter cannot be timed out of the line now. */
  attempting: boolean;
  /** The last attempt found others ahead in the durable line rather than the key held (for the timeout's words). */
  aheadInLine: boolean;
  readonly deadlineMs: number;
  readonly resolve: (grant: Grant) => void;
  readonly reject: (error: unknown) => void;
  /** Fires once the waiter has left the line (granted, refused or timed out): ends its deadline timer. */
  readonly settled: CancelSource;
}

export interface KeyQueueDeps {
  readonly gateway: LogGateway;
  readonly clock: Clock;
  readonly random: Random;
  readonly holderKey: string;
  readonly pollIntervalMs: number;
  readonly shutdown: CancelSource;
  readonly onEmpty: () => void;
}

export class KeyQueue {
  private readonly waiters: Waiter[] = [];
  private wakeSource = new CancelSource();
  /** A wake (or the poll fallback) not yet served: what caused it, and the newest change it reports. */
  private pendingWake: PendingWake | undefined;
  private watch: Watch | undefined;
  private watchStarting = false;
  /** Set once the line has emptied and told its arbiter (onEmpty), which forgets it: nobody may join it again. */
  private forgotten = false;
  /** Attempts made: the hot-key scenario reports attempts per release from it. */
  attempts = 0;

  constructor(private readonly deps: KeyQueueDeps) {}

  get length(): number {
    return this.waiters.length;
  }

  /**
   * Joins the line. `seenHeldAt`: the revision at which the caller saw the key held, if it tried.
   * `rank`: a durable waiter's place in the log's line. `arrival`: an in-memory waiter's place, the order
   * its acquire reached the arbiter. A waiter joins when its arrival's reads (and, while the line is
   * forming, its own first grant attempt) have returned, so join order is not arrival order: a waiter that
   * made a grant attempt joined behind one that arrived later and only read (hot-key, memory, seed 1:
   * waiter-003 granted before waiter-002). The line is therefore ordered by arrival, not by join (ADR-14).
   */
  join(contender: Contender, deadlineMs: number, seenHeldAt: Revision | undefined, rank?: bigint, arrival?: number): Promise<Grant> {
    // A line its arbiter has forgotten is woken by nothing it does: joining one is a programmer error
    // (it happened when an acquire held a reference to the line across an await).
    assert(!this.forgotten, () => `a waiter joined the forgotten line of ${this.deps.holderKey}`);
    if (this.waiters.length >= MAX_WAITERS_PER_KEY) {
      return Promise.reject(new LockError('contended', `${MAX_WAITERS_PER_KEY} waiters already queue for this key; retry later`));
    }
    if (seenHeldAt !== undefined) this.ensureWatch(seenHeldAt);
    return new Promise<Grant>((resolve, reject) => {
      const waiter: Waiter = { rank, arrival, contender, inDoubt: false, attempting: false, aheadInLine: false, deadlineMs, resolve, reject, settled: new CancelSource() };
      const at = this.placeFor(rank, arrival);
      this.waiters.splice(at, 0, waiter);
      if (this.waiters.length === 1) void this.serve();
      else {
        void this.expireInLine(waiter);
        if (at === 0) this.wake();
      }
    });
  }

  /**
   * Where a waiter with this place goes: before the first waiter placed after it (a durable rank before a
   * larger rank, an arrival before a later arrival), or at the back when it has no place or none is later.
   */
  private placeFor(rank: bigint | undefined, arrival: number | undefined): number {
    let at = -1;
    if (rank !== undefined) at = this.waiters.findIndex((w) => w.rank !== undefined && w.rank > rank);
    else if (arrival !== undefined) at = this.waiters.findIndex((w) => w.rank === undefined && w.arrival !== undefined && w.arrival > arrival);
    return at < 0 ? this.waiters.length : at;
  }

  /** The newest revision an attempt of this line has seen: a hint about a change at or before it is stale. */
  private seenRevision = -1n;

  /**
   * A hint that the key may be free: a watch event, or a release through this arbiter. Both report the
   * same delete; the one that arrives after an attempt already saw that revision is dropped, so one
   * release causes one attempt (ADR-14).
   */
  wake(trigger: AttemptTrigger = 'hint', changedAt?: bigint): void {
    if (changedAt !== undefined && changedAt <= this.seenRevision) return;
    this.pendingWake = mergeWake(this.pendingWake, { trigger, changedAt });
    this.wakeSource.cancel();
  }

  private async serve(): Promise<void> {
    for (let head = this.waiters[0]; head !== undefined; head = this.waiters[0]) {
      try {
        const result = await this.serveHead(head);
        if (result === YIELD) {
          void this.expireInLine(head);
          continue;
        }
        head.resolve(result);
      } catch (error) {
        head.reject(error);
      }
      head.settled.cancel();
      // Only serve() and expireInLine remove waiters, and expireInLine never removes one whose attempt
      // is in flight: a served waiter is still in the line (splice(-1) would remove the last one).
      const index = this.waiters.indexOf(head);
      assert(index >= 0, () => `a waiter for ${this.deps.holderKey} was served after it had left the line`);
      this.waiters.splice(index, 1);
    }
    await this.stopWatch();
    if (this.waiters.length === 0) {
      this.forgotten = true;
      this.deps.onEmpty();
    }
  }

  private async serveHead(waiter: Waiter): Promise<Grant | typeof YIELD> {
    for (;;) {
      if (this.waiters[0] !== waiter) return YIELD;
      // The deadline comes before any pending wake: no attempt starts once the wait is over, even for a
      // wake that arrived in time (it was served after the deadline, granting a caller whose wait had ended).
      const remainingMs = waiter.deadlineMs - this.deps.clock.now();
      if (remainingMs <= 0) return this.giveUp(waiter);
      const wake = this.pendingWake;
      if (wake !== undefined) {
        this.pendingWake = undefined;
        if (wake.changedAt !== undefined && wake.changedAt <= this.seenRevision) continue; // stale: seen already
        const outcome = await this.tryOnce(waiter, wake.trigger);
        if (outcome !== undefined) return outcome;
        continue; // a wake that arrived during the attempt is served at once
      }
      const pollMs = jitteredMs(this.deps.random, this.deps.pollIntervalMs, POLL_JITTER_FRACTION);
      let woken: boolean;
      try {
        woken = await this.sleep(Math.min(pollMs, remainingMs));
      } catch (shutdown) {
        // `unavailable` says nothing happened (lock-error.ts), so a client moves on or gives up; told it
        // with an attempt in doubt, it left a grant that had committed on its live session, owned by
        // nobody, blocking the key while that session lived (ADR-05/07: an answer says what is known).
        if (waiter.inDoubt) return await this.settleBeforeRefusal(waiter, shutdown);
        throw shutdown;
      }
      // The poll fallback (ADR-15) names no revision, so it is never stale: it once kept the revision of
      // the last hint, and after an attempt had seen that one every later poll was dropped (issue 11, L3).
      if (!woken) this.pendingWake = mergeWake(this.pendingWake, { trigger: 'poll', changedAt: undefined });
    }
  }

  /**
   * Only the head is served, and serveHead enforces the head's deadline; a waiter further back must
   * still leave at its own deadline, not when the waiters ahead of it are done (without this, a 300 ms
   * wait behind a 3 s one ended after 3 s). Leaving keeps the others' order (ADR-14).
   */
  private async expireInLine(waiter: Waiter): Promise<void> {
    const detach = onCancel(this.deps.shutdown, () => waiter.settled.cancel()); // shutdown rejects it via serve()
    try {
      // A timer may fire a little early by this clock: the wait ends only once the deadline has passed.
      for (let remainingMs = waiter.deadlineMs - this.deps.clock.now(); remainingMs > 0; remainingMs = waiter.deadlineMs - this.deps.clock.now()) {
        await this.deps.clock.sleep(remainingMs, waiter.settled.signal);
      }
    } catch {
      return; // it left the line first
    } finally {
      detach();
    }
    const index = this.waiters.indexOf(waiter);
    // Gone, or now the head: serveHead enforces its deadline. Attempting (a head pushed back by an earlier
    // durable waiter mid-attempt): the attempt may grant, so it ends first, and serveHead then yields it here
    // again; timing it out now lost a grant its caller was never told of.
    if (index <= 0 || waiter.attempting) return;
    this.waiters.splice(index, 1);
    waiter.settled.cancel();
    this.giveUp(waiter).then(waiter.resolve, waiter.reject);
  }

  /**
   * The end of a wait at its deadline: wait-timeout, unless the waiter's last attempt is in doubt. Then
   * the holder key decides (L2): its grant if the attempt did commit, wait-timeout if not, and
   * `indeterminate` if even that read fails, never a guess.
   */
  private async giveUp(waiter: Waiter): Promise<Grant> {
    if (waiter.inDoubt) {
      let mine: Grant | undefined;
      try {
        mine = await waiter.contender.resolve();
      } catch (error) {
        throw new LockError('indeterminate', 'the last grant attempt got no answer, and the holder key could not be read before the wait ended: the key may be held by this session; inspect it, or acquire again on the same session (it returns the hold if there is one)', { cause: error });
      }
      if (mine !== undefined) return mine;
    } else {
      const mine = await waiter.contender.ownHold?.().catch(() => undefined); // unreadable: the wait is over all the same
      if (mine !== undefined) return mine;
    }
    throw new LockError('wait-timeout', waiter.aheadInLine
      ? 'other waiters kept the first places in the durable line (ADR-14) for the whole wait; retry later or wait longer'
      : 'the key stayed held for the whole wait; retry later or wait longer');
  }

  /** A waiter with an attempt in doubt meets a refusal: its own grant if that attempt made one, else the refusal. */
  private async settleBeforeRefusal(waiter: Waiter, refusal: unknown): Promise<Grant> {
    let mine: Grant | undefined;
    try {
      mine = await waiter.contender.resolve();
    } catch (error) {
      throw new LockError('indeterminate', 'an earlier grant attempt got no answer, and it could not be settled before the wait was refused: the key may be held by this session; inspect it, or acquire again on the same session (it returns the hold if there is one)', { cause: error });
    }
    if (mine !== undefined) return mine;
    throw refusal;
  }

  /** One attempt; undefined when the key is still held (or the log is briefly unreachable). */
  private async tryOnce(waiter: Waiter, trigger: AttemptTrigger): Promise<Grant | undefined> {
    this.attempts += 1;
    assert(!waiter.attempting, 'one attempt at a time per waiter');
    waiter.attempting = true;
    try {
      const heldAt = trigger === 'poll' ? await waiter.contender.heldAt?.() : undefined;
      if (heldAt !== undefined) {
        if (heldAt > this.seenRevision) this.seenRevision = heldAt;
        this.ensureWatch(heldAt);
        return undefined;
      }
      // The poll's read may have taken etcd's whole deadline (a stuck member): no grant starts once the
      // wait is over, as serveHead would not start one (issue 11, swarm seed 371).
      if (this.deps.clock.now() >= waiter.deadlineMs) return undefined;
      const outcome = await waiter.contender.attempt(trigger);
      waiter.inDoubt = false;
      const seen = 'granted' in outcome ? outcome.granted.revision : outcome.contendedAt;
      if (seen > this.seenRevision) this.seenRevision = seen;
      if ('granted' in outcome) return outcome.granted;
      waiter.aheadInLine = outcome.aheadInLine === true;
      if (outcome.rank !== undefined && outcome.rank !== waiter.rank) this.rerank(waiter, outcome.rank);
      this.ensureWatch(outcome.contendedAt);
      return undefined;
    } catch (error) {
      // The attempt itself resolves a grant txn that timed out by reading the holder key; this is one
      // whose read failed too. The next attempt finds our own hold if it committed (classifyGrant's
      // re-entered), and a wait that ends first resolves it (giveUp). Unreachable logs are retried at
      // the next poll until the deadline.
      if (isLockError(error, 'indeterminate')) waiter.inDoubt = true;
      if (isLockError(error, 'unavailable') || isLockError(error, 'indeterminate')) return undefined;
      // A definite refusal now (the range began to drain, say) must not hide an earlier attempt of this
      // waiter still in doubt: that one may have granted (issue 11, swarm seed 2311: answered `draining`
      // with its grant in the log). Settle it first, as at the deadline.
      if (waiter.inDoubt) return await this.settleBeforeRefusal(waiter, error);
      throw error;
    } finally {
      waiter.attempting = false;
    }
  }

  /**
   * Moves a durable waiter to where its place in the log's line now puts it. Only the head attempts, so a
   * head whose place went to the back (behind a waiter of this very line) must give way: it kept its old
   * rank before, attempted, was told 'behind', and the line's real first waiter never attempted until the
   * stale head's deadline (the explorer's seed 25: two tasks of one session sharing a place, issue 11).
   */
  private rerank(waiter: Waiter, rank: bigint): void {
    const index = this.waiters.indexOf(waiter);
    assert(index >= 0, () => `a waiter of ${this.deps.holderKey} was re-ranked after it had left the line`);
    this.waiters.splice(index, 1);
    waiter.rank = rank;
    this.waiters.splice(this.placeFor(rank, waiter.arrival), 0, waiter);
    if (this.waiters[0] !== waiter) this.wake('hint'); // the new head attempts at once: it may be the line's first
  }

  /** Sleeps until woken (true) or the time passes (false); rejects when the arbiter shuts down. */
  private async sleep(ms: number): Promise<boolean> {
    const shutdown = this.deps.shutdown;
    if (shutdown.aborted) throw new LockError('unavailable', 'the arbiter is shutting down');
    const detach = (): void => this.wakeSource.cancel();
    shutdown.addEventListener('abort', detach);
    try {
      await this.deps.clock.sleep(ms, this.wakeSource.signal);
      return false;
    } catch (error) {
      if (!(error instanceof CancelledError)) throw error;
      this.wakeSource = new CancelSource();
      if (shutdown.aborted) throw new LockError('unavailable', 'the arbiter is shutting down');
      return true;
    } finally {
      shutdown.removeEventListener('abort', detach);
    }
  }

  private ensureWatch(seenHeldAt: Revision): void {
    if (this.watch !== undefined || this.watchStarting) return;
    this.watchStarting = true;
    this.deps.gateway
      .watch(
        { key: this.deps.holderKey, startRevision: revision(seenHeldAt + 1n) },
        {
          onEvents: (batch) => {
            const deleted = batch.events.find((event) => event.type === 'delete');
            if (deleted !== undefined) this.wake('watch-event', deleted.kv.modRevision);
          },
          onError: () => {
            // Compacted or broken: try the grant at once; the next refusal re-watches from its revision.
            this.watch = undefined;
            this.wake();
          },
        },
      )
      .then(
        async (watch) => {
          this.watchStarting = false;
          if (this.waiters.length === 0) await watch.cancel();
          else this.watch = watch;
        },
        () => {
          this.watchStarting = false; // polling covers a watch that could not start
        },
      );
  }

  private async stopWatch(): Promise<void> {
    const watch = this.watch;
    this.watch = undefined;
    if (watch !== undefined) await watch.cancel().catch(() => undefined);
  }
}
