// ADR-14, class option `fairness: durable`: a waiter's place in line is a key in the log,
// /q/<key>//<session lease id> (lock-key.ts says why `//`), so the line survives an arbiter restart or a
// move to another arbiter replica. Order is the waiter keys' create revision (etcd's concurrency
// recipe); only the first waiter attempts the grant, and the grant txn deletes its waiter key.
// Re-putting an existing key keeps its create revision, so a waiter that comes back through another
// arbiter keeps its place. The key is put on its arbiter's waiting lease, not the waiter's session
// (waiter-lease.ts: a place must end when nobody waits in it, issue 11, L5). Cost: two consensus writes
// per waiter (put and delete), which is why it is a priced class option, not the default.
import { assert } from '../assert.js';
import { LockError } from '../lock-error.js';
import type { LockKey } from '../lock-key.js';
import { waiterPrefixOf } from '../lock-key.js';
import { isLockLogError } from '../ports/lock-log-error.js';
import type { LeaseId, Revision } from '../units.js';
import type { LogGateway } from './log-gateway.js';
import type { WaiterLease } from './waiter-lease.js';

export class DurableTurn {
  readonly waiterKey: string;

  /** The waiting lease this turn last put its key on. */
  private putOn: LeaseId | undefined;

  constructor(
    private readonly gateway: LogGateway,
    private readonly places: WaiterLease,
    private readonly key: LockKey,
    readonly sessionId: LeaseId,
  ) {
    this.waiterKey = `${waiterPrefixOf(key)}${sessionId.toString(10)}`;
  }

  /** Takes a place in line (or keeps the one this session already has); its rank is the key's create revision. */
  async join(): Promise<bigint> {
    for (let tries = 1; ; tries += 1) {
      const lease = await this.places.id();
      try {
        const response = await this.gateway.txn(
          { compare: [], success: [{ type: 'put', key: this.waiterKey, value: '', lease, prevKv: true }], failure: [] },
          { passThrough: ['lease-not-found'] },
        );
        this.putOn = lease;
        const op = response.responses[0];
        return op?.type === 'put' && op.prevKv !== undefined ? op.prevKv.createRevision : response.header.revision;
      } catch (error) {
        // The waiting lease ended (this arbiter was paused past its TTL): once more on a new one.
        if (!isLockLogError(error, 'lease-not-found')) throw error;
        this.places.ended(lease);
        if (tries >= 2) throw new LockError('unavailable', 'could not keep a waiting lease for the durable line; retry');
      }
    }
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

  /** Leaves the line: its place goes now, or (if the log cannot be reached) at a retry or with its lease. */
  async leave(): Promise<void> {
    if (this.putOn !== undefined) await this.places.leave(this.waiterKey, this.putOn);
  }
}
