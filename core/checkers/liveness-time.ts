// The time arithmetic the four liveness checkers share (free-key-wait, in-doubt-resolved,
// hold-outlives-interest, false-fence; issue 11): a deadline that stretches through the run's
// disturbances, when a task stopped wanting a hold, and which tasks own a hold. One rule, one place.
import { assert } from '../assert.js';
import type { Disturbance, GrantRecord, HolderOutage, Interest } from './run-history.js';

/** TigerStyle: the stretching loop has a maximum (each pass moves past at least one disturbance). */
const MAX_PASSES = 100_000;

/**
 * The time by which something allowed `allowanceMs` from `startMs` must have happened. A disturbance
 * that starts before that time, and has not ended by `startMs`, moves it to the disturbance's end plus
 * the whole allowance again: a fault excuses what it delays, and only while it lasts. Infinity when a
 * disturbance lasts to the end of the run. `counts` picks the disturbances that excuse this rule.
 */
export function deadlineAfter(startMs: number, allowanceMs: number, disturbances: readonly Disturbance[], counts: (d: Disturbance) => boolean = () => true): number {
  assert(allowanceMs >= 0, `deadlineAfter: allowance ${allowanceMs} ms is negative`);
  let deadlineMs = startMs + allowanceMs;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    let moved = false;
    for (const d of disturbances) {
      const endMs = d.toMs ?? Number.POSITIVE_INFINITY;
      if (!counts(d) || d.fromMs >= deadlineMs || endMs <= startMs || endMs + allowanceMs <= deadlineMs) continue;
      deadlineMs = endMs + allowanceMs;
      moved = true;
    }
    if (!moved || deadlineMs === Number.POSITIVE_INFINITY) return deadlineMs;
  }
  return deadlineMs;
}

/** The first disturbance `counts` accepts that overlaps [fromMs, toMs], if any. */
export function disturbanceDuring(fromMs: number, toMs: number, disturbances: readonly Disturbance[], counts: (d: Disturbance) => boolean = () => true): Disturbance | undefined {
  return disturbances.find((d) => counts(d) && d.fromMs <= toMs && (d.toMs ?? Number.POSITIVE_INFINITY) > fromMs);
}

/** When the holder's process crashed at or after `fromMs` (its tasks' interests end there), if it did. */
export function crashAfter(holder: string, fromMs: number, outages: readonly HolderOutage[]): number | undefined {
  const crashes = outages.filter((o) => o.holder === holder && o.kind === 'crash' && o.fromMs >= fromMs).map((o) => o.fromMs);
  return crashes.length === 0 ? undefined : Math.min(...crashes);
}

/** When the task stopped wanting what it asked for: its release call, or its process's crash; undefined while it still wanted it. */
export function interestEndMs(interest: Interest, outages: readonly HolderOutage[]): number | undefined {
  const crashMs = crashAfter(interest.holder, interest.fromMs, outages);
  if (interest.releasedMs === undefined) return crashMs;
  return crashMs === undefined ? interest.releasedMs : Math.min(crashMs, interest.releasedMs);
}

/** The tasks that were handed this very hold (same holder, key and token). */
export function ownersOf(grant: GrantRecord, interests: readonly Interest[]): Interest[] {
  return interests.filter((i) => i.outcome === 'granted' && i.holder === grant.holder && i.key === grant.key && i.token === grant.token);
}

/** When the last owner gave the hold up; undefined while one still wants it. */
export function lastInterestEndMs(owners: readonly Interest[], outages: readonly HolderOutage[]): number | undefined {
  let lastMs = Number.NEGATIVE_INFINITY;
  for (const owner of owners) {
    const endMs = interestEndMs(owner, outages);
    if (endMs === undefined) return undefined;
    lastMs = Math.max(lastMs, endMs);
  }
  return owners.length === 0 ? undefined : lastMs;
}

/** A hold ends when the log ended it; one still open at the end of the run is open for ever. */
export function holdEndMs(grant: GrantRecord): number {
  return grant.endedAtMs ?? Number.POSITIVE_INFINITY;
}
