// Deadline (ADR-12, stage two): "the deadline is the monotonic send time of the last successful keepalive
// plus the TTL minus a one-second margin. Using send time guarantees the local deadline precedes the
// leader's expiry for that keepalive", so a holder "always believes it has lost before the log says so".
// For every hold the log ended by expiry, the holder's library must have fenced it (FenceRecord) at or
// before the expiry's true time. The belief checker covers the first stage (canStart() against the next
// grant); this one covers the fence itself, which stops the work already under way.
//
// Excused: a holder whose process could not run, because ADR-12 itself says local timing does nothing
// for a pause that swallows the deadline (the token handles that, ADR-16): paused at the expiry (a pause
// that ended before it would have let the held fence fire at once, before the expiry), or crashed since
// the grant (the incarnation that held the session is gone, and its fence with it). A fence in time is
// never excused: it needs no excuse.
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { type FenceRecord, type GrantRecord, type HolderOutage, holderLabel } from './run-history.js';

export function checkDeadline(grants: readonly GrantRecord[], fences: readonly FenceRecord[], outages: readonly HolderOutage[] = []): CheckResult {
  const fenceOf = earliestFences(fences);
  const expired = grants.filter((g): g is GrantRecord & { readonly endedAtMs: number } => g.endReason === 'expiry' && g.endedAtMs !== undefined);
  const found: Violation[] = [];
  let excused = 0;
  for (const grant of expired) {
    const fence = fenceOf.get(holdId(grant));
    if (fence !== undefined && fence.atMs <= grant.endedAtMs) continue;
    if (outageAtExpiry(grant, outages) !== undefined) {
      excused += 1;
      continue;
    }
    found.push(fence === undefined ? neverFenced(grant) : fencedLate(grant, fence));
  }
  const excuses = excused === 0 ? '' : `; ${plural(excused, 'late or missing fence')} excused (the holder's process was paused or crashed)`;
  return checkResult('deadline', found, `${plural(expired.length, 'hold')} the log ended by expiry checked against ${plural(fences.length, 'fence')}${excuses}`);
}

function holdId(hold: { readonly holder: string; readonly key: string; readonly token: bigint }): string {
  return JSON.stringify([hold.holder, hold.key, String(hold.token)]);
}

function earliestFences(fences: readonly FenceRecord[]): Map<string, FenceRecord> {
  const earliest = new Map<string, FenceRecord>();
  for (const fence of fences) {
    const id = holdId(fence);
    const known = earliest.get(id);
    if (known === undefined || fence.atMs < known.atMs) earliest.set(id, fence);
  }
  return earliest;
}

/** The outage that kept the holder from fencing by the expiry, if any. */
function outageAtExpiry(grant: GrantRecord & { readonly endedAtMs: number }, outages: readonly HolderOutage[]): HolderOutage | undefined {
  const expiryMs = grant.endedAtMs;
  return outages.find((o) => {
    if (o.holder !== grant.holder || o.fromMs > expiryMs) return false;
    // A pause excuses only if it still held the process at the expiry; a crash, if the process was still
    // down when the hold was granted or went down after (a grant answered to a dead incarnation counts).
    return o.kind === 'pause' ? o.toMs === undefined || expiryMs < o.toMs : o.toMs === undefined || o.toMs > grant.grantedAtMs;
  });
}

function fencedLate(grant: GrantRecord & { readonly endedAtMs: number }, fence: FenceRecord): Violation {
  const lateMs = fence.atMs - grant.endedAtMs;
  const message =
    `key ${grant.key}: the log expired the hold of ${holderLabel(grant)} at ${ms(grant.endedAtMs)} (revision ${String(grant.endedAtRevision)}), but its library fenced it only at ${ms(fence.atMs)}, ` +
    `${ms(lateMs)} late, while its process was running: the holder could go on acting on a hold the log had already ended (ADR-12)`;
  return { kind: 'fence-after-expiry', key: grant.key, message, involved: [involvedIn(grant)], atMs: grant.endedAtMs, revisions: revisionsOf(grant) };
}

function neverFenced(grant: GrantRecord & { readonly endedAtMs: number }): Violation {
  const message =
    `key ${grant.key}: the log expired the hold of ${holderLabel(grant)} at ${ms(grant.endedAtMs)} (revision ${String(grant.endedAtRevision)}), but its library never fenced it, ` +
    `though its process was running: the holder was never told to stop (ADR-12)`;
  return { kind: 'fence-never-called', key: grant.key, message, involved: [involvedIn(grant)], atMs: grant.endedAtMs, revisions: revisionsOf(grant) };
}

function revisionsOf(grant: GrantRecord): string[] {
  return grant.endedAtRevision === undefined ? [String(grant.revision)] : [String(grant.revision), String(grant.endedAtRevision)];
}
