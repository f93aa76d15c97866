// The lock.v1 contract (ADR-18): what the client library speaks to an arbiter. Implementations: the
// arbiter itself bound to a caller (in-process, core/ports/caller.ts), a simulated RPC over sim links
// (sim/rpc), and lock.v1 over gRPC (src/service). Expected refusals are LockError with a code a caller
// can switch on (core/lock-error.ts), never a bare Error.
//
// No request names its caller (ADR-19): who asks is the transport's to say, as a Caller, on the server
// side (ArbiterService in caller.ts). Responses still name identities: whose session, whose hold.
import type { FencingToken, LeaseId } from '../units.js';

export interface OpenSessionRequest {
  readonly ttlSeconds: number;
  /**
   * Which replica of the caller's workload opens it (issue 29): replicas share a SPIFFE ID, and a holder
   * is (identity, instance). A label the client names, never a credential: authorisation is by the
   * transport's identity alone. Absent or '': the workload's one unnamed instance.
   */
  readonly instance?: string;
}
export interface Session {
  readonly sessionId: LeaseId;
  readonly identity: string;
  /** The instance the session was opened for ('' when none was named). */
  readonly instance: string;
  /** The TTL etcd granted. */
  readonly ttlSeconds: number;
}

export interface KeepAliveRequest {
  readonly sessionId: LeaseId;
}
/** Ends a session: its lease is revoked, so every hold on it ends at once. */
export interface CloseSessionRequest {
  readonly sessionId: LeaseId;
}
export interface KeepAliveResponse {
  /** The TTL the lease was renewed to. */
  readonly ttlSeconds: number;
}

export interface AcquireRequest {
  readonly sessionId: LeaseId;
  /** `namespace/path`. */
  readonly key: string;
  /** The LockClass name, in the key's namespace. */
  readonly className: string;
  /** How long to wait in line when the key is held; 0 = do not wait. */
  readonly waitMs: number;
}

export interface Grant {
  readonly key: string;
  readonly token: FencingToken;
  readonly epoch: number;
  readonly revision: bigint;
  readonly sessionId: LeaseId;
  readonly identity: string;
  readonly className: string;
  /** True when the session already held the key and this acquire returned the existing grant. */
  readonly reentered: boolean;
  /**
   * ADR-04: granted from an arbiter's memory while no etcd majority answered (an efficiency class that fails
   * open): token 0, which every fence refuses, exclusive only within that arbiter, and ended as a fence when
   * the quorum is back. Absent or false: an etcd grant.
   */
  readonly unprotected?: boolean;
}

export interface ReleaseRequest {
  readonly sessionId: LeaseId;
  readonly key: string;
  readonly token: FencingToken;
}
export interface ReleaseResponse {
  /** False when the hold was already gone (expired or force-released): nothing was deleted. */
  readonly released: boolean;
}

/** Asked by the resource's own workload identity, which needs a grant covering the key (ADR-19). */
export interface ValidateRequest {
  readonly key: string;
  /** A decimal string, as on the wire (ADR-02); validated before any read. */
  readonly token: string;
}
export interface ValidateResponse {
  readonly valid: boolean;
  readonly currentToken: FencingToken | undefined;
}

export interface Holder {
  readonly identity: string;
  /** The holding replica's instance label (issue 29); '' when it named none. */
  readonly instance: string;
  readonly sessionId: LeaseId;
  readonly className: string;
  readonly token: FencingToken;
}
export interface InspectResponse {
  readonly key: string;
  readonly holder: Holder | undefined;
  /** The class's enforcement, shown so an operator knows what a force-release risks (ADR-20). */
  readonly enforcement: 'fenced' | 'advisory' | undefined;
}

