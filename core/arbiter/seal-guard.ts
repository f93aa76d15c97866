// ADR-03: the arbiter refuses to serve a log that is not the one its epoch was minted for.
// Two tests, on every response header:
// - the cluster ID differs from the one in the epoch record (a restore with a new cluster token);
// - the revision went backwards from one already seen by a request that had completed before this
//   one was sent (a restore that kept the cluster ID: etcd derives the ID from member IDs, which come
//   from peer URLs and the cluster token, so a same-token restore keeps it; etcd-behaviour.md §5.1).
// The floor is taken at send time, not compared with every later response, because concurrent
// requests legitimately complete out of revision order; only a request *invoked after* a response at
// revision R must see R or more (linearizability).
import type { SealReason } from '../ports/arbiter-api.js';
import type { ResponseHeader } from '../ports/lock-log.js';
import { LockError } from '../lock-error.js';

export class SealGuard {
  private highestSeenRevision = 0n;
  private expectedClusterId: bigint | undefined;
  private reason: SealReason | undefined;

  get sealed(): SealReason | undefined {
    return this.reason;
  }

  /** The cluster the current epoch is bound to; headers are checked against it from now on. */
  bindCluster(clusterId: bigint): void {
    this.expectedClusterId = clusterId;
  }

  /** The revision every linearizable response from now on must reach. */
  floor(): bigint {
    return this.highestSeenRevision;
  }

  /** Throws `sealed` if already sealed. */
  assertOpen(): void {
    if (this.reason !== undefined) throw sealedError(this.reason);
  }

  /**
   * Checks one response header. `floor` is what floor() returned when the request was sent, for
   * requests whose header revision is linearizable (txn, linearizable range, lease grant/revoke);
   * undefined for headers that may come from a lagging member (keepalive, watch, serializable reads).
   */
  observe(header: ResponseHeader, floor: bigint | undefined): void {
    if (this.expectedClusterId !== undefined && header.clusterId !== this.expectedClusterId) {
      this.seal({ kind: 'cluster-id-mismatch', expected: this.expectedClusterId, seen: header.clusterId });
    }
    if (floor !== undefined && header.revision < floor) {
      this.seal({ kind: 'revision-regression', highestSeen: floor, seen: header.revision });
    }
    if (floor !== undefined && header.revision > this.highestSeenRevision) this.highestSeenRevision = header.revision;
    this.assertOpen();
  }

  /** After an epoch advance: the new epoch is bound to `clusterId`, revisions start again from `revision`. */
  reset(clusterId: bigint, revision: bigint): void {
    this.reason = undefined;
    this.expectedClusterId = clusterId;
    this.highestSeenRevision = revision;
  }

  seal(reason: SealReason): void {
    this.reason ??= reason;
  }
}

export function sealedError(reason: SealReason): LockError {
  if (reason.kind === 'no-epoch-record') {
    return new LockError('sealed', `${describeSeal(reason)}: a new log must first be initialised by an operator (lockstep init --endpoints ...); a wiped or replaced one serves nothing until two approvers advance the epoch (ADR-03)`, { seal: reason });
  }
  return new LockError('sealed', `${describeSeal(reason)}; the lock log was restored or replaced, and serves nothing until two approvers advance the epoch (ADR-03)`, { seal: reason });
}

export function describeSeal(reason: SealReason): string {
  switch (reason.kind) {
    case 'cluster-id-mismatch':
      return `cluster ID ${reason.seen.toString(16)} is not ${reason.expected.toString(16)}, the one the epoch was minted for`;
    case 'revision-regression':
      return `revision ${reason.seen} is below ${reason.highestSeen}, already seen from this cluster`;
    case 'epoch-regression':
      return `the epoch record names epoch ${reason.seen}, below epoch ${reason.highestSeen} already seen on this log`;
    case 'no-epoch-record':
      return 'the log has no epoch record';
  }
}
