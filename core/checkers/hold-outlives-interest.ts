// Liveness (issue 11): no hold outlives its holder's interest by more than a TTL. Once every task that was
// handed a hold has released it (or its process has crashed), the log must end the hold within the TTL
// (the lease's expiry is the slowest way out, ADR-10) plus the bound, unless a disturbance delays it. A
// hold that stays on a live session after its holder let go blocks every waiter of the key for as long as
// that session lives: a release answered `released: false` by a replica that trusted a stale epoch
// (S2), or a hold the client deleted from its map while it still sat in the log.
//
// Only holds handed to a task whose release got a definite answer (or none, because its process died)
// are judged here: a hold no task was handed, or one whose release was answered `indeterminate`, is
// in-doubt-resolved's (one rule, one place).
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { deadlineAfter, holdEndMs, lastInterestEndMs, ownersOf } from './liveness-time.js';
import { type GrantRecord, type HolderOutage, type LivenessRun, holderLabel } from './run-history.js';

export function checkHoldOutlivesInterest(grants: readonly GrantRecord[], run: LivenessRun, outages: readonly HolderOutage[] = []): CheckResult {
  const { ttlMs, boundMs, endedAtMs } = run.bounds;
  const found: Violation[] = [];
  let judged = 0;
  for (const grant of grants) {
    const owners = ownersOf(grant, run.interests);
    if (owners.length === 0 || owners.some((o) => o.release === 'in-doubt')) continue;
    const gaveUpMs = lastInterestEndMs(owners, outages);
    if (gaveUpMs === undefined) continue;
    judged += 1;
    const deadlineMs = deadlineAfter(gaveUpMs, ttlMs + boundMs, run.disturbances);
    if (holdEndMs(grant) <= deadlineMs || deadlineMs > endedAtMs) continue;
    const ended = grant.endedAtMs === undefined ? `was still in the log when the run ended at ${ms(endedAtMs)}` : `stayed in the log until ${ms(grant.endedAtMs)} (${grant.endReason ?? 'ended'})`;
    const message =
      `key ${grant.key}: ${holderLabel(grant)} gave the hold up at ${ms(gaveUpMs)} (${plural(owners.length, 'task')} handed it, the last release or crash then), but it ${ended}, ` +
      `past ${ms(deadlineMs)}: a TTL (${ms(ttlMs)}) and the bound (${ms(boundMs)}) after, no fault to excuse it; every waiter of the key waits on a hold nobody wants`;
    found.push({ kind: 'hold-outlived-interest', key: grant.key, message, involved: [involvedIn(grant)], atMs: deadlineMs, revisions: [String(grant.revision)] });
  }
  return checkResult('hold-outlives-interest', found, `${plural(judged, 'hold')} given up by ${plural(new Set(grants.map((g) => g.holder)).size, 'holder')} checked to end within a TTL (${ms(ttlMs)}) and ${ms(boundMs)}`);
}
