// The report for people: a plain-text view for the terminal and a markdown one for a note or an issue.
// Both are built from the same rows, so they never disagree.
import { formatDeviation, formatNumber, formatRatio } from '../core/numbers.js';
import { textTable } from '../src/text-table.js';
import type { LatencySummary } from './histogram.js';
import { type BenchReport, type Goal, type WorkloadReport, phaseOf } from './report.js';
import type { ComparisonRow } from './sim-compare/compare.js';
import { capacityLine, hopTable } from './hop-report.js';

/** A markdown table: the first row the header, the first column left-aligned, the rest right-aligned (figures). */
export function markdownTable(cells: readonly string[][]): string[] {
  const [head = [], ...body] = cells;
  return [`| ${head.map(cell).join(' | ')} |`, `|${head.map((_, i) => (i === 0 ? '---' : '---:')).join('|')}|`, ...body.map((row) => `| ${row.map(cell).join(' | ')} |`)];
}

interface Row {
  readonly workload: string;
  readonly concurrency: number;
  readonly opsPerS: string;
  readonly phase: string;
  readonly p50: string;
  readonly p99: string;
  readonly p999: string;
  readonly errors: string;
}

const WORKLOAD_LABELS: ReadonlyArray<readonly [keyof Pick<BenchReport, 'rawTxn' | 'grant' | 'service' | 'serviceTls' | 'peerLock' | 'keepalive'>, string]> = [
  ['rawTxn', 'raw etcd txn'],
  ['grant', 'lockstep grant'],
  ['service', 'lockstep serve (service)'],
  ['serviceTls', 'lockstep serve mTLS (service)'],
  ['peerLock', 'etcd3 Lock (peer)'],
  ['keepalive', 'keepalive'],
];

const fixed = (ms: number) => formatNumber(ms, 2);
/** A markdown table cell: a '|' inside would end the cell. */
const cell = (text: string) => text.replace(/\|/g, '\\|');
const percent = (deviation: number) => formatDeviation(deviation);
const ratioText = (value: number | null) => (value === null ? 'n/a' : formatRatio(value));

function rows(report: BenchReport): Row[] {
  const out: Row[] = [];
  for (const [key, label] of WORKLOAD_LABELS) {
    const workload: WorkloadReport = report[key];
    for (const run of workload.runs) {
      const phases = Object.keys(run.phases);
      for (const phase of phases) {
        const s: LatencySummary = phaseOf(run, phase);
        out.push({
          workload: label,
          concurrency: run.concurrency,
          opsPerS: phase === phases[phases.length - 1] ? Math.round(run.throughputPerS).toString() : '',
          phase,
          p50: fixed(s.p50Ms),
          p99: fixed(s.p99Ms),
          p999: fixed(s.p999Ms),
          errors: run.errors === 0 ? '' : String(run.errors),
        });
      }
    }
  }
  return out;
}

function envLine(report: BenchReport): string {
  const e = report.env;
  const disk = [e.disk.device, e.disk.fsType, e.disk.rotational === undefined ? undefined : e.disk.rotational ? 'rotational' : 'non-rotational'].filter((x) => x !== undefined).join(' ');
  return `etcd ${e.etcdVersion}, ${e.members} member(s)${e.local ? ' on loopback' : ''}, via ${e.endpoint}${e.endpointIsLeader ? ' (leader)' : ''}; ${e.cores} cores (${e.cpuModel}), ${e.memoryGiB} GiB; disk ${disk || 'unknown'} at ${e.disk.dir}; node ${e.nodeVersion}; ${e.durationMsPerRun / 1000} s per run after ${e.warmupMsPerRun / 1000} s warm-up; ${e.elapsedS} s in all`;
}

function fsyncLine(report: BenchReport): string {
  const f = report.fsync;
  return `fdatasync (${f.blockBytes} B writes, ${f.count} samples): p50 ${fixed(f.p50Ms)} ms, p99 ${fixed(f.p99Ms)} ms, p99.9 ${fixed(f.p999Ms)} ms; etcd asks p99 < 10 ms: ${f.meetsEtcdGuidance ? 'met' : 'NOT met'}`;
}

function rttLine(report: BenchReport): string {
  const r = report.loopbackRtt;
  return `loopback TCP round trip (${r.count} samples): p50 ${fixed(r.p50Ms)} ms, p99 ${fixed(r.p99Ms)} ms`;
}

function keepaliveLine(report: BenchReport): string {
  const k = report.keepalive;
  return `keepalive: up to ${Math.round(k.throughputPerS)} session keepalives/s over ${k.sessions} sessions, so about ${k.sessionsSustainedAt5sRenewal} sessions at a 15 s TTL renewed every 5 s (ADR-10)`;
}

