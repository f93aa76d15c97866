// Log exclusion (ADR-23, "double grants"): in the log's applied order, a key's hold ends (release,
// expiry, force-release, epoch advance) at or before the revision that grants the next one. An end and
// a grant in one txn share a revision and are a handover, not an overlap. Revisions order the log of
// one cluster, so grants are compared per (cluster, key).
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { type GrantRecord, compareBigints, groupBy, holderLabel } from './run-history.js';

export function checkExclusion(grants: readonly GrantRecord[]): CheckResult {
  const found: Violation[] = [];
  const groups = groupBy(grants, (g) => JSON.stringify([g.cluster ?? '', g.key]));
  for (const [, group] of groups) found.push(...overlapsOfKey(group));
  return checkResult('exclusion', found, `${plural(grants.length, 'grant')} on ${plural(new Set(grants.map((g) => g.key)).size, 'key')} checked in applied order`);
}

function overlapsOfKey(grants: readonly GrantRecord[]): Violation[] {
  for (const grant of grants) assertEndAfterGrant(grant);
  const ordered = [...grants].sort((a, b) => compareBigints(a.revision, b.revision));
  const found: Violation[] = [];
  // Holds granted earlier that had not ended by the current grant's revision. In a correct log this
  // never holds more than one: the hold that ends next.
  let open: GrantRecord[] = [];
  for (const grant of ordered) {
    open = open.filter((earlier) => earlier.endedAtRevision === undefined || earlier.endedAtRevision > grant.revision);
    for (const earlier of open) found.push(overlap(earlier, grant));
    open.push(grant);
  }
  return found;
}

function overlap(earlier: GrantRecord, later: GrantRecord): Violation {
  const until =
    earlier.endedAtRevision === undefined
      ? 'still held it when the run ended'
      : `held it until revision ${earlier.endedAtRevision}${earlier.endReason === undefined ? '' : ` (${earlier.endReason})`}${earlier.endedAtMs === undefined ? '' : ` at ${ms(earlier.endedAtMs)}`}`;
  const message =
    `key ${earlier.key}: holds overlap in the log: ${holderLabel(earlier)} was granted at revision ${earlier.revision} (${ms(earlier.grantedAtMs)}) and ${until}, ` +
    `but ${holderLabel(later)} was granted at revision ${later.revision} (${ms(later.grantedAtMs)})`;
  const revisions = [earlier.revision, ...(earlier.endedAtRevision === undefined ? [] : [earlier.endedAtRevision]), later.revision].map(String);
  return {
    kind: 'overlap',
    key: later.key,
    message,
    involved: [involvedIn(earlier), involvedIn(later)],
    atMs: later.grantedAtMs,
    revisions,
  };
}

// A hold that ends at or before its own grant is a recording error in the scenario, not a finding.
function assertEndAfterGrant(grant: GrantRecord): void {
  if (grant.endedAtRevision !== undefined && grant.endedAtRevision <= grant.revision) {
    throw new Error(`run history: the hold of key ${grant.key} with token ${grant.token} ends at revision ${grant.endedAtRevision}, not after its grant at revision ${grant.revision}`);
  }
}
