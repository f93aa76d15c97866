// ADR-14, class option `fairness: durable`: a waiter's place in line is a key in the log,
// /q/<key>//<session lease id> (lock-key.ts says why `//`), so the line survives an arbiter restart or a
// move to another arbiter replica. Order is the waiter keys' create revision (etcd's concurrency
// recipe); only the first waiter attempts the grant, and the grant txn deletes its waiter key.
// Re-putting an existing key keeps its create revision, so a waiter that comes back through another
// arbiter keeps its place. The key is put on its arbiter's waiting lease, not the waiter's session
// (waiter-lease.ts: a place must end when nobody waits in it, issue 11, L5). Cost: two consensus writes
// per waiter (put and delete), which is why it is a priced class option, not the default.
import { assert } from '../assert.js';
import { LockError, isLockError } from '../lock-error.js';
import type { LockKey } from '../lock-key.js';
import { waiterPrefixOf } from '../lock-key.js';
import type { Clock } from '../ports/clock.js';
import { isLockLogError } from '../ports/lock-log-error.js';
import type { LeaseId, Revision } from '../units.js';
import type { LogGateway } from './log-gateway.js';
import { IDEMPOTENT_REQUEST_TIMEOUT_MS, mayRetry, retryWithin } from './log-retry.js';
import type { WaiterLease } from './waiter-lease.js';

/** A join's shortest deadline: a put to a healthy quorum is a few fsyncs (ADR-13), far below it. */
const MIN_JOIN_TIMEOUT_MS = 250;

export class DurableTurn {
  readonly waiterKey: string;

  /** The waiting lease this turn last put its key on. */
  private putOn: LeaseId | undefined;

  constructor(
    private readonly gateway: LogGateway,
    private readonly places: WaiterLease,
    private readonly key: LockKey,
    readonly sessionId: LeaseId,
    /** The waiter's deadline on the arbiter's clock: a join is not waited on past it. */
    private readonly wait: { readonly clock: Clock; readonly deadlineMs: number },
  ) {
    this.waiterKey = `${waiterPrefixOf(key)}${sessionId.toString(10)}`;
  }

  /** Takes a place in line (or keeps the one this session already has); its rank is the key's create revision. */
  async join(): Promise<bigint> {
    try {
      return await this.putPlace();
    } catch (error) {
      // A join cannot grant, so a join whose copies all went unanswered until the retry policy gave up at
      // the waiter's deadline answers what the wait is: over.
      if (mayRetry(error, 'idempotent')) {
        throw new LockError('wait-timeout', `could not take a place in the durable line for ${this.key.text} within the wait (ADR-14); retry later or wait longer`);
      }
      throw error;
    }
  }

  private async putPlace(): Promise<bigint> {
    for (let tries = 1; ; tries += 1) {
      const lease = await this.places.id();
      // Before the put, not after: a put whose answer was lost may have landed, and a place nobody knows
      // of stays first in line while this arbiter's other waiters keep its lease alive (issue 11, L5).
      this.putOn = lease;
      try {
        // The put is safe to send twice (a re-put keeps the key's create revision, and its prevKv names
        // the rank the first copy took), so it goes as a release does (log-retry.ts): a short deadline per
        // copy, another copy when one is lost, and never past the waiter's deadline. Waiting out etcd's
        // full deadline for a lost answer left the place it had put first in line for nobody, the key
        // free, the waiter behind it and this one both waiting (issue 11, free-key-wait, swarm seeds 293, 324).
        // A copy whose answer was lost is settled by a read of the place (a read writes nothing, and is
        // answered where a write's answer was lost): one found on this lease is the join (seed 715).
        return await retryWithin({ clock: this.wait.clock, kind: 'idempotent', deadlineMs: this.wait.deadlineMs }, async () => {
          try {
            const response = await this.gateway.txn(
              { compare: [], success: [{ type: 'put', key: this.waiterKey, value: '', lease, prevKv: true }], failure: [], timeoutMs: this.sendTimeoutMs() },
              { passThrough: ['lease-not-found'] },
            );
            const op = response.responses[0];
            return op?.type === 'put' && op.prevKv !== undefined ? op.prevKv.createRevision : response.header.revision;
          } catch (error) {
            if (!isLockError(error, 'indeterminate')) throw error;
            const placed = await this.placeOn(lease).catch(() => undefined);
            if (placed === undefined) throw error;
            return placed;
          }
        });
      } catch (error) {
        // The waiting lease ended (this arbiter was paused past its TTL): once more on a new one.
        if (!isLockLogError(error, 'lease-not-found')) throw error;
        this.places.ended(lease);
        if (tries >= 2) throw new LockError('unavailable', 'could not keep a waiting lease for the durable line; retry');
      }
    }
  }

  /** The rank of this waiter's place if the log holds it on `lease`, read; undefined if it holds none there. */
  private async placeOn(lease: LeaseId): Promise<bigint | undefined> {
    const read = await this.gateway.range({ key: this.waiterKey, timeoutMs: this.sendTimeoutMs() });
    const kv = read.kvs[0];
    return kv !== undefined && kv.lease === lease ? kv.createRevision : undefined;
  }

  /** One copy's deadline: an idempotent write's, cut to what is left of the wait, but never below a floor a healthy log answers a put within. */
  private sendTimeoutMs(): number {
    return Math.min(IDEMPOTENT_REQUEST_TIMEOUT_MS, Math.max(MIN_JOIN_TIMEOUT_MS, this.wait.deadlineMs - this.wait.clock.now()));
  }

  /**
   * Where this waiter stands, read from the log: first in line, behind others, or gone. `seenAt` is the
   * revision the line was read at. Gone has two causes, told apart by the caller (issue 11, L1): this
   * waiter's own grant committed (the grant txn deletes the waiter key), or an epoch advance cleared /q.
   */
  async position(): Promise<{ readonly kind: 'first' | 'behind' | 'gone'; readonly seenAt: Revision; readonly lineEmpty: boolean; readonly rank?: bigint }> {
    const prefix = waiterPrefixOf(this.key);
    const line = await this.gateway.range({ key: prefix, prefix: true });
    assert(line.kvs.every((kv) => kv.key.startsWith(prefix)), () => `a prefix read of ${prefix} answered a key outside it`);
    let first: { key: string; createRevision: Revision } | undefined;
    for (const kv of line.kvs) {
      if (first === undefined || kv.createRevision < first.createRevision) first = kv;
    }
    const mine = line.kvs.find((kv) => kv.key === this.waiterKey);
    const kind = mine === undefined ? 'gone' : first?.key === this.waiterKey ? 'first' : 'behind';
    return { kind, seenAt: line.header.revision, lineEmpty: first === undefined, ...(mine === undefined ? {} : { rank: mine.createRevision }) };
  }

  /** Leaves the line: its place goes now, or (if the log cannot be reached) at its arbiter's next sweep of the waiting lease, or with the lease (waiter-lease.ts). */
  async leave(): Promise<void> {
    if (this.putOn !== undefined) await this.places.leave(this.waiterKey, this.putOn);
  }
}
