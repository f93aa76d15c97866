// One member's lessor (design/etcd-behaviour.md section 1; lease/lessor.go). Grant, Revoke and Checkpoint
// run in apply on every member; Renew, Promote, Demote, TimeToLive and the 500 ms expiry scan run only
// where the member says so. There is no clock inside: every call that needs time takes the member's `nowMs`.
// Confirming leadership before a renew (etcd 3.5.13 ensureLeadership, issue etcd#15247) is the member's
// switch: it decides whether to call renew() at all.
import { MS_PER_SECOND, type LeaseId } from '../../core/units.js';
import {
  EXPIRED_LEASE_RETRY_INTERVAL_MS, FOREVER_TTL_SECONDS, LEASE_CHECKPOINT_INTERVAL_MS, LEASE_CHECKPOINT_RATE_PER_SECOND,
  LEASE_REVOKE_RATE_PER_SECOND, MAX_LEASE_CHECKPOINT_BATCH_SIZE, MAX_LEASE_TTL_SECONDS, MIN_LEASE_TTL_SECONDS,
} from './etcd-defaults.js';
import { sortKeys } from './key-order.js';
import { spreadExpiries } from './lease-expiry-spread.js';
import { LeaseExpiryNotifier, LeaseHeap } from './lease-queue.js';
import { Lease } from './lease.js';
import type { KeyRange } from './key-index.js';
import type { LeaseBinder } from './mvcc-store.js';
import { failWith, succeed, type Outcome } from './outcome.js';

export interface LessorConfig {
  readonly minTtlSeconds?: number;
  readonly expiredLeaseRetryIntervalMs?: number;
  /** `--experimental-enable-lease-checkpoint` (off by default in 3.4 and 3.5, etcdmain/config.go l.260-262). */
  readonly checkpointing?: boolean;
  readonly checkpointIntervalMs?: number;
  /** Whether applied checkpoints are written to the backend (survive a restart); default false. */
  readonly checkpointPersist?: boolean;
}

export interface LeaseCheckpoint {
  readonly id: LeaseId;
  readonly remainingTtlSeconds: number;
}

/**
 * Renew's answers (lessor.go Renew l.393-443). `expired-wait`: etcd blocks until the lease is revoked
 * (then ErrLeaseNotFound, so keepalive answers TTL 0) or this lessor is demoted (then ErrNotPrimary); it
 * never revives the lease. `checkpoint-first`: with checkpointing on and a checkpointed remainder set,
 * etcd first proposes `checkpoint` and waits for it; the member does that, then calls renew again with
 * `checkpointDone` (whether or not the proposal succeeded, as 3.4 ignores its error).
 */
export type RenewResult =
  | { readonly kind: 'renewed'; readonly ttlSeconds: number }
  | { readonly kind: 'not-primary' }
  | { readonly kind: 'not-found' }
  | { readonly kind: 'expired-wait' }
  | { readonly kind: 'checkpoint-first'; readonly checkpoint: LeaseCheckpoint };

export interface TimeToLive {
  /** Whole seconds left, truncated toward zero (so -1 for a lease 1.5 s past expiry); forever = 9223372036. */
  readonly ttlSeconds: number;
  readonly grantedTtlSeconds: number;
  readonly keys: readonly string[];
}

export interface LeaseView {
  readonly id: LeaseId;
  readonly ttlSeconds: number;
  readonly remainingTtlSeconds: number;
  readonly expiryMs: number | undefined;
  readonly keys: readonly string[];
}

/** The store side of a revoke: one write txn (etcd's RangeDeleter, the watchable store's Write()). */
export interface RangeDeleter {
  write(): { deleteRange(range: KeyRange): number; end(): unknown };
}

export class Lessor implements LeaseBinder {
  private readonly leaseMap = new Map<LeaseId, Lease>();
  private primary = false;
  private expiryNotifier = new LeaseExpiryNotifier();
  private checkpointHeap = new LeaseHeap();
  private readonly minTtlSeconds: number;
  private readonly retryIntervalMs: number;
  private readonly checkpointing: boolean;
  private readonly checkpointIntervalMs: number;
  private readonly checkpointPersist: boolean;

