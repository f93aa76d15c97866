// The arbiter's view of the epoch record (ADR-02/03). The cached record is only a hint: what a grant
// txn compares (so a record changed by another replica's epoch advance fails the grant, and the arbiter
// adopts the record its failure branch read), never what an answer is packed or judged with. Every
// answer that packs or compares an epoch (a token in inspect, validate, a re-entered hold, a release)
// reads the record in the same txn as the hold, or compares its mod revision there (issue 11, S2: a
// replica whose cache was stale called the current token invalid and packed a hold with the old epoch).
//
// Every record read is confirmed against what the arbiter knew when it sent the read: a record that is
// missing, bound to another cluster, or names an epoch below the highest this arbiter has seen seals it.
import { assert } from '../assert.js';
import { LockError } from '../lock-error.js';
import type { Compare, KeyValue, RequestOp, ResponseHeader, ResponseOp } from '../ports/lock-log.js';
import type { Revision } from '../units.js';
import { type EpochSource, SINGLE_CLUSTER_EPOCHS } from './epoch-source.js';
import type { LogGateway } from './log-gateway.js';
import { EPOCH_KEY, type EpochRecord, parseEpochRecord } from './records.js';
import { type SealGuard, sealedError } from './seal-guard.js';

export interface CurrentEpoch {
  readonly record: EpochRecord;
  /** The mod revision of /sys/epoch: what every grant txn compares. */
  readonly modRevision: Revision;
}

/** What `EpochState.read` returns: the reads asked for, and the epoch record read at the same revision. */
export interface EpochRead {
  readonly responses: readonly ResponseOp[];
  readonly epoch: CurrentEpoch;
  readonly header: ResponseHeader;
}

/** The compare that holds only while the epoch record is the one `current` names (ADR-03). */
export function epochUnchanged(current: CurrentEpoch): Compare {
  return { key: EPOCH_KEY, target: 'mod', op: '=', value: current.modRevision };
}

/** The read of the epoch record a txn's failure branch makes, so a changed record is adopted without a second read. */
export const EPOCH_RECORD_READ: RequestOp = { type: 'range', key: EPOCH_KEY };

export class EpochState {
  private current: CurrentEpoch | undefined;
  /** The highest epoch this arbiter has read or written: no record below it is ever accepted (the floor). */
  private highestEpoch = 0;
  private loading: Promise<CurrentEpoch> | undefined;

  constructor(
    private readonly gateway: LogGateway,
    private readonly guard: SealGuard,
    private readonly source: EpochSource = SINGLE_CLUSTER_EPOCHS,
  ) {}

  get known(): CurrentEpoch | undefined {
    return this.current;
  }

  /** The floor a read sent now is confirmed against: take it before sending (linearizability, as SealGuard.floor). */
  floor(): number {
    return this.highestEpoch;
  }

  /** The cached record, loading it on first use: for building a grant's compare, never for an answer. */
  async get(): Promise<CurrentEpoch> {
    if (this.current !== undefined) return this.current;
    return this.reload();
  }

  /** Reads the record again. Concurrent callers share one read. */
  reload(): Promise<CurrentEpoch> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /**
   * A read of the record of its own, never shared with one already in flight: the confirmation before a
   * write on a new connection must have been sent after the connection changed (write-confirmation.ts).
   */
  confirmCluster(): Promise<CurrentEpoch> {
    return this.load();
  }

  /**
   * Reads `ops` and the epoch record in one read-only txn (it writes nothing, so a refused or read-only
   * request still touches nothing: H1), confirmed as `confirm` does: an answer packed with this epoch is
   * the epoch of the log at the very revision the hold was read.
   */
  async read(ops: readonly RequestOp[]): Promise<EpochRead> {
    return this.readAfter([], ops);
  }

  /**
   * As read, after `writes` in the same txn: the reads see the log as those writes left it. For a write
   * whose only purpose is to order itself before whatever comes later (a grant guard, grant-attempt.ts).
   * `timeoutMs`: a shorter deadline for this txn (TxnRequest.timeoutMs).
   */
  async readAfter(writes: readonly RequestOp[], ops: readonly RequestOp[], timeoutMs?: number): Promise<EpochRead> {
    assert(ops.every((op) => op.type === 'range'), 'EpochState.read only reads');
    assert(writes.every((op) => op.type !== 'range'), 'EpochState.readAfter: the writes are writes');
    const floor = this.floor();
    const response = await this.gateway.txn({ compare: [], success: [...writes, ...ops, EPOCH_RECORD_READ], failure: [], ...(timeoutMs === undefined ? {} : { timeoutMs }) });
    const epochOp = response.responses[writes.length + ops.length];
    assert(response.succeeded && response.responses.length === writes.length + ops.length + 1 && epochOp?.type === 'range', () => `a txn of ${writes.length} writes and ${ops.length + 1} reads answered ${response.responses.length} ops`);
    return { responses: response.responses.slice(writes.length, writes.length + ops.length), epoch: this.confirm(epochOp.kvs[0], response.header, floor), header: response.header };
  }