/** Issue 29: which class governs a key, asked of the arbiter's registry (ADR-24) so a client carries no class file. */
export interface DescribeKeyRequest {
  readonly key: string;
  /** Which LockClass of the key's namespace; absent or '' when the namespace has exactly one. */
  readonly className?: string;
}
export interface KeyClass {
  readonly key: string;
  readonly namespace: string;
  readonly className: string;
  /** The class's TTL, which a session for the key is opened with (ADR-10/11). */
  readonly ttlSeconds: number;
  readonly enforcement: 'fenced' | 'advisory';
  readonly fairness: 'memory' | 'durable';
}

/**
 * ADR-20: a force-release is two calls by two different authenticated operators. The first proposes it
 * and is shown the class's enforcement; the second approves it by the request's id.
 */
export interface ForceReleaseRequest {
  readonly key: string;
  readonly reason: string;
  /** The token the operator saw in inspect(): the release applies to exactly that hold. */
  readonly expectedToken: string;
  /** Required for advisory classes: the operator has read that two writers may act at once. */
  readonly acknowledgeUnfenced?: boolean;
}
export interface ForceReleaseProposal {
  readonly requestId: string;
  readonly key: string;
  readonly holder: Holder;
  /** Shown before anyone approves (ADR-20). */
  readonly enforcement: 'fenced' | 'advisory';
  readonly requester: string;
  readonly reason: string;
}
export interface ApproveForceReleaseRequest {
  readonly requestId: string;
  /** Required for advisory classes, from the approver too. */
  readonly acknowledgeUnfenced?: boolean;
}
export interface ForceReleaseResponse {
  readonly released: boolean;
  readonly enforcement: 'fenced' | 'advisory';
  /** The /sys/force record, which names both operators and the reason. */
  readonly recordKey: string;
  readonly requester: string;
  readonly approver: string;
}

/** ADR-03: an epoch advance is proposed by one authenticated operator and approved by a second. */
export interface AdvanceEpochRequest {
  readonly reason: string;
}
export interface EpochAdvanceProposal {
  readonly requestId: string;
  readonly requester: string;
  readonly reason: string;
}
export interface ApproveEpochAdvanceRequest {
  readonly requestId: string;
}
export interface AdvanceEpochResponse {
  readonly epoch: number;
  readonly clusterId: bigint;
  readonly holdsDeleted: number;
  readonly requester: string;
  readonly approver: string;
}

export interface ArbiterStatus {
  readonly epoch: number | undefined;
  readonly clusterId: bigint | undefined;
  readonly sealed: SealReason | undefined;
}
export type SealReason =
  | { readonly kind: 'cluster-id-mismatch'; readonly expected: bigint; readonly seen: bigint }
  | { readonly kind: 'revision-regression'; readonly highestSeen: bigint; readonly seen: bigint }
  /** The epoch record names an epoch below one this arbiter has already served or seen (a restore the revision floor missed). */
  | { readonly kind: 'epoch-regression'; readonly highestSeen: number; readonly seen: number }
  | { readonly kind: 'no-epoch-record' };

export interface ArbiterApi {
  openSession(request: OpenSessionRequest): Promise<Session>;
  keepAlive(request: KeepAliveRequest): Promise<KeepAliveResponse>;
  closeSession(request: CloseSessionRequest): Promise<void>;
  acquire(request: AcquireRequest): Promise<Grant>;
  release(request: ReleaseRequest): Promise<ReleaseResponse>;
  validate(request: ValidateRequest): Promise<ValidateResponse>;
  inspect(key: string): Promise<InspectResponse>;
  describeKey(request: DescribeKeyRequest): Promise<KeyClass>;
  requestForceRelease(request: ForceReleaseRequest): Promise<ForceReleaseProposal>;
  approveForceRelease(request: ApproveForceReleaseRequest): Promise<ForceReleaseResponse>;
  requestEpochAdvance(request: AdvanceEpochRequest): Promise<EpochAdvanceProposal>;
  approveEpochAdvance(request: ApproveEpochAdvanceRequest): Promise<AdvanceEpochResponse>;
  status(): Promise<ArbiterStatus>;
}
