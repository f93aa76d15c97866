// One lease as the lessor holds it (lease/lessor.go type Lease l.876-960). Expiry is a time on the owning
// member's clock in ms; `undefined` is etcd's zero time, "forever", which every non-primary member uses.
import type { LeaseId } from '../../core/units.js';
import { MS_PER_SECOND } from '../../core/units.js';

export class Lease {
  /** Remaining TTL from the last applied checkpoint; 0 = unset, use the full TTL (RemainingTTL l.868-874). */
  remainingTtlSeconds = 0;
  /** What a restart would read back from the backend (checkpoints persist only with checkpointPersist). */
  persistedRemainingTtlSeconds = 0;
  expiryMs: number | undefined = undefined;
  readonly keys = new Set<string>();

  constructor(
    readonly id: LeaseId,
    public ttlSeconds: number,
  ) {}

  /** The TTL a refresh counts from: the checkpointed remainder if set, else the full TTL. */
  effectiveRemainingTtlSeconds(): number {
    return this.remainingTtlSeconds > 0 ? this.remainingTtlSeconds : this.ttlSeconds;
  }

  /** refresh(extend): expiry = now + extend + RemainingTTL() (l.876-881). */
  refresh(extendMs: number, nowMs: number): void {
    this.expiryMs = nowMs + extendMs + this.effectiveRemainingTtlSeconds() * MS_PER_SECOND;
  }

  forever(): void {
    this.expiryMs = undefined;
  }

  /** Remaining(): Infinity for forever (etcd: MaxInt64 ns). */
  remainingMs(nowMs: number): number {
    return this.expiryMs === undefined ? Number.POSITIVE_INFINITY : this.expiryMs - nowMs;
  }

  /** expired(): Remaining() <= 0 (l.841-843). */
  expired(nowMs: number): boolean {
    return this.remainingMs(nowMs) <= 0;
  }
}
