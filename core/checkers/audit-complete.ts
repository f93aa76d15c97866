// Audit complete (ADR-21): every lock event the log committed (each grant, and each hold's end: release,
// expiry, force-release, epoch advance) is in the audit store exactly once, with the kind, token and holder
// the log gives it, across tailer crashes and compactions. An event the audit lacks is excused only by a
// recorded gap over its revision (and a gap only by a compaction of the log that ends at it): a gap is
// written down, never silence. What the tailer had not reached when the run ended is not judged, unless
// it was committed longer ago than the run allows an event to take (AuditRun.maxLagMs).
//
// The truth is the recorder's GrantRecords, read from the members' applied state, not what the tailer saw
// through its watch; both use one interpreter (core/audit/interpret.ts), and the recorder checks the
// interpreter's releases and expiries against the Raft entries behind them (sim/world/log-recorder.ts).
import { type AuditRecord, auditEventId, isHoldEnd } from '../audit/events.js';
import { type CheckResult, type Violation, checkResult, plural } from './check-result.js';
import type { AuditRun, AuditedCluster, GrantRecord } from './run-history.js';

interface Expected {
  readonly kind: string;
  readonly key: string;
  readonly revision: bigint;
  readonly token: bigint;
  readonly holder: string;
  readonly atMs: number;
  readonly grant: GrantRecord;
}

interface Tally {
  found: Violation[];
  checked: number;
  inGaps: number;
  notReached: number;
  /** Restored under a cluster ID the audit already held another history of, which the tailer refused. */
  refused: string[];
  /** Events of a history a restore under the same cluster ID undid, past the snapshot's revision. */
  undone: number;
}


export function checkAuditComplete(grants: readonly GrantRecord[], audit: AuditRun): CheckResult {
  const tally: Tally = { found: [], checked: 0, inGaps: 0, notReached: 0, refused: [], undone: 0 };
  const byId = new Map<string, AuditRecord[]>();
  for (const record of audit.records) {
    const id = auditEventId(record);
    byId.set(id, [...(byId.get(id) ?? []), record]);
  }
  audit.clusters.forEach((cluster, index) => {
    // A restore that kept the cluster ID reuses its revisions for other writes (ADR-03): the tailer must
    // refuse to go on (went-backwards); having refused, it holds nothing of the new history to judge.
    const reused = audit.clusters.slice(0, index).some((earlier) => earlier.clusterId === cluster.clusterId);
    if (reused && audit.stops.some((stop) => stop.reason === 'went-backwards' && stop.clusterId === cluster.clusterId)) return void tally.refused.push(cluster.name);
    // Past its successor's snapshot revision, a history restored away under the same cluster ID no longer
    // exists in the log: the tailer read it (and then refused the successor) or never could.
    const successor = audit.clusters.slice(index + 1).find((later) => later.clusterId === cluster.clusterId);
    checkCluster(cluster, grants.filter((g) => (g.cluster ?? '') === cluster.name), audit, byId, tally, successor?.fromRevision);
  });
  if (audit.conflicts > 0) {
    tally.found.push({ kind: 'audit-conflict', key: '', message: `${plural(audit.conflicts, 'replay')} offered the store another reading of an event it already had: the tailer's interpretation depends on where it started`, involved: [] });
  }
  const stops = audit.stops.length === 0 ? '' : `; the tailer stopped ${audit.stops.map((s) => `at revision ${String(s.revision)} (${s.reason})`).join(', ')}`;
  const gaps = audit.gaps.length === 0 ? '' : `, ${plural(tally.inGaps, 'event')} in ${plural(audit.gaps.length, 'recorded gap')}`;
  const notReached = tally.notReached === 0 ? '' : `, ${plural(tally.notReached, 'event')} after the last checkpoint not judged`;
  const undone = tally.undone === 0 ? '' : `; ${plural(tally.undone, 'event')} undone by a restore under the same cluster ID not judged`;
  const refused = tally.refused.length === 0 ? '' : `; not judged: ${tally.refused.join(', ')}, restored under a cluster ID the audit already had (the tailer refused it: a new store is needed)`;
  return checkResult('audit-complete', tally.found, `${plural(tally.checked, 'committed lock event')} of ${plural(audit.clusters.length, 'cluster')} looked up in an audit of ${plural(audit.records.length, 'event')}${gaps}${notReached}${stops}${undone}${refused}`);
}

