// What a gate run reports (issue 15): the verdict, the checks, the faults injected per kind (and what it
// could not inject, and why), the operations, and where the history, the schedule and the report went.
// One plain object, printed as text, as --json, and as a self-contained HTML page (no script, no link out).
import type { CheckResult } from '../../core/checkers/check-result.js';
import type { ComparisonRow, FigureSummary, KindEffects } from '../../core/checkers/fault-effects.js';
import { formatMs, formatNumber, formatRatio } from '../../core/numbers.js';
import { FAULT_KINDS } from '../../scenarios/fault-schedule.js';
import { type FaultLogLine, countFaults } from './fault-log.js';
import { REAL_CANNOT } from './real-fault-target.js';

export interface GateReport {
  readonly ok: boolean;
  readonly verdict: 'pass' | 'violation';
  readonly seed: string;
  readonly durationMs: number;
  /** When the workload (and the schedule's time 0) began, on the history's clock. */
  readonly workloadStartMs: number;
  readonly setup: { readonly members: number; readonly arbiters: number; readonly clients: number; readonly keys: number; readonly resource: string; readonly etcdBinary: string; readonly slowHolder: boolean };
  readonly schedule: string;
  readonly operations: { readonly ok: number; readonly fail: number; readonly info: number };
  readonly grants: number;
  readonly logEvents: number;
  readonly faults: { readonly counts: Record<string, { injected: number; skipped: number; failed: number }>; readonly lines: readonly FaultLogLine[] };
  /**
   * Measured, per fault kind (core/checkers/fault-effects.ts measureFaultEffects over the history: the rule the
   * simulator's prediction is measured by): time to the next grant, to the victim's key granted again, to
   * the library fence, and counts in the 10 s after; each a count, min, median, longest.
   */
  readonly effects: readonly KindEffects[];
  /** --compare-sim: the simulator's prediction beside the measured figures. A report, not a check: never the exit code. */
  readonly comparison?: GateComparison;
  readonly cannotInject: readonly { readonly kind: string; readonly why: string }[];
  readonly checks: readonly { readonly name: string; readonly ok: boolean; readonly verdict: string; readonly detail: string; readonly violations: CheckResult['violations'] }[];
  readonly notRun: readonly { readonly check: string; readonly why: string }[];
  readonly notDeadlineChecked: { readonly unknownToClients: number };
  readonly problems: readonly string[];
  readonly files: { readonly history: string; readonly faults: string; readonly report: string; readonly json: string };
  readonly processes: { readonly pids: readonly number[]; readonly tempDir: string };
}

export interface GateComparison {
  /** Where the simulator's timing came from (a bench profile, or its defaults). */
  readonly calibration: string;
  /** The simulated seeds pooled into the prediction. */
  readonly seeds: readonly string[];
  readonly tolerance: number;
  /** Per kind (and what it hit: `pause @leader`) and figure: measured median, predicted median, ratio, within, reason. */
  readonly rows: readonly ComparisonRow[];
}

const FIGURE_NAMES: Readonly<Record<ComparisonRow['figure'], string>> = {
  nextGrant: 'next grant',
  victimKeyGrant: "victim's key granted again",
  fence: 'fence of a hold open at the fault',
  grants: 'grants in 10 s',
  refusals: 'refused acquires in 10 s',
  writesAccepted: 'writes accepted in 10 s',
  writesRefused: 'writes refused in 10 s',
};

const isTime = (figure: ComparisonRow['figure']): boolean => figure === 'nextGrant' || figure === 'victimKeyGrant' || figure === 'fence';
const figureValue = (figure: ComparisonRow['figure'], value: number | undefined): string => (value === undefined ? 'none' : isTime(figure) ? formatMs(value) : formatNumber(value));
const summaryText = (summary: FigureSummary): string => `${summary.count} / ${formatMs(summary.median)} / ${formatMs(summary.max)}`;

/** The comparison's rows as table cells (text and HTML alike): kind, figure, measured, predicted, ratio, within, reason. */
export function comparisonCells(comparison: GateComparison): string[][] {
  return comparison.rows
    .filter((r) => r.measuredMedian !== undefined || r.predictedMedian !== undefined)
    .map((r) => [r.kind, FIGURE_NAMES[r.figure], figureValue(r.figure, r.measuredMedian), figureValue(r.figure, r.predictedMedian), r.ratio === undefined ? '' : formatRatio(r.ratio), r.within ? 'yes' : 'no', r.reason]);
}