  constructor(private readonly config: LessorConfig = {}) {
    this.minTtlSeconds = config.minTtlSeconds ?? MIN_LEASE_TTL_SECONDS;
    this.retryIntervalMs = config.expiredLeaseRetryIntervalMs ?? EXPIRED_LEASE_RETRY_INTERVAL_MS;
    this.checkpointing = config.checkpointing ?? false;
    this.checkpointIntervalMs = config.checkpointIntervalMs ?? LEASE_CHECKPOINT_INTERVAL_MS;
    this.checkpointPersist = config.checkpointPersist ?? false;
  }

  /**
   * The lessor a replay of the applied log would build (issue 16: a member's snapshot stands for that
   * replay): not primary, every lease forever, its TTL, checkpointed remainders and keys, in grant order.
   */
  copyAsReplayed(): Lessor {
    const copy = new Lessor(this.config);
    for (const lease of this.leaseMap.values()) {
      const restored = new Lease(lease.id, lease.ttlSeconds);
      restored.remainingTtlSeconds = lease.remainingTtlSeconds;
      restored.persistedRemainingTtlSeconds = lease.persistedRemainingTtlSeconds;
      for (const key of lease.keys) restored.keys.add(key);
      copy.leaseMap.set(lease.id, restored);
    }
    return copy;
  }

  /** isPrimary() ⇔ demotec != nil (l.256). */
  isPrimary(): boolean {
    return this.primary;
  }

  /** Grant (l.274-322): id 0 → not found, TTL raised to the minimum, expiry only on the primary. */
  grant(id: LeaseId, ttlSeconds: number, nowMs: number): Outcome<{ readonly id: LeaseId; readonly ttlSeconds: number }> {
    if (id === 0n) return failWith('lease-not-found', 'lease id 0 is NoLease');
    // etcd's TTL is an int64, so a fractional one cannot reach it; ErrLeaseTTLTooLarge is OutOfRange in gRPC.
    if (!Number.isInteger(ttlSeconds)) return failWith('invalid-argument', `lease TTL ${ttlSeconds} s is not a whole number of seconds`);
    if (ttlSeconds > MAX_LEASE_TTL_SECONDS) return failWith('invalid-argument', `lease TTL ${ttlSeconds} s is too large`);
    if (this.leaseMap.has(id)) return failWith('lease-exists', `lease ${id} already exists`);
    const lease = new Lease(id, Math.max(ttlSeconds, this.minTtlSeconds));
    this.leaseMap.set(id, lease);
    if (this.primary) {
      lease.refresh(0, nowMs);
      this.registerExpiry(lease);
      this.scheduleCheckpointIfNeeded(lease, nowMs);
    }
    return succeed({ id, ttlSeconds: lease.ttlSeconds });
  }

  /** Revoke (l.324-362): every attached key deleted in one write txn, in byte order; then the lease goes. */
  revoke(id: LeaseId, store: RangeDeleter): Outcome<void> {
    const lease = this.leaseMap.get(id);
    if (lease === undefined) return failWith('lease-not-found', `lease ${id} not found`);
    const txn = store.write();
    for (const key of sortKeys(lease.keys)) txn.deleteRange({ key });
    this.leaseMap.delete(id);
    txn.end();
    return succeed(undefined);
  }

  /** Checkpoint applied (l.364-380): records the remainder; only the primary reschedules. */
  checkpoint(id: LeaseId, remainingTtlSeconds: number, nowMs: number): void {
    const lease = this.leaseMap.get(id);
    if (lease === undefined) return;
    lease.remainingTtlSeconds = remainingTtlSeconds;
    if (this.checkpointPersist) lease.persistedRemainingTtlSeconds = remainingTtlSeconds;
    if (this.primary) this.scheduleCheckpointIfNeeded(lease, nowMs);
  }

