// ADR-14, class option `fairness: durable`: a waiter's place in line is a key in the log,
// /q/<key>/<session lease id>, put on the waiter's own session lease, so the line survives an arbiter
// restart or a move to another arbiter replica, and vanishes with the waiter's session. Order is the
// waiter keys' create revision (etcd's concurrency recipe); only the first waiter attempts the grant,
// and the grant txn deletes its waiter key. Re-putting an existing key keeps its create revision, so a
// waiter that comes back through another arbiter keeps its place. Cost: two consensus writes per
// waiter (put and delete), which is why it is a priced class option, not the default.
import type { LockKey } from '../lock-key.js';
import { waiterPrefixOf } from '../lock-key.js';
import type { LeaseId, Revision } from '../units.js';
import type { LogGateway } from './log-gateway.js';

export class DurableTurn {
  readonly waiterKey: string;

  constructor(
    private readonly gateway: LogGateway,
    private readonly key: LockKey,
    readonly sessionId: LeaseId,
  ) {
    this.waiterKey = `${waiterPrefixOf(key)}${sessionId.toString(10)}`;
  }

  /** Takes a place in line (or keeps the one this session already has). */
  async join(): Promise<bigint> {
    const response = await this.gateway.txn({
      compare: [],
      success: [{ type: 'put', key: this.waiterKey, value: '', lease: this.sessionId, prevKv: true }],
      failure: [],
    });
    const op = response.responses[0];
    return op?.type === 'put' && op.prevKv !== undefined ? op.prevKv.createRevision : response.header.revision;
  }

  /**
   * Where this waiter stands, read from the log: first in line, behind others, or gone. `seenAt` is the
   * revision the line was read at. Gone has two causes, told apart by the caller (issue 11, L1): this
   * waiter's own grant committed (the grant txn deletes the waiter key), or an epoch advance cleared /q.
   */
  async position(): Promise<{ readonly kind: 'first' | 'behind' | 'gone'; readonly seenAt: Revision; readonly lineEmpty: boolean }> {
    const line = await this.gateway.range({ key: waiterPrefixOf(this.key), prefix: true });
    let first: { key: string; createRevision: Revision } | undefined;
    for (const kv of line.kvs) {
      if (first === undefined || kv.createRevision < first.createRevision) first = kv;
    }
    const kind = !line.kvs.some((kv) => kv.key === this.waiterKey) ? 'gone' : first?.key === this.waiterKey ? 'first' : 'behind';
    return { kind, seenAt: line.header.revision, lineEmpty: first === undefined };
  }

  async leave(): Promise<void> {
    await this.gateway.txn({ compare: [], success: [{ type: 'delete', key: this.waiterKey }], failure: [] });
  }
}