function checkCluster(cluster: AuditedCluster, grants: readonly GrantRecord[], audit: AuditRun, byId: ReadonlyMap<string, AuditRecord[]>, tally: Tally, undoneAfter: bigint | undefined): void {
  const checkpoint = audit.checkpoints.find((c) => c.clusterId === cluster.clusterId)?.revision ?? 0n;
  const gaps = audit.gaps.filter((g) => g.clusterId === cluster.clusterId);
  for (const gap of gaps) {
    if (!cluster.compactions.includes(gap.toRevision)) {
      tally.found.push({
        kind: 'audit-gap-unfounded',
        key: '',
        message: `cluster ${cluster.name}: the audit records a gap of revisions ${gap.fromRevision}..${gap.toRevision}, but the log was never compacted at ${gap.toRevision} (compactions: ${cluster.compactions.join(', ') || 'none'})`,
        involved: [],
        revisions: [String(gap.fromRevision), String(gap.toRevision)],
      });
    }
  }
  const inGap = (revision: bigint): boolean => gaps.some((g) => g.fromRevision <= revision && revision <= g.toRevision);
  const matched = new Set<string>();
  for (const expected of expectedEvents(grants)) {
    if (undoneAfter !== undefined && expected.revision > undoneAfter) {
      tally.undone += 1;
      continue;
    }
    const id = auditEventId({ clusterId: cluster.clusterId as AuditRecord['clusterId'], revision: expected.revision as AuditRecord['revision'], key: expected.key });
    const rows = byId.get(id) ?? [];
    tally.checked += 1;
    if (rows.length > 0) matched.add(id);
    if (rows.length === 0) {
      if (inGap(expected.revision)) tally.inGaps += 1;
      else if (expected.revision > checkpoint) notReached(cluster, expected, checkpoint, audit, tally);
      else tally.found.push(violation('audit-missing', cluster, expected, `is not in the audit, though the tailer's checkpoint (${checkpoint}) is past it and no gap was recorded over it`));
    } else if (rows.length > 1) {
      tally.found.push(violation('audit-duplicate', cluster, expected, `is in the audit ${rows.length} times`));
    } else {
      const problem = mismatch(expected, rows[0] as AuditRecord);
      if (problem !== undefined) tally.found.push(violation('audit-wrong-event', cluster, expected, problem));
    }
  }
  for (const record of audit.records) {
    if (record.clusterId !== cluster.clusterId || !(record.kind === 'grant' || isHoldEnd(record.kind)) || record.revision <= cluster.fromRevision || record.revision > checkpoint) continue;
    if (undoneAfter !== undefined && record.revision > undoneAfter) continue; // the successor's to judge
    if (matched.has(auditEventId(record))) continue;
    // The end of a hold the recorded history began with (a restored snapshot's) has no grant to pair with.
    if (record.kind !== 'grant' && record.grantRevision !== undefined && record.grantRevision <= cluster.fromRevision) continue;
    tally.found.push({
      kind: 'audit-extra',
      key: record.key,
      message: `cluster ${cluster.name}: the audit has a ${record.kind} of ${record.key} at revision ${record.revision} by ${record.identity ?? 'an unknown holder'}, which the log never committed`,
      involved: [{ holder: record.identity ?? 'unknown', ...(record.token === undefined ? {} : { token: String(record.token) }) }],
      revisions: [String(record.revision)],
    });
  }
}

function notReached(cluster: AuditedCluster, expected: Expected, checkpoint: bigint, audit: AuditRun, tally: Tally): void {
  const ageMs = audit.endedAtMs - expected.atMs;
  if (!cluster.current || ageMs <= audit.maxLagMs) {
    tally.notReached += 1;
    return;
  }
  tally.found.push(violation('audit-behind', cluster, expected, `was committed ${ageMs} ms before the run ended, but the audit's checkpoint stayed at ${checkpoint} (an event may take ${audit.maxLagMs} ms)`));
}

function expectedEvents(grants: readonly GrantRecord[]): Expected[] {
  const out: Expected[] = [];
  for (const grant of grants) {
    out.push({ kind: 'grant', key: grant.key, revision: grant.revision, token: grant.token, holder: grant.holder, atMs: grant.grantedAtMs, grant });
    if (grant.endedAtRevision !== undefined && grant.endReason !== undefined) {
      out.push({ kind: grant.endReason, key: grant.key, revision: grant.endedAtRevision, token: grant.token, holder: grant.holder, atMs: grant.endedAtMs ?? grant.grantedAtMs, grant });
    }
  }
  return out;
}

/**
 * The kind and token; the holder on a grant. An end names its holder from the value the key had just before
 * (prevKv), which only a holder-rewrite (events.ts) makes differ from the grant's: the token names the hold.
 */
function mismatch(expected: Expected, row: AuditRecord): string | undefined {
  const token = row.token ?? row.grantRevision;
  const differences = [
    row.kind === expected.kind ? undefined : `kind ${row.kind}, not ${expected.kind}`,
    token === expected.token ? undefined : `token ${String(token)}, not ${expected.token}`,
    row.kind !== 'grant' || (row.identity ?? 'unreadable') === expected.holder ? undefined : `holder ${row.identity ?? 'unknown'}, not ${expected.holder}`,
  ].filter((d): d is string => d !== undefined);
  return differences.length === 0 ? undefined : `is in the audit with ${differences.join(', ')}`;
}

function violation(kind: Violation['kind'], cluster: AuditedCluster, expected: Expected, what: string): Violation {
  return {
    kind,
    key: expected.key,
    message: `cluster ${cluster.name}: the ${expected.kind} of ${expected.key} at revision ${expected.revision} (holder ${expected.holder}, token ${expected.token}) ${what}`,
    involved: [{ holder: expected.holder, token: String(expected.token) }],
    atMs: expected.atMs,
    revisions: [String(expected.revision)],
  };
}
