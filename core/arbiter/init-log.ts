// The operator's first step on a new lock log (ADR-03): write the epoch record, bound to the cluster ID
// the log answers with. No arbiter ever does this by itself: an arbiter that finds no epoch record seals,
// because a log without one is either brand new or was wiped or replaced, and only a person can tell which.
// An arbiter that bootstrapped silently gave a wiped cluster epoch 1 again, and so issued again tokens it
// had issued before the wipe (issue 11, S3). `lockstep init` drives this against real etcd; the simulated
// World runs it before its arbiters start.
import { LockError } from '../lock-error.js';
import { HOLDER_PREFIX, WAITER_PREFIX } from '../lock-key.js';
import type { LockLog } from '../ports/lock-log.js';
import { EPOCH_LIMIT } from '../token.js';
import type { Revision } from '../units.js';
import { EPOCH_KEY, SESSION_PREFIX, formatEpochRecord } from './records.js';

/** Every key space lockstep writes: a log holding any of them is not new. */
export const LOCKSTEP_PREFIXES = ['/sys/', HOLDER_PREFIX, WAITER_PREFIX, SESSION_PREFIX] as const;

export interface InitLogOptions {
  /**
   * The first epoch; 1 on a brand-new cluster. A cluster that replaces one which already served tokens
   * must start above every epoch that one served (ADR-02: tokens never go backwards), until epochs are
   * allocated outside the log they protect (ADR-03/07, the coord cluster).
   */
  readonly epoch?: number;
}

export interface InitLogResult {
  readonly epoch: number;
  readonly clusterId: bigint;
  /** The revision of the txn that wrote the record. */
  readonly revision: Revision;
}

export async function initLog(log: LockLog, options: InitLogOptions = {}): Promise<InitLogResult> {
  const epoch = options.epoch ?? 1;
  if (!Number.isInteger(epoch) || epoch < 1 || epoch >= EPOCH_LIMIT) {
    throw new LockError('invalid-argument', `epoch ${epoch} must be an integer from 1 to ${EPOCH_LIMIT - 1} (ADR-02: epoch < 2^15)`);
  }
  for (const prefix of LOCKSTEP_PREFIXES) { // /sys/ first: a log with an epoch record is told so by name
    const found = await log.range({ key: prefix, prefix: true, limit: 1 });
    const kv = found.kvs[0];
    if (kv !== undefined) {
      const what = kv.key === EPOCH_KEY ? 'an epoch record' : `lockstep keys (${JSON.stringify(kv.key)} among ${found.count})`;
      throw new LockError('invalid-argument', `the log already holds ${what}: it is not new, so it is not initialised again (a restored or replaced log is reopened by an epoch advance with two approvers, ADR-03)`);
    }
  }
  // The compare makes two operators initialising at once safe: one writes, the other is refused.
  const clusterId = (await log.range({ key: EPOCH_KEY })).header.clusterId;
  const written = await log.txn({
    compare: [{ key: EPOCH_KEY, target: 'create', op: '=', value: 0n }],
    success: [{ type: 'put', key: EPOCH_KEY, value: formatEpochRecord({ epoch, clusterId }) }],
    failure: [],
  });
  if (!written.succeeded) throw new LockError('invalid-argument', 'another operator initialised the log at the same moment; it is initialised now');
  if (written.header.clusterId !== clusterId) {
    // The log answered as two clusters within one procedure: refuse to leave a record bound to the wrong one.
    throw new LockError('unavailable', `the log answered as cluster ${clusterId.toString(16)} and then ${written.header.clusterId.toString(16)} during init; check the endpoints name one cluster`);
  }
  return { epoch, clusterId, revision: written.header.revision };
}
