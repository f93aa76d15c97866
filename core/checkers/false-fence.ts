// Liveness (issue 11): no false fence while a quorum is healthy and reachable. A fence (ADR-12 stage two)
// is the library giving up a hold its holder still wants because it could not renew in time; with a
// quorum of members healthy and reachable that means the renewal path waited on the wrong member (L6:
// a keepalive held for its whole 8 s deadline by one stuck member, longer than the fence budget). A fence
// is excused by a disturbance that touches the quorum or the path to it (a pause, a crash, a cut, a slow
// link, a restore) within a TTL and the bound before it; a lone stuck member excuses nothing.
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { disturbanceDuring, interestEndMs } from './liveness-time.js';
import { type FenceRecord, type GrantRecord, type HolderOutage, type LivenessRun, holderLabel } from './run-history.js';

export function checkFalseFence(grants: readonly GrantRecord[], fences: readonly FenceRecord[], run: LivenessRun, outages: readonly HolderOutage[] = []): CheckResult {
  const { ttlMs, boundMs } = run.bounds;
  const found: Violation[] = [];
  let judged = 0;
  for (const fence of fences) {
    const grant = grants.find((g) => g.holder === fence.holder && g.key === fence.key && g.token === fence.token);
    if (grant === undefined || (grant.endedAtMs !== undefined && grant.endedAtMs <= fence.atMs)) continue; // the hold was already over
    const wanted = run.interests.some((i) => i.outcome === 'granted' && i.holder === fence.holder && i.key === fence.key && i.token === fence.token && (interestEndMs(i, outages) ?? Number.POSITIVE_INFINITY) > fence.atMs);
    if (!wanted) continue;
    judged += 1;
    const excuse = disturbanceDuring(fence.atMs - ttlMs - boundMs, fence.atMs, run.disturbances, (d) => !d.quorumHealthy);
    if (excuse !== undefined) continue;
    const message =
      `key ${fence.key}: the library of ${holderLabel(grant)} fenced the hold at ${ms(fence.atMs)} while its holder still wanted it, ` +
      `and nothing but faults a healthy quorum absorbs happened in the TTL (${ms(ttlMs)}) and ${ms(boundMs)} before: a false fence (ADR-12)`;
    found.push({ kind: 'false-fence', key: fence.key, message, involved: [involvedIn(grant)], atMs: fence.atMs, revisions: [String(grant.revision)] });
  }
  return checkResult('false-fence', found, `${plural(judged, 'fence')} of holds still wanted checked for a fault that touched the quorum within a TTL (${ms(ttlMs)}) and ${ms(boundMs)}`);
}