function goalText(goal: Goal): string {
  const verdict = goal.met === null ? 'not measured' : goal.met ? 'met' : 'MISSED';
  const value = goal.value === null ? '' : ` ${formatNumber(goal.value, 2)}`;
  return `${goal.goal}: target ${goal.target},${value} ${verdict}${goal.note === undefined ? '' : ` (${goal.note})`}`;
}

export function formatText(report: BenchReport): string {
  const table = rows(report);
  const header: Row = { workload: 'workload', concurrency: 0, opsPerS: 'ops/s', phase: 'phase', p50: 'p50 ms', p99: 'p99 ms', p999: 'p99.9 ms', errors: 'errors' };
  const cells = (r: Row, head = false) => [r.workload, head ? 'c' : String(r.concurrency), r.phase, r.opsPerS, r.p50, r.p99, r.p999, r.errors];
  const all = [cells(header, true), ...table.map((r) => cells(r))];
  const ratioRows = report.ratios.byConcurrency.map((r) => `  c=${r.concurrency}: grant/raw p50 ${ratioText(r.grantP50OverRaw)}, p99 ${ratioText(r.grantP99OverRaw)}, throughput ${ratioText(r.grantThroughputOverRaw)}; etcd3 Lock/grant cycle p50 ${ratioText(r.peerP50OverGrant)}, acquire p50 ${ratioText(r.peerAcquireP50OverGrant)}; service/in-process p50 ${ratioText(r.serviceP50OverGrant)}, p99 ${ratioText(r.serviceP99OverGrant)}, throughput ${ratioText(r.serviceThroughputOverGrant)}, hop p50 ${r.serviceHopP50Ms === null ? 'n/a' : `${fixed(r.serviceHopP50Ms)} ms`}`);
  return [
    `lockstep bench: ${envLine(report)}`,
    fsyncLine(report),
    rttLine(report),
    '',
    ...textTable(all, { rightAligned: (i) => i > 2 }),
    '',
    keepaliveLine(report),
    ...capacityLines(report),
    'ratios:',
    ...ratioRows,
    '',
    'the service hop, every path against the floor (issue 30; acquire+release cycles, CPU per cycle by process):',
    ...textTable(hopTable(report.hop), { rightAligned: (i) => i > 0 }),
    ...capacityLine(report.hop.capacity),
    'goals (one run, reported, not asserted):',
    ...[...report.goals, ...report.hop.goals].map((g) => `  ${goalText(g)}`),
    ...simLines(report),
  ].join('\n');
}

export function formatMarkdown(report: BenchReport): string {
  const table = rows(report).map((r) => `| ${r.workload} | ${r.concurrency} | ${r.phase} | ${r.opsPerS} | ${r.p50} | ${r.p99} | ${r.p999} | ${r.errors} |`);
  const ratioTable = report.ratios.byConcurrency.map((r) => `| ${r.concurrency} | ${ratioText(r.grantP50OverRaw)} | ${ratioText(r.grantP99OverRaw)} | ${ratioText(r.grantThroughputOverRaw)} | ${ratioText(r.peerP50OverGrant)} | ${ratioText(r.peerAcquireP50OverGrant)} | ${ratioText(r.serviceP50OverGrant)} | ${ratioText(r.serviceP99OverGrant)} | ${ratioText(r.serviceThroughputOverGrant)} | ${r.serviceHopP50Ms === null ? 'n/a' : fixed(r.serviceHopP50Ms)} |`);
  const goals = [...report.goals, ...report.hop.goals].map((g) => `| ${cell(g.goal)} | ${g.target} | ${g.value === null ? 'n/a' : formatNumber(g.value, 2)} | ${g.met === null ? 'not measured' : g.met ? 'met' : '**missed**'} | ${cell(g.note ?? '')} |`);
  return [
    '# lockstep bench',
    '',
    `**Environment.** ${envLine(report)}.`,
    '',
    `**Disk floor.** ${fsyncLine(report)}.`,
    '',
    `**Network floor.** ${rttLine(report)}.`,
    '',
    '## Latency and throughput',
    '',
    '| workload | c | phase | ops/s | p50 ms | p99 ms | p99.9 ms | errors |',
    '|---|---:|---|---:|---:|---:|---:|---:|',
    ...table,
    '',
    `${keepaliveLine(report)}.`,
    '',
    ...capacityLines(report).flatMap((line) => [`${line}.`, '']),
    'What each workload does:',
    '',
    ...WORKLOAD_LABELS.map(([key, label]) => `- **${label}**: ${report[key].what}.`),
    '',
    '## Ratios',
    '',
    '| c | grant/raw p50 | grant/raw p99 | grant/raw throughput | etcd3 Lock/grant cycle p50 | etcd3 Lock/grant acquire p50 | service/in-process p50 | service/in-process p99 | service/in-process throughput | hop p50 ms |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...ratioTable,
    '',
    '## The service hop against the floor (issue 30)',
    '',
    ...markdownTable(hopTable(report.hop)),
    '',
    ...capacityLine(report.hop.capacity).map((line) => `${line}.`),
    '',
    '## Goals (one run: reported, not asserted)',
    '',
    '| goal | target | value | verdict | note |',
    '|---|---|---:|---|---|',
    ...goals,
    '',
    ...(report.compareSim.status === 'not-requested' ? [] : ['## Simulator against measurement (--compare-sim)', '', ...simMarkdown(report), '']),
  ].join('\n');
}

