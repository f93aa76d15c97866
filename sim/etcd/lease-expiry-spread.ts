// Promote's expiry spreading (lease/lessor.go Promote l.481-518): when a new primary holds at least
// leaseRevokeRate leases, it pushes back expiries that would pile up in one second, so that at most 3/4 of
// the revoke rate expire per second. Only the leases it moves are returned; the caller re-registers them.
import { MS_PER_SECOND } from '../../core/units.js';
import { LEASE_REVOKE_RATE_PER_SECOND } from './etcd-defaults.js';
import type { Lease } from './lease.js';

/** `targetExpiresPerSecond = (3 * leaseRevokeRate) / 4` (integer division in Go). */
const TARGET_EXPIRES_PER_SECOND = Math.floor((3 * LEASE_REVOKE_RATE_PER_SECOND) / 4);

export function spreadExpiries(leases: readonly Lease[], extendMs: number, nowMs: number): Lease[] {
  if (leases.length < LEASE_REVOKE_RATE_PER_SECOND) return [];
  // etcd's sort.Sort is not stable; ties are broken by lease id here so every run agrees.
  const byExpiry = [...leases].sort((a, b) => a.remainingMs(nowMs) - b.remainingMs(nowMs) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const first = byExpiry[0] as Lease;
  let baseWindowMs = first.remainingMs(nowMs);
  let nextWindowMs = baseWindowMs + MS_PER_SECOND;
  let expires = 0;
  const moved: Lease[] = [];
  for (const lease of byExpiry) {
    const remainingMs = lease.remainingMs(nowMs);
    if (remainingMs > nextWindowMs) {
      baseWindowMs = remainingMs;
      nextWindowMs = baseWindowMs + MS_PER_SECOND;
      expires = 1;
      continue;
    }
    expires++;
    if (expires <= TARGET_EXPIRES_PER_SECOND) continue;
    // "If leases are extended by n seconds, leases n seconds ahead of the base window should be extended
    // by only one second."
    const delayMs = (MS_PER_SECOND * expires) / TARGET_EXPIRES_PER_SECOND - (remainingMs - baseWindowMs);
    nextWindowMs = baseWindowMs + delayMs;
    lease.refresh(delayMs + extendMs, nowMs);
    moved.push(lease);
  }
  return moved;
}
