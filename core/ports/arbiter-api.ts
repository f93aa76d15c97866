// The lock.v1 contract (ADR-18): what the client library speaks to an arbiter. Implementations: the
// arbiter itself (in-process), a simulated RPC over sim links, later gRPC. Expected refusals are
// LockError with a code a caller can switch on (core/lock-error.ts), never a bare Error.
import type { FencingToken, LeaseId } from '../units.js';

export interface OpenSessionRequest {
  readonly identity: string;
  readonly ttlSeconds: number;
}
export interface Session {
  readonly sessionId: LeaseId;
  readonly identity: string;
  /** The TTL etcd granted. */
  readonly ttlSeconds: number;
}

export interface KeepAliveRequest {
  readonly identity: string;
  readonly sessionId: LeaseId;
}
export interface KeepAliveResponse {
  /** The TTL the lease was renewed to. */
  readonly ttlSeconds: number;
}

export interface AcquireRequest {
  readonly identity: string;
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
}

export interface ReleaseRequest {
  readonly identity: string;
  readonly sessionId: LeaseId;
  readonly key: string;
  readonly token: FencingToken;
}
export interface ReleaseResponse {
  /** False when the hold was already gone (expired or force-released): nothing was deleted. */
  readonly released: boolean;
}

export interface ValidateRequest {
  /** Who asks: the resource's own workload identity, which needs a grant covering the key (ADR-19). */
  readonly identity: string;
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

export interface ForceReleaseRequest {
  readonly key: string;
  readonly requester: string;
  readonly approver: string;
  readonly reason: string;
  /** The token the operator saw in inspect(): the release applies to exactly that hold. */
  readonly expectedToken: string;
  /** Required for advisory classes: the operator has read that two writers may act at once. */
  readonly acknowledgeUnfenced?: boolean;
}
export interface ForceReleaseResponse {
  readonly released: boolean;
  readonly enforcement: 'fenced' | 'advisory';
  readonly recordKey: string;
}

export interface AdvanceEpochRequest {
  readonly approvers: readonly [string, string];
  readonly reason: string;
}
export interface AdvanceEpochResponse {
  readonly epoch: number;
  readonly clusterId: bigint;
  readonly holdsDeleted: number;
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
  closeSession(request: KeepAliveRequest): Promise<void>;
  acquire(request: AcquireRequest): Promise<Grant>;
  release(request: ReleaseRequest): Promise<ReleaseResponse>;
  validate(request: ValidateRequest): Promise<ValidateResponse>;
  inspect(key: string): Promise<InspectResponse>;
  forceRelease(request: ForceReleaseRequest): Promise<ForceReleaseResponse>;
  advanceEpoch(request: AdvanceEpochRequest): Promise<AdvanceEpochResponse>;
  status(): Promise<ArbiterStatus>;
}