function calibrationText(report: BenchReport): string {
  const c = report.compareSim.calibration;
  if (c === undefined) return '';
  return `${c.members} simulated member(s) with ${c.fsyncQuantiles} measured fdatasync quantiles, links at half the measured loopback RTT, and the CPU per write measured in the grant run at each concurrency (etcd request + apply, client per call); seed ${report.compareSim.seed ?? '?'}`;
}

function cpuCosts(row: ComparisonRow): string {
  return `${row.cpu.requestCostMs}+${row.cpu.applyCostMs} / ${row.cpu.clientCostMsPerCall} ms`;
}

function cpuText(report: BenchReport): string[] {
  return report.grant.runs.flatMap((run, i) => {
    const raw = report.rawTxn.runs[i];
    if (run.cpu === undefined || raw?.cpu === undefined) return [];
    const etcd = (cpu: typeof run.cpu) => (cpu.etcdUs === undefined ? '' : `, etcd ${cpu.etcdUs} us (leader ${cpu.leaderUs ?? '?'} us)`);
    return [`  c=${run.concurrency}: grant cycle client ${run.cpu.clientUs} us${etcd(run.cpu)}; raw cycle client ${raw.cpu.clientUs} us${etcd(raw.cpu)}`];
  });
}

function simLines(report: BenchReport): string[] {
  const cpu = cpuText(report);
  const head = cpu.length === 0 ? [] : ['CPU per acquire+release (create+delete) cycle:', ...cpu];
  const sim = report.compareSim;
  if (sim.status === 'not-requested') return head;
  if (sim.status === 'failed') return [...head, `compare-sim: ${sim.note ?? 'failed'}`];
  return [
    ...head,
    `compare-sim: ${calibrationText(report)}`,
    ...(sim.notes ?? []).map((note) => `  note: ${note}`),
    ...(sim.rows ?? []).map(
      (r) =>
        `  c=${r.concurrency} (CPU etcd ${cpuCosts(r)} client): grant acquire p50 predicted ${fixed(r.predicted.p50Ms)} vs measured ${fixed(r.measured.p50Ms)} ms (${percent(r.deviation.p50Ms)}), p99 ${fixed(r.predicted.p99Ms)} vs ${fixed(r.measured.p99Ms)} ms (${percent(r.deviation.p99Ms)}); throughput ${Math.round(r.predicted.throughputPerS)} vs ${Math.round(r.measured.throughputPerS)}/s (${percent(r.deviation.throughputPerS)})`,
    ),
  ];
}

function simMarkdown(report: BenchReport): string[] {
  const sim = report.compareSim;
  if (sim.status !== 'compared') return [sim.note ?? 'not compared'];
  return [
    `${calibrationText(report)}.`,
    ...(sim.notes ?? []).map((note) => `Note: ${note}.`),
    '',
    '| c | CPU ms etcd req+apply / client | acquire p50 predicted | measured | dev | acquire p99 predicted | measured | dev | cycles/s predicted | measured | dev |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...(sim.rows ?? []).map(
      (r) =>
        `| ${r.concurrency} | ${cpuCosts(r)} | ${fixed(r.predicted.p50Ms)} | ${fixed(r.measured.p50Ms)} | ${percent(r.deviation.p50Ms)} | ${fixed(r.predicted.p99Ms)} | ${fixed(r.measured.p99Ms)} | ${percent(r.deviation.p99Ms)} | ${Math.round(r.predicted.throughputPerS)} | ${Math.round(r.measured.throughputPerS)} | ${percent(r.deviation.throughputPerS)} |`,
    ),
  ];
}

/** The --capacity run: what one lockstep serve kept alive, and whether anything was lost. */
function capacityLines(report: BenchReport): string[] {
  const c = report.capacity;
  if (c === undefined) return [];
  return [
    `capacity through lockstep serve: ${c.sessions} sessions with ${c.holds} holds (TTL ${c.ttlSeconds} s) set up in ${formatNumber(c.setupS, 1)} s, renewed at TTL/3 for ${formatNumber(c.renewedForS, 0)} s: ` +
      `${c.renewals} renewals, ${c.renewalFailures} failed, renewal p50 ${fixed(c.renewal.p50Ms)} ms p99 ${fixed(c.renewal.p99Ms)} ms, longest gap ${c.maxRenewalGapMs} ms, ` +
      `${c.falseFences} false fence(s), ${c.holdsStillHeld} of ${c.holds} holds still held in etcd`,
  ];
}
