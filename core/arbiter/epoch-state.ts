// The arbiter's view of the epoch record (ADR-02/03). Every grant compares the record's mod revision,
// so a record changed by another arbiter (an epoch advance) fails the grant txn, and the arbiter
// reloads and re-binds its seal before trying again.
import { LockError } from '../lock-error.js';
import type { KeyValue } from '../ports/lock-log.js';
import type { Revision } from '../units.js';
import type { LogGateway } from './log-gateway.js';
import { EPOCH_KEY, type EpochRecord, parseEpochRecord } from './records.js';
import { type SealGuard, sealedError } from './seal-guard.js';

export interface CurrentEpoch {
  readonly record: EpochRecord;
  /** The mod revision of /sys/epoch: what every grant txn compares. */
  readonly modRevision: Revision;
}

export class EpochState {
  private current: CurrentEpoch | undefined;
  private loading: Promise<CurrentEpoch> | undefined;

  constructor(
    private readonly gateway: LogGateway,
    private readonly guard: SealGuard,
  ) {}

  get known(): CurrentEpoch | undefined {
    return this.current;
  }

  /** The current epoch, loading it on first use. */
  async get(): Promise<CurrentEpoch> {
    if (this.current !== undefined) return this.current;
    return this.reload();
  }

  /** Reads the record again (after a grant txn saw it change). Concurrent callers share one read. */
  reload(): Promise<CurrentEpoch> {
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** Adopts a record the arbiter has just written or read in a txn. */
  adopt(kv: KeyValue): CurrentEpoch {
    const record = parseEpochRecord(kv.value);
    if (record === undefined) throw unreadable(kv.value);
    this.current = { record, modRevision: kv.modRevision };
    this.guard.bindCluster(record.clusterId);
    return this.current;
  }

  /**
   * ADR-03 with several arbiter replicas: an epoch advance made through one replica (two approvers) must
   * open the others too, or each would need its own advance, deleting every hold again. A record whose
   * epoch is above the one this arbiter knew, bound to the cluster the log answers as now, is exactly
   * what an advance writes: adopt it and start the revision floor again from this read.
   */
  async adoptAdvance(): Promise<boolean> {
    const knownEpoch = this.current?.record.epoch ?? 0;
    const response = await this.gateway.range({ key: EPOCH_KEY }, { whileSealed: true });
    const kv = response.kvs[0];
    const record = kv === undefined ? undefined : parseEpochRecord(kv.value);
    if (kv === undefined || record === undefined || record.epoch <= knownEpoch || record.clusterId !== response.header.clusterId) return false;
    this.guard.reset(record.clusterId, response.header.revision);
    this.adopt(kv);
    return true;
  }

  private async load(): Promise<CurrentEpoch> {
    const response = await this.gateway.range({ key: EPOCH_KEY });
    const kv = response.kvs[0];
    if (kv !== undefined) {
      const current = this.adopt(kv);
      // Check the very header that carried the record: a restored log may carry an old record.
      if (response.header.clusterId !== current.record.clusterId) {
        this.guard.seal({ kind: 'cluster-id-mismatch', expected: current.record.clusterId, seen: response.header.clusterId });
        this.guard.assertOpen();
      }
      return current;
    }
    // No record: a brand-new log (an operator initialises it: initLog, `lockstep init`) or a wiped or
    // replaced one. Never bootstrap here: that gave a wiped cluster epoch 1 again (issue 11, S3).
    this.guard.seal({ kind: 'no-epoch-record' });
    throw sealedError(this.guard.sealed ?? { kind: 'no-epoch-record' });
  }
}

function unreadable(value: string): LockError {
  return new LockError('sealed', `the epoch record ${EPOCH_KEY} is unreadable (${JSON.stringify(value.slice(0, 80))}); refusing to mint tokens against it (ADR-03)`, {
    seal: { kind: 'no-epoch-record' },
  });
}