const COMPARISON_HEAD = ['kind', 'figure', 'measured median', 'predicted median', 'ratio', 'within', 'reason'];
const comparisonTitle = (c: GateComparison): string => `the simulator held against this run (--compare-sim; a report, not a check: it never changes the exit code): ${c.seeds.length} simulated seed${c.seeds.length === 1 ? '' : 's'} pooled, timing from ${c.calibration}; within ±${formatNumber(c.tolerance * 100, 0)}% of the measured median`;

/** The simulator's checkers a gate cannot run on real processes, and what stands in for each. */
export const NOT_RUN: GateReport['notRun'] = [
  { check: 'belief', why: 'needs when each holder\'s canStart() was true in true time; a real process\'s belief has no instant on the gate\'s clock. The deadline check (the library fenced before the log expired) and the fence check (no stale write accepted) stand in' },
  { check: 'audit-complete', why: 'the gate\'s own watch is the audit record of the run: there is no second recorder of the log to hold it against' },
  { check: 'liveness (free-key-wait, in-doubt-resolved, hold-outlives-interest, false-fence)', why: 'their bounds are calibrated for the simulator\'s timing; on a shared machine under faults they would judge the machine, not the service' },
];

/** Every kind the simulator knows that the real cluster cannot inject, with its reason. */
export function cannotInject(): GateReport['cannotInject'] {
  return FAULT_KINDS.filter((kind) => REAL_CANNOT[kind] !== undefined).map((kind) => ({ kind, why: REAL_CANNOT[kind] as string }));
}

export function faultCounts(lines: readonly FaultLogLine[]): GateReport['faults']['counts'] {
  return countFaults(lines);
}

export function reportText(report: GateReport): string {
  const lines: string[] = [];
  lines.push(`lockstep gate: ${report.verdict === 'pass' ? 'PASS' : 'VIOLATION'}: seed ${report.seed}, ${formatMs(report.durationMs)}, ${report.setup.members} etcd members (${report.setup.etcdBinary}), ${report.setup.arbiters} arbiters, ${report.setup.clients} clients on ${report.setup.keys} keys, ${report.setup.resource} resource`);
  lines.push(`  operations: ${report.operations.ok} ok, ${report.operations.fail} fail, ${report.operations.info} unknown outcome; ${report.grants} grants in the log, ${report.logEvents} log expire events`);
  lines.push(`  faults (${report.schedule}):`);
  for (const [kind, count] of Object.entries(report.faults.counts)) lines.push(`    ${kind}: ${count.injected} injected${count.skipped === 0 ? '' : `, ${count.skipped} skipped`}${count.failed === 0 ? '' : `, ${count.failed} failed`}`);
  if (report.effects.length > 0) {
    lines.push('  fault effects, measured (faults with the figure / median / longest):');
    for (const k of report.effects) {
      const figures = (['nextGrant', 'victimKeyGrant', 'fence'] as const).flatMap((f) => (k[f] === undefined ? [] : [`${FIGURE_NAMES[f]} ${summaryText(k[f])}`]));
      lines.push(`    ${k.kind} (${k.faults}): ${figures.length === 0 ? 'no grant or fence after it' : figures.join('; ')}`);
    }
  }
  if (report.comparison !== undefined) {
    lines.push(`  ${comparisonTitle(report.comparison)}:`);
    const cells = [COMPARISON_HEAD, ...comparisonCells(report.comparison)];
    const widths = COMPARISON_HEAD.map((_, i) => Math.max(...cells.map((row) => (row[i] as string).length)));
    for (const row of cells) lines.push(`    ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] as number))).join('  ').trimEnd()}`);
    const left = report.comparison.rows.length - (cells.length - 1);
    if (left > 0) lines.push(`    (${left} rows where neither history shows the figure are in report.json)`);
  }
  lines.push('  checks:');
  for (const check of report.checks) lines.push(`    ${check.ok ? 'ok  ' : check.verdict === 'unknown' ? '??  ' : 'FAIL'} ${check.name}: ${check.detail}`);
  const skipped = report.notDeadlineChecked;
  if (skipped.unknownToClients > 0) lines.push(`    (deadline: ${skipped.unknownToClients} expired holds no client was told of (acquires of unknown outcome) have no handle to fence them: not checked)`);
  lines.push(`  not run on real processes: ${report.notRun.map((n) => n.check).join('; ')} (the report file says why)`);
  lines.push(`  cannot inject here: ${report.cannotInject.map((c) => c.kind).join(', ')}`);
  for (const problem of report.problems.slice(0, 10)) lines.push(`  problem: ${problem}`);
  if (report.problems.length > 10) lines.push(`  ... ${report.problems.length - 10} more problems in the report`);
  lines.push(`  history ${report.files.history}; fault schedule ${report.files.faults}; report ${report.files.report}`);
  return lines.join('\n');
}

