// Branded ids, so a lease id is never passed where a revision is expected (STYLE.md, "Branded types").
// Durations stay plain numbers with the unit last in the name (`ttlMs`, `waitMs`): arithmetic on them
// is everywhere, and a brand there would buy casts, not safety.

declare const brand: unique symbol;
type Brand<T, B extends string> = T & { readonly [brand]: B };

/** An etcd MVCC revision: cluster-wide, strictly increasing, never reused within a cluster's life. */
export type Revision = Brand<bigint, 'Revision'>;
/** An etcd lease id; 0n means "no lease". */
export type LeaseId = Brand<bigint, 'LeaseId'>;
/** A fencing token: epoch * 2^48 + revision (ADR-02). */
export type FencingToken = Brand<bigint, 'FencingToken'>;
/** An etcd cluster or member id (uint64). */
export type ClusterId = Brand<bigint, 'ClusterId'>;
export type MemberId = Brand<bigint, 'MemberId'>;

export const revision = (value: bigint): Revision => value as Revision;
export const leaseId = (value: bigint): LeaseId => value as LeaseId;
export const clusterId = (value: bigint): ClusterId => value as ClusterId;
export const memberId = (value: bigint): MemberId => value as MemberId;
export const NO_LEASE = leaseId(0n);

export const MS_PER_SECOND = 1000;
