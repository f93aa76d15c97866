// The LockLog port: the subset of etcd's v3 API the design uses (ADR-05), shaped like etcd's own API so
// the etcd adapter (src/etcd/) stays thin and the simulated cluster (sim/) can be held to the same
// conformance suite. Keys and values are UTF-8 strings; revisions and ids are bigints.
import type { ClusterId, LeaseId, MemberId, Revision } from '../units.js';
import type { LockLogError } from './lock-log-error.js';

/** etcd's ResponseHeader: every response carries it, and the arbiter checks every one (ADR-03). */
export interface ResponseHeader {
  readonly clusterId: ClusterId;
  readonly memberId: MemberId;
  /** The serving member's store revision when it answered. */
  readonly revision: Revision;
  readonly raftTerm: bigint;
}

export interface KeyValue {
  readonly key: string;
  readonly value: string;
  readonly createRevision: Revision;
  readonly modRevision: Revision;
  readonly version: bigint;
  /** NO_LEASE (0n) when the key is not attached to a lease. */
  readonly lease: LeaseId;
}

/** A txn guard, with etcd's semantics: a missing key has create = mod = version = 0 and lease = 0. */
export type Compare =
  | { readonly key: string; readonly target: 'create' | 'mod' | 'version' | 'lease'; readonly op: CompareOp; readonly value: bigint }
  | { readonly key: string; readonly target: 'value'; readonly op: CompareOp; readonly value: string };
export type CompareOp = '=' | '!=' | '<' | '>';

export type RequestOp =
  | { readonly type: 'range'; readonly key: string; readonly prefix?: boolean; readonly limit?: number }
  | { readonly type: 'put'; readonly key: string; readonly value: string; readonly lease?: LeaseId; readonly prevKv?: boolean }
  | { readonly type: 'delete'; readonly key: string; readonly prefix?: boolean; readonly prevKv?: boolean };

export type ResponseOp =
  | { readonly type: 'range'; readonly kvs: readonly KeyValue[]; readonly count: number; readonly more: boolean }
  | { readonly type: 'put'; readonly prevKv?: KeyValue }
  | { readonly type: 'delete'; readonly deleted: number; readonly prevKvs: readonly KeyValue[] };

export interface TxnRequest {
  readonly compare: readonly Compare[];
  readonly success: readonly RequestOp[];
  readonly failure: readonly RequestOp[];
  /**
   * A deadline for this request shorter than the client's default (never longer): for a txn safe to send
   * twice, whose copy lost with a leader is better given up early (core/arbiter/log-retry.ts). Not sent
   * to etcd; a timeout moves the client's next call to the next member, as any timeout does.
   */
  readonly timeoutMs?: number;
}

/**
 * etcd isTxnReadonly (etcdserver/v3_server.go): no put or delete in either branch. A read-only txn writes
 * nothing whichever branch runs (the arbiter confirms the cluster only before writes; a client may send it again).
 */
export function isReadOnlyTxn(txn: Pick<TxnRequest, 'success' | 'failure'>): boolean {
  return txn.success.every(isRangeOp) && txn.failure.every(isRangeOp);
}

const isRangeOp = (op: RequestOp): boolean => op.type === 'range';

export interface TxnResponse {
  readonly header: ResponseHeader;
  readonly succeeded: boolean;
  /** One response per op of the branch taken, in order. */
  readonly responses: readonly ResponseOp[];
}

export interface RangeRequest {
  readonly key: string;
  readonly prefix?: boolean;
  readonly limit?: number;
  /** Read at this revision (etcd: ErrCompacted below the compaction point, ErrFutureRev above current). */
  readonly revision?: Revision;
  /** Serve from the local member without a ReadIndex round (not linearizable). Default false. */
  readonly serializable?: boolean;
  /** As TxnRequest.timeoutMs. */
  readonly timeoutMs?: number;
}

export interface RangeResponse {
  readonly header: ResponseHeader;
  readonly kvs: readonly KeyValue[];
  readonly count: number;
  readonly more: boolean;
}

export interface LeaseGrantResponse {
  readonly header: ResponseHeader;
  readonly id: LeaseId;
  /** The TTL etcd granted: raised to the cluster's minimum TTL (2 s by default) if asked for less. */
  readonly ttlSeconds: number;
}

export interface LeaseKeepAliveResponse {
  readonly header: ResponseHeader;
  readonly id: LeaseId;
  /** The lease's granted TTL after renewal; 0 means the lease no longer exists (etcd answers TTL 0). */
  readonly ttlSeconds: number;
}

export interface LeaseTimeToLiveResponse {
  readonly header: ResponseHeader;
  readonly id: LeaseId;
  /** Remaining seconds (truncated); -1 when the lease does not exist. */
  readonly ttlSeconds: number;
  readonly grantedTtlSeconds: number;
  readonly keys: readonly string[];
}

export interface StatusResponse {
  readonly header: ResponseHeader;
  readonly leader: MemberId;
  readonly raftIndex: bigint;
  readonly raftTerm: bigint;
  readonly version: string;
  readonly dbSizeBytes: number;
}

export interface WatchRequest {
  readonly key: string;
  readonly prefix?: boolean;
  /** First revision to deliver; absent = only changes after the watch is created. */
  readonly startRevision?: Revision;
  /** Deliver the previous value with each event. */
  readonly prevKv?: boolean;
}

export interface WatchEvent {
  readonly type: 'put' | 'delete';
  /** For a delete: the key with modRevision = the deleting revision and an empty value. */
  readonly kv: KeyValue;
  readonly prevKv?: KeyValue;
}

/** All events of one revision for one watcher arrive together, as etcd sends them. */
export interface WatchBatch {
  readonly header: ResponseHeader;
  readonly events: readonly WatchEvent[];
}

export interface WatchHandlers {
  onEvents(batch: WatchBatch): void;
  /**
   * The watch has ended and delivers nothing more: `compacted` (error.compactRevision says from where a
   * new watch may start), or the stream broke (`unavailable`). Not called after cancel().
   */
  onError(error: LockLogError): void;
}

export interface Watch {
  /** The header of the watch's "created" response. */
  readonly header: ResponseHeader;
  cancel(): Promise<void>;
}

/**
 * One etcd cluster, seen through one client. Every method rejects only with LockLogError; a write that
 * timed out has an indeterminate outcome (error.outcome === 'indeterminate'): it may have committed.
 */
export interface LockLog {
  txn(request: TxnRequest): Promise<TxnResponse>;
  range(request: RangeRequest): Promise<RangeResponse>;
  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse>;
  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse>;
  /** Rejects with `lease-not-found` when the lease does not exist. */
  leaseRevoke(id: LeaseId): Promise<{ readonly header: ResponseHeader }>;
  leaseTimeToLive(id: LeaseId, options?: { readonly keys?: boolean }): Promise<LeaseTimeToLiveResponse>;
  watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch>;
  compact(revision: Revision): Promise<{ readonly header: ResponseHeader }>;
  status(): Promise<StatusResponse>;
  close(): Promise<void>;
  /**
   * A number that changes whenever this client may have started talking to another server process than
   * before (a reconnect, e.g. to members restored from a snapshot at the same addresses). Optional: a log
   * without it is taken to change connection only at a failed call. The arbiter confirms the cluster's
   * identity with a linearizable read before its first write after a change (ADR-03, write-confirmation.ts).
   */
  connectionGeneration?(): number;
}