const escape = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function reportHtml(report: GateReport): string {
  const row = (cells: readonly string[], head = false): string => `<tr>${cells.map((c) => (head ? `<th>${escape(c)}</th>` : `<td>${escape(c)}</td>`)).join('')}</tr>`;
  const checks = report.checks.map((c) => row([c.ok ? 'ok' : c.verdict, c.name, c.detail])).join('');
  const violations = report.checks.flatMap((c) => c.violations.slice(0, 20).map((v) => row([c.name, v.kind, v.key, v.message]))).join('');
  const counts = Object.entries(report.faults.counts).map(([kind, c]) => row([kind, String(c.injected), String(c.skipped), String(c.failed)])).join('');
  const faults = report.faults.lines.map((l) => row([formatMs(l.atMs), l.kind, l.outcome, l.what])).join('');
  const effect = (summary: FigureSummary | undefined): string => (summary === undefined ? 'none' : summaryText(summary));
  const effects = report.effects.map((k) => row([k.kind, String(k.faults), effect(k.nextGrant), effect(k.victimKeyGrant), effect(k.fence)])).join('');
  const comparison = report.comparison === undefined ? '' : `<h2>The simulator held against this run</h2><p>${escape(comparisonTitle(report.comparison))}.</p><table>${row(COMPARISON_HEAD, true)}${comparisonCells(report.comparison).map((cells) => row(cells)).join('')}</table>`;
  const cannot = report.cannotInject.map((c) => row([c.kind, c.why])).join('');
  const notRun = report.notRun.map((n) => row([n.check, n.why])).join('');
  const problems = report.problems.map((p) => `<li>${escape(p)}</li>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>lockstep gate: ${escape(report.verdict)} (seed ${escape(report.seed)})</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2em;max-width:80em}table{border-collapse:collapse;margin:.5em 0 1.5em}td,th{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}.pass{color:#070}.violation{color:#b00}</style></head>
<body><h1 class="${report.verdict}">lockstep gate: ${report.verdict === 'pass' ? 'PASS' : 'VIOLATION'}</h1>
<p>Seed ${escape(report.seed)}, ${escape(formatMs(report.durationMs))}; ${report.setup.members} etcd members (${escape(report.setup.etcdBinary)}), ${report.setup.arbiters} arbiters, ${report.setup.clients} clients on ${report.setup.keys} keys, ${escape(report.setup.resource)} resource${report.setup.slowHolder ? ', client-1 slowed to x0.3 (--slow-holder)' : ''}. Schedule: ${escape(report.schedule)}.</p>
<p>Operations: ${report.operations.ok} ok, ${report.operations.fail} fail, ${report.operations.info} unknown outcome. ${report.grants} grants in the log; ${report.logEvents} log expire events in the history.</p>
<h2>Checks</h2><table>${row(['verdict', 'check', 'detail'], true)}${checks}</table>
${violations === '' ? '' : `<h2>Violations</h2><table>${row(['check', 'kind', 'key', 'what'], true)}${violations}</table>`}
<h2>Not run on real processes</h2><table>${row(['check', 'why, and what stands in'], true)}${notRun}</table>
<h2>Faults per kind</h2><table>${row(['kind', 'injected', 'skipped', 'failed'], true)}${counts}</table>
<h2>Fault effects (measured)</h2><p>Each cell: faults with the figure / median / longest, from the fault.</p><table>${row(['kind', 'faults', 'next grant', "victim's key granted again", 'fence'], true)}${effects}</table>
${comparison}
<h2>Cannot be injected here</h2><table>${row(['kind', 'why'], true)}${cannot}</table>
<h2>Fault log</h2><table>${row(['at', 'kind', 'outcome', 'what'], true)}${faults}</table>
${problems === '' ? '' : `<h2>Problems</h2><ul>${problems}</ul>`}
<p>History: ${escape(report.files.history)} (check it again with <code>lockstep check --model lock --resource ${escape(report.setup.resource)} ${escape(report.files.history)}</code>); fault schedule: ${escape(report.files.faults)}.</p>
</body></html>
`;
}
