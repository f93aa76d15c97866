// The restore scenario's fixed setup (scenarios/restore.ts): its cluster, keys, timings and class, the
// variants' ways to restore, and what the operator records (ADR-03).
import type { LockClass } from '../core/classes/index.js';

export const TTL_SECONDS = 5;
export const CLUSTER = 'orders-etcd';
export const CLUSTER_TOKEN = 'orders-etcd'; // --initial-cluster-token of the original cluster
const NEW_TOKEN = 'orders-etcd-restored-1';
export const KEYS = ['orders/o-1', 'orders/o-2', 'orders/o-3', 'orders/o-4'];
export const WORKERS = 4;
export const SNAPSHOT_AT_MS = 3_000;
export const RESTORE_AT_MS = 6_000;
/** How long the operator takes, once the seal is seen, to get a second approver and run the advance. */
export const APPROVAL_MS = 2_000;
export const STATUS_POLL_MS = 250;
export const STOP_AT_MS = 17_000;
/** After the run: time for calls still in flight to reach their deadlines (RPC 8 s + a wait). */
export const RUN_FOR_MS = 19_000;


export const CLASS: LockClass = { namespace: 'orders', name: 'order-writes', purpose: 'correctness', enforcement: 'fenced', resource: 'sim://orders-db', ttlSeconds: TTL_SECONDS, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };

/** Workers stop this long before an idle snapshot or restore, and start again this long after it. */
export const IDLE_BEFORE_MS = 1_500;
export const IDLE_AFTER_MS = 300;
/** An idle snapshot or restore waits, polling this often, until the log holds nothing (at most QUIET_MAX_WAIT_MS). */
export const QUIET_POLL_MS = 50;
export const QUIET_MAX_WAIT_MS = 10_000;

export type Restore = {
  readonly clusterToken: string;
  readonly arbiters: 'reconnect' | 'restart';
  /** No lock traffic around the snapshot and the restore (see the header): the first request after the restore is a fresh acquire on a free key. */
  readonly idle: boolean;
  /**
   * The running arbiters confirm the cluster with a linearizable read before their first write on the
   * new connection (issue 19, core/arbiter/write-confirmation.ts). False only through the arbiter's seam,
   * to keep showing the arbiter as it was: sealed one write late.
   */
  readonly confirmBeforeWrite: boolean;
  /** Epochs from a coord cluster beside the entity cluster (issue 19, core/arbiter/coord-epochs.ts); else single-cluster mode. */
  readonly coord: boolean;
  /** An epoch advance (a drill) between the snapshot and the restore: the restore brings back an old backup, of an older epoch. */
  readonly advanceBeforeRestore: boolean;
};

const BASE = { confirmBeforeWrite: true, coord: false, advanceBeforeRestore: false } as const;
export const COORD = 'coord-etcd';

export function restoreOf(variant: string): Restore {
  switch (variant) {
    case 'new-token':
      return { ...BASE, clusterToken: NEW_TOKEN, arbiters: 'restart', idle: false };
    case 'new-token-running-arbiters':
      return { ...BASE, clusterToken: NEW_TOKEN, arbiters: 'reconnect', idle: true, confirmBeforeWrite: false };
    case 'new-token-running-arbiters-read-first':
      return { ...BASE, clusterToken: NEW_TOKEN, arbiters: 'reconnect', idle: true };
    case 'same-token-no-regression-seal':
      return { ...BASE, clusterToken: CLUSTER_TOKEN, arbiters: 'restart', idle: false };
    case 'same-token-running-arbiters':
      return { ...BASE, clusterToken: CLUSTER_TOKEN, arbiters: 'reconnect', idle: true, confirmBeforeWrite: false };
    case 'same-token-running-arbiters-read-first':
      return { ...BASE, clusterToken: CLUSTER_TOKEN, arbiters: 'reconnect', idle: true };
    case 'same-token-coord-epochs':
      return { ...BASE, clusterToken: CLUSTER_TOKEN, arbiters: 'restart', idle: false, coord: true };
    case 'old-backup-coord-epochs':
      return { ...BASE, clusterToken: CLUSTER_TOKEN, arbiters: 'restart', idle: true, coord: true, advanceBeforeRestore: true };
    case 'old-backup-single-cluster':
      return { ...BASE, clusterToken: CLUSTER_TOKEN, arbiters: 'restart', idle: true, advanceBeforeRestore: true };
    default:
      throw new RangeError(`restore: no variant ${variant}`);
  }
}

/** What the operator saw and did: the seal, and the epoch advance. */
export interface OperatorLog {
  /** The first seal the operator saw. */
  sealedAtMs?: number;
  sealReason?: string;
  /** Each arbiter replica's seal, as its status reported it (seen within the approval time). */
  readonly seals: Map<string, { readonly atMs: number; readonly reason: string }>;
  advancedAtMs?: number;
  holdsDeleted?: number;
  epoch?: number;
  advanceAttempts: number;
  /** When each arbiter replica first answered open in the new epoch. */
  readonly reopenedAtMs: Map<string, number>;
  /** The epoch the drill advanced to before the restore (old-backup variants). */
  drillEpoch?: number;
}