  /** Attach (l.545-562): apply checks the lease exists first, so a missing one is a bug (etcd panics). */
  attach(id: LeaseId, key: string): void {
    const lease = this.leaseMap.get(id);
    if (lease === undefined) throw new Error(`lessor: attach ${key} to missing lease ${id}`);
    lease.keys.add(key);
  }

  /** Detach (l.573-590): a key's lease exists as long as the key does, so a missing one is a bug (etcd: Fatal). */
  detach(id: LeaseId, key: string): void {
    const lease = this.leaseMap.get(id);
    if (lease === undefined) throw new Error(`lessor: detach ${key} from missing lease ${id}`);
    lease.keys.delete(key);
  }

  has(id: LeaseId): boolean {
    return this.leaseMap.has(id);
  }

  lookup(id: LeaseId): LeaseView | undefined {
    const lease = this.leaseMap.get(id);
    return lease === undefined ? undefined : viewOf(lease);
  }

  /** Every lease, by id. */
  leases(): LeaseView[] {
    return [...this.leaseMap.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map(viewOf);
  }

  /** Renew (l.393-443). Returns the granted TTL, not the remaining one. */
  renew(id: LeaseId, nowMs: number, options: { readonly checkpointDone?: boolean } = {}): RenewResult {
    if (!this.primary) return { kind: 'not-primary' };
    const lease = this.leaseMap.get(id);
    if (lease === undefined) return { kind: 'not-found' };
    if (lease.expired(nowMs)) return { kind: 'expired-wait' };
    if (this.checkpointing && lease.remainingTtlSeconds > 0 && options.checkpointDone !== true) {
      return { kind: 'checkpoint-first', checkpoint: { id, remainingTtlSeconds: 0 } };
    }
    lease.refresh(0, nowMs);
    this.registerExpiry(lease);
    return { kind: 'renewed', ttlSeconds: lease.ttlSeconds };
  }

  /** Promote (l.467-519): every lease expires at now + extend + RemainingTTL(), then spread if >= 1000. */
  promote(extendMs: number, nowMs: number): void {
    this.primary = true;
    for (const lease of this.leaseMap.values()) {
      lease.refresh(extendMs, nowMs);
      this.registerExpiry(lease);
      this.scheduleCheckpointIfNeeded(lease, nowMs);
    }
    for (const lease of spreadExpiries([...this.leaseMap.values()], extendMs, nowMs)) {
      this.registerExpiry(lease);
      this.scheduleCheckpointIfNeeded(lease, nowMs);
    }
  }

  /** Demote (l.527-543): every lease forever, both queues cleared; blocked renews become not-primary. */
  demote(): void {
    for (const lease of this.leaseMap.values()) lease.forever();
    this.checkpointHeap = new LeaseHeap();
    this.expiryNotifier = new LeaseExpiryNotifier();
    this.primary = false;
  }

  /**
   * One pass of the 500 ms runLoop's revokeExpiredLeases (l.627-653): on the primary, up to `limit`
   * expired leases for the member to revoke, one proposal each. Each due item is re-registered
   * `expiredLeaseRetryInterval` (7 s) later, so a lease whose revoke got lost is offered again
   * (findExpiredLeases l.687-741).
   */
  findExpiredLeases(nowMs: number, limit = LEASE_REVOKE_RATE_PER_SECOND / 2): LeaseId[] {
    if (!this.primary) return [];
    const expired: LeaseId[] = [];
    for (;;) {
      const item = this.expiryNotifier.poll();
      if (item === undefined) break;
      const lease = this.leaseMap.get(item.id);
      if (lease === undefined) {
        this.expiryNotifier.unregister();
        continue;
      }
      if (nowMs < item.timeMs) break;
      this.expiryNotifier.registerOrUpdate(item.id, nowMs + this.retryIntervalMs);
      if (lease.expired(nowMs)) {
        expired.push(lease.id);
        if (expired.length === limit) break;
      }
    }
    return expired;
  }

  /**
   * One pass of checkpointScheduledLeases (l.657-674): batches of due checkpoints, each one raft
   * proposal (LeaseCheckpointRequest); up to leaseCheckpointRate/2 batches of 1000.
   */
  checkpointScheduledLeases(nowMs: number): LeaseCheckpoint[][] {
    const batches: LeaseCheckpoint[][] = [];
    for (let i = 0; i < LEASE_CHECKPOINT_RATE_PER_SECOND / 2 && this.primary; i++) {
      const batch = this.findDueScheduledCheckpoints(nowMs, MAX_LEASE_CHECKPOINT_BATCH_SIZE);
      if (batch.length > 0) batches.push(batch);
      if (batch.length < MAX_LEASE_CHECKPOINT_BATCH_SIZE) break;
    }
    return batches;
  }

  /** TimeToLive as the leader answers it (etcdserver/v3_server.go l.325-373); undefined = not found. */
  timeToLive(id: LeaseId, nowMs: number): TimeToLive | undefined {
    const lease = this.leaseMap.get(id);
    if (lease === undefined) return undefined;
    const remainingMs = lease.remainingMs(nowMs);
    const ttlSeconds = remainingMs === Number.POSITIVE_INFINITY ? FOREVER_TTL_SECONDS : Math.trunc(remainingMs / MS_PER_SECOND);
    return { ttlSeconds, grantedTtlSeconds: lease.ttlSeconds, keys: sortKeys(lease.keys) };
  }

  /**
   * What initAndRecover (l.798-826) leaves after a restart on the same applied state: not primary, every
   * lease forever, TTL raised to the minimum, the persisted remainder (not the in-memory one), keys kept.
   */
  restart(): void {
    this.demote();
    for (const lease of this.leaseMap.values()) {
      lease.ttlSeconds = Math.max(lease.ttlSeconds, this.minTtlSeconds);
      lease.remainingTtlSeconds = lease.persistedRemainingTtlSeconds;
    }
  }

  private registerExpiry(lease: Lease): void {
    if (lease.expiryMs !== undefined) this.expiryNotifier.registerOrUpdate(lease.id, lease.expiryMs);
  }

  /** scheduleCheckpointIfNeeded (l.743-760): only when RemainingTTL() exceeds the interval. */
  private scheduleCheckpointIfNeeded(lease: Lease, nowMs: number): void {
    if (!this.checkpointing) return;
    if (lease.effectiveRemainingTtlSeconds() * MS_PER_SECOND > this.checkpointIntervalMs) {
      this.checkpointHeap.push(lease.id, nowMs + this.checkpointIntervalMs);
    }
  }

  /** findDueScheduledCheckpoints (l.762-796): skips missing, expired and not-yet-worn leases. */
  private findDueScheduledCheckpoints(nowMs: number, limit: number): LeaseCheckpoint[] {
    const due: LeaseCheckpoint[] = [];
    while (due.length < limit) {
      const top = this.checkpointHeap.peek();
      if (top === undefined || top.timeMs > nowMs) break;
      this.checkpointHeap.pop();
      const lease = this.leaseMap.get(top.id);
      if (lease?.expiryMs === undefined || nowMs >= lease.expiryMs) continue;
      const remainingTtlSeconds = Math.ceil((lease.expiryMs - nowMs) / MS_PER_SECOND);
      if (remainingTtlSeconds >= lease.ttlSeconds) continue;
      due.push({ id: lease.id, remainingTtlSeconds });
    }
    return due;
  }
}

function viewOf(lease: Lease): LeaseView {
  return {
    id: lease.id,
    ttlSeconds: lease.ttlSeconds,
    remainingTtlSeconds: lease.remainingTtlSeconds,
    expiryMs: lease.expiryMs,
    keys: sortKeys(lease.keys),
  };
}
