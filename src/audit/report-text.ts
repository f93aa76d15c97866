// `lockstep audit report` as a person reads it: one row per namespace and class, the longest holds, and
// the gaps that make the window incomplete (a gap is said, never left out).
import type { AuditReport, LongHold } from './queries.js';
import { formatDuration } from '../../core/numbers.js';
import { oneLine } from '../terminal-text.js';
import { underlinedTable } from '../text-table.js';
import { utc } from './format.js';

export function renderReport(report: AuditReport): string {
  const lines = [`audit from ${utc(report.sinceMs)} to ${utc(report.untilMs)}: ${report.events} events`];
  if (report.classes.length === 0) lines.push('no lock activity in the window');
  else {
    lines.push(
      underlinedTable(
        ['namespace', 'class', 'grants', 'contended', 'released', 'expired', 'forced', 'by epoch', 'unexplained', 'longest hold'],
        report.classes.map((c) => [
          oneLine(c.namespace),
          oneLine(c.className),
          String(c.grants),
          String(c.contendedGrants),
          String(c.releases),
          String(c.expiries),
          String(c.forceReleases),
          String(c.epochAdvanceEnds),
          String(c.unexplainedEnds + c.holderRewrites),
          c.longestHoldMs === undefined ? '-' : `${formatDuration(c.longestHoldMs)} (${oneLine(c.longestHoldKey ?? '?')})`,
        ]),
      ),
    );
    lines.push(`contended: granted within ${formatDuration(report.contentionWindowMs)} of the key's previous hold ending (someone was waiting); expired: the hold ended with its session, without a release`);
  }
  if (report.longestHolds.length > 0) {
    lines.push('', 'longest holds in the window:');
    lines.push(
      underlinedTable(
        ['key', 'class', 'holder', 'held for'],
        report.longestHolds.map((h) => [oneLine(h.key), oneLine(h.className ?? '?'), oneLine(h.identity ?? '?'), `${heldFor(h)}${h.stillHeld ? ' (still held)' : ''}`]),
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
      return formatDuration(hold.durationMs);
    case 'at-least':
      return `≥ ${formatDuration(hold.durationMs)}`;
    case 'at-most':
      return `≤ ${formatDuration(hold.durationMs)}`;
    default:
      return 'unknown (grant and end read while catching up; the log keeps no times)';
  }
}
