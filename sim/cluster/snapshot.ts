// A member's backend as a snapshot file holds it, and the restore of such a file into a new cluster
// (design/etcd-behaviour.md 5.2). The simulator keeps no bbolt pages: a snapshot is the sequence of
// state-changing operations that built the member's applied state (its applied Raft entries, after the
// snapshot it was itself restored from), and restoring replays them into a fresh state. Replay is exact:
// the same revisions, compaction point, key versions and leases. It runs with no primary lessor, so every
// lease comes back with expiry "forever" until a leader promotes (lessor.go initAndRecover l.798-826).
import type { Revision } from '../../core/units.js';
import { applyRequest, createEtcdState, stateDigest, type EtcdRequest, type EtcdState } from '../etcd/apply.js';
import type { LessorConfig } from '../etcd/lessor.js';

export type SnapshotOp =
  | { readonly kind: 'apply'; readonly request: EtcdRequest }
  /** 3.5 `etcdutl snapshot restore --bump-revision N --mark-compacted`. */
  | { readonly kind: 'bump-revision'; readonly amount: number };

export interface EtcdSnapshot {
  readonly ops: readonly SnapshotOp[];
  /** The store revision the snapshot holds: a restored cluster's next write gets this + 1. */
  readonly revision: Revision;
  readonly compactRevision: number;
  readonly leases: number;
  /** stateDigest of the snapshot's state, to compare with a restored member's. */
  readonly digest: string;
  /** Name of the member it was taken from. */
  readonly takenFrom: string;
}

/** The snapshot of `state`, whose history is `ops`. */
export function snapshotOf(ops: readonly SnapshotOp[], state: EtcdState, takenFrom: string): EtcdSnapshot {
  return {
    ops,
    revision: state.store.currentRevision(),
    compactRevision: state.store.compactRev,
    leases: state.lessor.leases().length,
    digest: stateDigest(state),
    takenFrom,
  };
}

/** The snapshot as `--bump-revision amount --mark-compacted` leaves it. */
export function bumpSnapshot(snapshot: EtcdSnapshot, amount: number): EtcdSnapshot {
  if (!(Number.isInteger(amount) && amount > 0)) throw new RangeError(`bumpRevision must be a positive whole number of revisions, got ${amount}`);
  const ops = [...snapshot.ops, { kind: 'bump-revision', amount } as const];
  const state = stateFromOps(ops, {});
  return snapshotOf(ops, state, snapshot.takenFrom);
}

/** A fresh member state holding what `ops` built; nothing is primary, so leases never expire here. */
export function stateFromOps(ops: readonly SnapshotOp[], lessor: LessorConfig): EtcdState {
  const state = createEtcdState({ lessor });
  for (const op of ops) {
    if (op.kind === 'bump-revision') state.store.bumpRevision(op.amount);
    else applyRequest(state, op.request, 0);
  }
  return state;
}
