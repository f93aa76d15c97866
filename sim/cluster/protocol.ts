// What travels on the cluster's network, as plain data (bigints allowed; the trace can canonicalise it):
// - raft messages between members (sim/raft RaftMessage, type 'Msg…'), carrying EtcdEntry data;
// - the leasehttp POSTs a follower makes to the leader (`/leases`, `/leases/internal`) and their answers;
// - client requests (one per call, like the real adapter's one gRPC call) and their responses;
// - watch streams: 'created', event batches and the compaction notice, numbered so a lost or
//   reordered message breaks the stream instead of silently skipping events;
// - transport pings (gRPC keepalive) and the connection reset a crashed member's machine sends.
// Messages to a client process name a `port` (one per SimLockLog); messages without one go to the member.
import type { LockLogErrorCode } from '../../core/ports/lock-log-error.js';
import { isReadOnlyTxn, type RangeRequest, type ResponseHeader, type ResponseOp, type KeyValue, type TxnRequest, type WatchEvent, type WatchRequest } from '../../core/ports/lock-log.js';
import type { LeaseId, MemberId, Revision } from '../../core/units.js';
import type { EtcdRequest } from '../etcd/apply.js';
import type { RaftMessage } from '../raft/message.js';

/** A Raft entry's data: the request and the id the proposing member waits on (pb.InternalRaftRequest). */
export interface EtcdEntry {
  readonly requestId: bigint;
  readonly request: EtcdRequest;
}

/** The port every member listens on; messages without a port go there. */
export const MEMBER_PORT = 'etcd';

export type ClientRequest =
  | { readonly op: 'txn'; readonly txn: TxnRequest }
  | { readonly op: 'range'; readonly range: RangeRequest }
  | { readonly op: 'lease-grant'; readonly ttlSeconds: number }
  | { readonly op: 'lease-keepalive'; readonly id: LeaseId }
  | { readonly op: 'lease-revoke'; readonly id: LeaseId }
  | { readonly op: 'lease-ttl'; readonly id: LeaseId; readonly keys: boolean }
  | { readonly op: 'compact'; readonly revision: Revision }
  | { readonly op: 'status' }
  | { readonly op: 'watch-create'; readonly watch: WatchRequest };

export type ClientOp = ClientRequest['op'];

export type ResultBody =
  | { readonly op: 'txn'; readonly succeeded: boolean; readonly responses: readonly ResponseOp[] }
  | { readonly op: 'range'; readonly kvs: readonly KeyValue[]; readonly count: number; readonly more: boolean }
  | { readonly op: 'lease-grant'; readonly id: LeaseId; readonly ttlSeconds: number }
  | { readonly op: 'lease-keepalive'; readonly id: LeaseId; readonly ttlSeconds: number }
  | { readonly op: 'lease-revoke' }
  | { readonly op: 'lease-ttl'; readonly id: LeaseId; readonly ttlSeconds: number; readonly grantedTtlSeconds: number; readonly keys: readonly string[] }
  | { readonly op: 'compact' }
  | { readonly op: 'status'; readonly leader: MemberId; readonly raftIndex: bigint; readonly raftTerm: bigint; readonly version: string; readonly dbSizeBytes: number };

/**
 * An error as etcd's gRPC layer would answer it. `refused`: etcd turned the request down before it
 * could take effect (so even a write certainly failed), as src/etcd/error-mapping.ts classifies it.
 */
export interface WireError {
  readonly code: LockLogErrorCode;
  readonly message: string;
  readonly refused: boolean;
  readonly compactRevision?: Revision;
}

export type Result = { readonly ok: true; readonly header: ResponseHeader; readonly body: ResultBody } | { readonly ok: false; readonly error: WireError };

export interface RequestMessage {
  readonly type: 'etcd.request';
  readonly replyPort: string;
  readonly requestId: number;
  readonly request: ClientRequest;
}

export interface ResponseMessage {
  readonly type: 'etcd.response';
  readonly port: string;
  readonly requestId: number;
  readonly result: Result;
}

/** One message of a watch stream; `seq` counts from 0 (the 'created' answer) per stream. */
export interface WatchStreamMessage {
  readonly type: 'etcd.watch';
  readonly port: string;
  /** The client's request id of the watch-create call: names the stream. */
  readonly streamId: number;
  readonly seq: number;
  readonly event: WatchStreamEvent;
}

export type WatchStreamEvent =
  | { readonly kind: 'created'; readonly header: ResponseHeader; readonly watchId: number }
  | { readonly kind: 'events'; readonly header: ResponseHeader; readonly events: readonly WatchEvent[] }
  | { readonly kind: 'compacted'; readonly compactRevision: Revision };

export interface WatchCancelMessage {
  readonly type: 'etcd.watch-cancel';
  readonly replyPort: string;
  readonly streamId: number;
}

/** gRPC keepalive (HTTP/2 PING) on a client's connection to a member. */
export interface PingMessage {
  readonly type: 'transport.ping';
  readonly replyPort: string;
  readonly pingId: number;
}

export interface PongMessage {
  readonly type: 'transport.pong';
  readonly port: string;
  readonly pingId: number;
}

/** Sent by a crashed process's machine (its TCP stack), not by the process: its connections are reset. */
export interface ResetMessage {
  readonly type: 'transport.reset';
  readonly port: string;
  /** The process that died. */
  readonly peer: string;
}

/** leasehttp: a follower's POST to the leader's `/leases` (renew) or `/leases/internal` (time-to-live). */
export interface LeaseHttpRequest {
  readonly type: 'leasehttp.request';
  readonly requestId: number;
  readonly path: 'renew' | 'ttl';
  readonly id: LeaseId;
  readonly keys: boolean;
}

/** 200 OK, 404 lease not found, 400 other lessor errors (not primary), 408 applied index wait timed out. */
export interface LeaseHttpResponse {
  readonly type: 'leasehttp.response';
  readonly requestId: number;
  readonly status: 200 | 400 | 404 | 408;
  readonly ttlSeconds: number;
  readonly grantedTtlSeconds: number;
  readonly keys: readonly string[];
}

export type ToMember = RaftMessage<EtcdEntry> | RequestMessage | WatchCancelMessage | PingMessage | LeaseHttpRequest | LeaseHttpResponse | ResetMessage;
export type ToClient = ResponseMessage | WatchStreamMessage | PongMessage | ResetMessage;
export type ClusterMessage = ToMember | ToClient;

/** True for requests that change state, whose timeouts are indeterminate (as the real adapter's `mutates`). */
export function mutates(request: ClientRequest): boolean {
  switch (request.op) {
    case 'txn':
      return !isReadOnlyTxn(request.txn);
    case 'lease-grant':
    case 'lease-keepalive':
    case 'lease-revoke':
    case 'compact':
      return true;
    default:
      return false;
  }
}
