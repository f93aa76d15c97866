// `lockstep audit report` as a person reads it: one row per namespace and class, the longest holds, and
// the gaps that make the window incomplete (a gap is said, never left out).
import type { AuditReport, LongHold } from './queries.js';
import { duration, table, terminalSafe, utc } from './format.js';

export function renderReport(report: AuditReport): string {
  const lines = [`audit from ${utc(report.sinceMs)} to ${utc(report.untilMs)}: ${report.events} events`];
  if (report.classes.length === 0) lines.push('no lock activity in the window');
  else {
    lines.push(
      table(
        ['namespace', 'class', 'grants', 'contended', 'released', 'expired', 'forced', 'by epoch', 'unexplained', 'longest hold'],
        report.classes.map((c) => [
          terminalSafe(c.namespace),
          terminalSafe(c.className),
          String(c.grants),
          String(c.contendedGrants),
          String(c.releases),
          String(c.expiries),
          String(c.forceReleases),
          String(c.epochAdvanceEnds),
          String(c.unexplainedEnds + c.holderRewrites),
          c.longestHoldMs === undefined ? '-' : `${duration(c.longestHoldMs)} (${terminalSafe(c.longestHoldKey ?? '?')})`,
        ]),
      ),
    );
    lines.push(`contended: granted within ${duration(report.contentionWindowMs)} of the key's previous hold ending (someone was waiting); expired: the hold ended with its session, without a release`);
  }
  if (report.longestHolds.length > 0) {
    lines.push('', 'longest holds in the window:');
    lines.push(
      table(
        ['key', 'class', 'holder', 'held for'],
        report.longestHolds.map((h) => [terminalSafe(h.key), terminalSafe(h.className ?? '?'), terminalSafe(h.identity ?? '?'), `${heldFor(h)}${h.stillHeld ? ' (still held)' : ''}`]),
      ),
    );
  }
  if (report.gaps.length > 0) {
    lines.push('', `${report.gaps.length} gap${report.gaps.length === 1 ? '' : 's'} in the window: etcd compacted these revisions before the tailer read them, so events there may be missing:`);
    for (const gap of report.gaps) lines.push(`  cluster ${gap.clusterId.toString(16)}: revisions ${gap.fromRevision}..${gap.toRevision} (found ${utc(gap.detectedAtMs)})`);
  }
  return lines.join('\n');
}

/** A duration as far as the audit knows it (LongHold.bound): never a tailer's reading speed passed off as one. */
function heldFor(hold: LongHold): string {
  switch (hold.bound) {
    case 'exact':
      return duration(hold.durationMs);
    case 'at-least':
      return `≥ ${duration(hold.durationMs)}`;
    case 'at-most':
      return `≤ ${duration(hold.durationMs)}`;
    default:
      return 'unknown (grant and end read while catching up; the log keeps no times)';
  }
}