  /**
   * Checks a record read linearizably (a range, or a txn's read) and returns it as read. `floorEpoch` is
   * what floor() said when the read was sent. Seals on a missing record (a wiped or replaced log), one
   * bound to another cluster than the header's, or one below the floor: a restore that kept the cluster
   * ID and bumped its revision past the revision floor brings back an old record, and adopting it minted
   * tokens below ones already issued. A newer record (an advance through another replica) is adopted.
   */
  confirm(kv: KeyValue | undefined, header: ResponseHeader, floorEpoch: number): CurrentEpoch {
    if (kv === undefined) {
      // No record: a brand-new log (an operator initialises it: initLog, `lockstep init`) or a wiped or
      // replaced one. Never bootstrap here: that gave a wiped cluster epoch 1 again (issue 11, S3).
      this.guard.seal({ kind: 'no-epoch-record' });
      throw sealedError(this.guard.sealed ?? { kind: 'no-epoch-record' });
    }
    assert(kv.key === EPOCH_KEY, () => `an epoch record read answered key ${kv.key}`);
    const record = parseEpochRecord(kv.value);
    if (record === undefined) throw unreadable(kv.value);
    const seen: CurrentEpoch = { record, modRevision: kv.modRevision };
    // Check the very header that carried the record: a restored log may carry an old record.
    if (header.clusterId !== record.clusterId) {
      this.guard.seal({ kind: 'cluster-id-mismatch', expected: record.clusterId, seen: header.clusterId });
      this.guard.assertOpen();
    }
    if (record.epoch < floorEpoch) {
      this.guard.seal({ kind: 'epoch-regression', highestSeen: floorEpoch, seen: record.epoch });
      this.guard.assertOpen();
      return this.take(seen); // only past a guard that never seals (the no-seal mutant, scenarios/mutants.ts)
    }
    this.takeIfNewer(seen);
    return seen;
  }

  /**
   * Adopts a record the arbiter has just written itself (an epoch advance), unless a newer one (a later
   * advance through another replica, read meanwhile) is already known.
   */
  adopt(kv: KeyValue): CurrentEpoch {
    const record = parseEpochRecord(kv.value);
    if (record === undefined) throw unreadable(kv.value);
    const written: CurrentEpoch = { record, modRevision: kv.modRevision };
    this.takeIfNewer(written);
    return written;
  }

  /**
   * ADR-03 with several arbiter replicas: an epoch advance made through one replica (two approvers) must
   * open the others too, or each would need its own advance, deleting every hold again. A record whose
   * epoch is above the one this arbiter knew, bound to the cluster the log answers as now, is exactly
   * what an advance writes: adopt it and start the revision floor again from this read.
   */
  async adoptAdvance(): Promise<boolean> {
    const knownEpoch = this.highestEpoch;
    const response = await this.gateway.range({ key: EPOCH_KEY }, { whileSealed: true });
    const kv = response.kvs[0];
    const record = kv === undefined ? undefined : parseEpochRecord(kv.value);
    if (kv === undefined || record === undefined || record.epoch <= knownEpoch || record.clusterId !== response.header.clusterId) return false;
    this.guard.reset(record.clusterId, response.header.revision);
    this.take({ record, modRevision: kv.modRevision });
    return true;
  }

  /**
   * Every load (the first read, and the confirmation before a write on a new connection) also asks the
   * epoch source: in coord mode the entity log's record must be the one the coord cluster holds for it,
   * at or above the highest revision handed out (coord-epochs.ts, issue 19).
   */
  private async load(): Promise<CurrentEpoch> {
    const floor = this.floor();
    const response = await this.gateway.range({ key: EPOCH_KEY });
    const seen = this.confirm(response.kvs[0], response.header, floor);
    const reason = await this.source.check(seen.record, response.header);
    if (reason !== undefined) {
      this.guard.seal(reason);
      this.guard.assertOpen();
    }
    return seen;
  }

  private takeIfNewer(seen: CurrentEpoch): void {
    const current = this.current;
    if (current === undefined || seen.record.epoch > current.record.epoch || (seen.record.epoch === current.record.epoch && seen.modRevision > current.modRevision)) this.take(seen);
  }

  private take(seen: CurrentEpoch): CurrentEpoch {
    this.current = seen;
    if (seen.record.epoch > this.highestEpoch) this.highestEpoch = seen.record.epoch;
    this.guard.bindCluster(seen.record.clusterId);
    return seen;
  }
}

function unreadable(value: string): LockError {
  return new LockError('sealed', `the epoch record ${EPOCH_KEY} is unreadable (${JSON.stringify(value.slice(0, 80))}); refusing to mint tokens against it (ADR-03)`, {
    seal: { kind: 'no-epoch-record' },
  });
}
