// Where an entity cluster's epoch comes from (ADR-03/07, issue 19). Two sources:
// - single-cluster mode (SINGLE_CLUSTER_EPOCHS): the log's own /sys/epoch record is the only authority.
//   For small deployments (ADR-07: "in the MVP both tiers point at one cluster"). Its weaker guarantee:
//   an arbiter started after a same-token restore, or an epoch advance through a fresh arbiter after an
//   old-backup restore, can bring back an epoch whose tokens are already out (docs/seal-and-epochs.md).
// - coord mode (CoordEpochSource, coord-epochs.ts): the epoch record of each entity cluster lives on the
//   coord cluster, outside the log it protects, with the highest revision of a token handed out.
import type { SealReason } from '../ports/arbiter-api.js';
import type { ResponseHeader } from '../ports/lock-log.js';
import type { EpochRecord } from './records.js';

/** What an epoch advance needs allocated: an epoch above `atLeast - 1`, bound to `clusterId`. */
export interface EpochAllocation {
  /** The smallest epoch the entity log and the arbiter's own memory allow (their highest + 1). */
  readonly atLeast: number;
  readonly clusterId: bigint;
  /** The entity log's revision when the advance read it: its new revision floor. */
  readonly revision: bigint;
}

export interface EpochSource {
  /** 'single-cluster' or 'coord', for status and `--help`. */
  readonly mode: 'single-cluster' | 'coord';
  /**
   * Checks the entity log's record (already confirmed against the log's own header) against the authority,
   * before the arbiter serves it. Returns a seal reason when the entity log is not the one the authority
   * knows (restored, replaced), or undefined when it may be served.
   */
  check(record: EpochRecord, header: ResponseHeader): Promise<SealReason | undefined>;
  /** Resolves once the authority has recorded that a token of `epoch` at `revision` may be handed out. */
  witness(epoch: number, revision: bigint): Promise<void>;
  /** An epoch advance: allocates the new epoch (a coord txn in coord mode) before the entity log is written. */
  allocate(allocation: EpochAllocation): Promise<number>;
}

export const SINGLE_CLUSTER_EPOCHS: EpochSource = {
  mode: 'single-cluster',
  check: () => Promise.resolve(undefined),
  witness: () => Promise.resolve(),
  allocate: (allocation) => Promise.resolve(allocation.atLeast),
};
