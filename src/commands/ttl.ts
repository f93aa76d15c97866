// `lockstep ttl`: what a class's TTL costs and buys (ADR-10/11/12), per class, every figure labelled
// analytic, simulated (runs, seeds) or measured (a bench profile). `--format md` prints the comment a
// class pull request carries.
import type { Command } from 'commander';
import { checkDocuments } from '../../core/classes/index.js';
import { keepalivesPerSecond, writesPerSecond } from '../../core/planner/liveness.js';
import { BenchFileError, parseBenchText } from '../../core/planner/measured-bench.js';
import { formatNumber, formatPercent, formatSimulatedSeconds, roundTo } from '../../core/numbers.js';
import { ttlVerdict, type TtlVerdict } from '../../core/planner/ttl-verdict.js';
import { ADVISORY_TTL_FLOOR_SECONDS, TTL_DEFAULT_SECONDS, TTL_MAX_SECONDS, TTL_MIN_SECONDS } from '../../core/classes/index.js';
import { compileDistribution, type DistributionSpec } from '../../sim/kernel/distribution.js';
import { keepaliveLoadPerSecond, MAX_TTL_RUNS, priceTtl, priceTtlSweep, type TtlPrice, type TtlPriceRequest, ttlPriceProblems, ttlSweepProblems } from '../../sim/planner/ttl-pricing.js';
import { GC_PAUSES, type PauseProfile } from '../../sim/planner/ttl-runs.js';
import { BadInput } from '../cli-errors.js';
import { yieldToHost } from '../host-yield.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { BENCH_FILE } from '../files/bench-file.js';
import { InputFileError, MIB, readInputFile } from '../files/read-input.js';
import { runMeasurement } from '../planner-measure/measure-run.js';
import { MAX_MEASURED_HOLDERS, MAX_MEASURED_PAUSES, MAX_PAUSE_MS, measureTtls, renderTtlMeasurement } from '../planner-measure/ttl-report.js';
import { oneLine } from '../terminal-text.js';
import { loadTopology } from './quorum.js';
import { expandPolicyPaths, readDocumentFiles, refuseUnreadable, todayUtc } from '../policy-files.js';

interface TtlOptions {
  sessions: string;
  holdsPerSession: string;
  pauses: string;
  rtt?: string;
  bench?: string;
  runs: string;
  sweep?: string;
  format: string;
  json?: boolean;
  seed: string;
  measure?: boolean;
  measurePauses: string;
  measurePauseMs?: string;
}

const PAUSE_PROFILE_FILE = { what: 'a JSON pause profile {pausesPerHour, durationMs}', maxBytes: MIB };
/** A round trip of ten seconds is already past every timeout the simulated client has. */
const MAX_RTT_MS = 10_000;

export function registerTtlCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('ttl')
    .description('Price a lock class TTL (ADR-10/11/12): keepalive and write load, liveness bound after a holder crash (analytic and simulated), false-fence rate, and the ADR-11 verdict.')
    .argument('<files...>', 'LockClass files (with their PauseTestResults), or directories of them (their *.yaml and *.yml, not subdirectories)')
    .requiredOption('--sessions <N>', 'sessions of the class at peak (one per identity and TTL, ADR-10)')
    .option('--holds-per-session <K>', 'grants per session per second', '0.1')
    .option('--pauses <none|gc|FILE>', 'process pause profile: none, gc (a pause a minute, lognormal 50 ms median, 1.5 s p99), or a JSON file {pausesPerHour, durationMs: DistributionSpec}', 'none')
    .option('--rtt <MEDIAN[:P99]>', 'client <-> arbiter round trip, ms (default: the simulator\'s 0.5 ms)')
    .option('--bench <FILE>', 'a measurement of this hardware: the report of lockstep bench --json (or --out FILE), or its --profile FILE; gives the write ceiling, keepalive capacity and fsync')
    .option('--runs <R>', 'simulated runs (seeds) per figure', '3')
    .option('--sweep <ttl=A..B>', 'print the curve of liveness bound and false-fence rate against TTL')
    .option('--format <md|json|table>', 'output format', 'table')
    .option('--json', 'print {classes: [...], sweep?} as JSON (the same as --format json)')
    .option('--seed <S>', 'base seed', 'ttl')
    .option('--measure', "instead of pricing: measure each class TTL's false-fence share on real processes (etcd, a lockstep serve arbiter, --sessions holder processes), freezing holders for a pause at random phases, beside the model's prediction (issue 32)")
    .option('--measure-pauses <N>', 'with --measure: pauses per TTL', '60')
    .option('--measure-pause-ms <MS>', "with --measure: each pause's length (default per TTL: 5/6 of it less 1 s, where the model predicts half the pauses fence)")
    .action(async (files: string[], options: TtlOptions) => {
      setExitCode(await runTtl(files, options, io));
    });
}

type Parsed = { sessions: number; holds: number; runs: number; pauses: PauseProfile | undefined; pauseLabel: string; rpc?: DistributionSpec; fsync?: DistributionSpec; writeCeiling?: number; writeCeilingSource?: string; keepaliveCeiling?: number; sweep?: { fromSeconds: number; toSeconds: number } };

async function parseOptions(options: TtlOptions): Promise<Parsed | string> {
  const sessions = Number(options.sessions);
  if (!(Number.isInteger(sessions) && sessions > 0)) return `--sessions ${JSON.stringify(options.sessions)} must be a positive whole number (sessions of the class at peak)`;
  const holds = Number(options.holdsPerSession);
  if (!(holds >= 0 && Number.isFinite(holds))) return `--holds-per-session ${JSON.stringify(options.holdsPerSession)} must be a number >= 0 (grants per session per second)`;
  const runs = Number(options.runs);
  if (ttlPriceProblems({ runs }).length > 0) return `--runs ${JSON.stringify(options.runs)} must be a whole number from 1 to ${MAX_TTL_RUNS}`;
  if (!['md', 'json', 'table'].includes(options.format)) return `--format ${JSON.stringify(options.format)} must be md, json or table`;
  if (options.json === true && options.format === 'md') return '--json and --format md exclude each other; choose one';
  const parsed: Parsed = { sessions, holds, runs, pauses: undefined, pauseLabel: 'none' };
  if (options.pauses === 'gc') Object.assign(parsed, { pauses: GC_PAUSES, pauseLabel: 'gc' });
  else if (options.pauses !== 'none') {
    try {
      const profile = JSON.parse(await readInputFile(options.pauses, PAUSE_PROFILE_FILE)) as PauseProfile;
      if (!(profile.pausesPerHour >= 0)) return `--pauses ${options.pauses}: pausesPerHour must be a number >= 0`;
      compileDistribution(profile.durationMs, `--pauses ${options.pauses}: durationMs`);
      Object.assign(parsed, { pauses: profile, pauseLabel: options.pauses });
    } catch (error) {
      const reason = error instanceof InputFileError ? error.reason : (error as Error).message;
      return `--pauses ${options.pauses}: ${reason}; give none, gc or a JSON file {"pausesPerHour": 60, "durationMs": {"kind": "lognormal", "medianMs": 50, "p99Ms": 1500}}`;
    }
  }
  if (options.rtt !== undefined) {
    const [median, p99] = options.rtt.split(':').map(Number);
    if (!(median !== undefined && median > 0 && median <= MAX_RTT_MS && (p99 === undefined || (p99 >= median && p99 <= MAX_RTT_MS)))) return `--rtt ${JSON.stringify(options.rtt)} must be MEDIAN or MEDIAN:P99 in ms, above 0 and at most ${MAX_RTT_MS}, e.g. 2:10`;
    parsed.rpc = p99 === undefined || p99 === median ? { kind: 'constant', ms: median / 2 } : { kind: 'lognormal', medianMs: median / 2, p99Ms: p99 / 2 };
  }
  if (options.bench !== undefined) {
    let text: string;
    try {
      text = await readInputFile(options.bench, BENCH_FILE);
    } catch (error) {
      if (!(error instanceof InputFileError)) throw error;
      return `--bench ${error.message}`;
    }
    try {
      const measured = parseBenchText(text);
      if (measured.walFsync !== null) parsed.fsync = measured.walFsync;
      if (measured.writeCeilingPerSecond !== null) Object.assign(parsed, { writeCeiling: measured.writeCeilingPerSecond, writeCeilingSource: measured.writeCeilingSource });
      if (measured.keepaliveCeilingPerSecond !== null) parsed.keepaliveCeiling = measured.keepaliveCeilingPerSecond;
    } catch (error) {
      if (!(error instanceof BenchFileError)) throw error;
      return `--bench ${options.bench}: ${error.message}`;
    }
  }
  if (options.sweep !== undefined) {
    const match = /^ttl=(\d+)\.\.(\d+)$/.exec(options.sweep);
    if (match === null || Number(match[1]) > Number(match[2])) return `--sweep ${JSON.stringify(options.sweep)} must be ttl=A..B in seconds with A <= B, e.g. ttl=5..60`;
    const sweep = { fromSeconds: Number(match[1]), toSeconds: Number(match[2]) };
    if (ttlSweepProblems({ ...sweep, runs: 1, seed: options.seed }).length > 0) return `--sweep ${JSON.stringify(options.sweep)} leaves ADR-11's TTL range ${TTL_MIN_SECONDS}..${TTL_MAX_SECONDS} s; sweep inside it, e.g. ttl=${TTL_MIN_SECONDS}..60`;
    parsed.sweep = sweep;
  }
  return parsed;
}

/** One class: its TTL priced (sim/planner/ttl-pricing.ts), the load of its sessions, and ADR-11's verdict. */
export interface ClassRow extends TtlPrice {
  namespace: string;
  name: string;
  /** fenced or advisory as the class says (ADR-01); the advisory floor applies to advisory classes only. */
  enforcement: string | null;
  keepalivesPerSecond: number;
  writesPerSecond: number;
  writeCeilingShare: number | null;
  writeCeilingPerSecond: number | null;
  keepaliveCeilingShare: number | null;
  verdict: TtlVerdict;
}

/** `--measure`: the classes' TTLs measured on real processes (src/planner-measure), --sessions holders. */
async function measureClassTtls(ttlsSeconds: readonly number[], holders: number, options: TtlOptions, io: CliIo): Promise<number> {
  if (holders > MAX_MEASURED_HOLDERS) throw new BadInput(`--sessions ${holders} with --measure must be at most ${MAX_MEASURED_HOLDERS} (one holder process each); measure fewer holders`);
  const pauses = Number(options.measurePauses);
  if (!(Number.isInteger(pauses) && pauses >= 1 && pauses <= MAX_MEASURED_PAUSES)) throw new BadInput(`--measure-pauses ${JSON.stringify(options.measurePauses)} must be a whole number from 1 to ${MAX_MEASURED_PAUSES}; ask for a few dozen pauses per TTL`);
  const pauseMs = options.measurePauseMs === undefined ? undefined : Number(options.measurePauseMs);
  if (pauseMs !== undefined && !(Number.isInteger(pauseMs) && pauseMs >= 1 && pauseMs <= MAX_PAUSE_MS)) throw new BadInput(`--measure-pause-ms ${JSON.stringify(options.measurePauseMs)} must be a whole number of ms from 1 to ${MAX_PAUSE_MS}; leave it out for the default pause per TTL`);
  const outside = ttlsSeconds.find((ttl) => !(Number.isInteger(ttl) && ttl >= TTL_MIN_SECONDS && ttl <= TTL_MAX_SECONDS));
  if (outside !== undefined) throw new BadInput(`--measure: a class's ttlSeconds ${outside} is outside ADR-11's range ${TTL_MIN_SECONDS}..${TTL_MAX_SECONDS}, which the arbiter refuses; measure classes inside it`);
  const topology = await loadTopology('regional-3');
  return runMeasurement(io, 'ttl', async (context) => {
    const report = await measureTtls(topology, { ttlsSeconds, holders, pauses, ...(pauseMs === undefined ? {} : { pauseMs }) }, context);
    io.out(options.json === true || options.format === 'json' ? JSON.stringify(report) : renderTtlMeasurement(report));
    return ExitCode.ok;
  });
}

/** The procedure's request for one TTL from the parsed flags. */
function priceRequest(p: Parsed, seed: string): Omit<TtlPriceRequest, 'ttlSeconds'> {
  return { runs: p.runs, seed, ...(p.pauses === undefined ? {} : { pauses: p.pauses }), ...(p.rpc === undefined ? {} : { rpcLatency: p.rpc }), ...(p.fsync === undefined ? {} : { walFsync: p.fsync }) };
}

async function runTtl(paths: readonly string[], options: TtlOptions, io: CliIo): Promise<number> {
  const files = await expandPolicyPaths(paths);
  const parsed = await parseOptions(options);
  if (typeof parsed === 'string') throw new BadInput(parsed);
  const { documents, unreadable } = await readDocumentFiles(files, io);
  refuseUnreadable(unreadable);
  const checked = checkDocuments(documents, { today: todayUtc() });
  const classDocs = documents.map((d) => d.value as { kind?: string; metadata?: { name?: string; namespace?: string }; spec?: { ttlSeconds?: number; enforcement?: string } }).filter((v) => v?.kind === 'LockClass');
  if (classDocs.length === 0) throw new BadInput('no LockClass among the files; pass class files, e.g. examples/classes/*.yaml');
  if (options.measure === true) return measureClassTtls(classDocs.map((doc) => (typeof doc.spec?.ttlSeconds === 'number' ? doc.spec.ttlSeconds : TTL_DEFAULT_SECONDS)), parsed.sessions, options, io);
  const rows: ClassRow[] = [];
  for (const doc of classDocs) {
    const namespace = doc.metadata?.namespace ?? '';
    const name = doc.metadata?.name ?? '';
    const ttlSeconds = typeof doc.spec?.ttlSeconds === 'number' ? doc.spec.ttlSeconds : TTL_DEFAULT_SECONDS;
    const problems = checked.problems.filter((p) => p.namespace === namespace && p.name === name).map((p) => ({ field: p.field, message: p.message, fix: p.fix }));
    const priced = await priceTtl({ ...priceRequest(parsed, options.seed), ttlSeconds }, yieldToHost);
    const writes = writesPerSecond(parsed.sessions, parsed.holds);
    rows.push({
      namespace,
      name,
      enforcement: typeof doc.spec?.enforcement === 'string' ? doc.spec.enforcement : null,
      ...priced,
      keepalivesPerSecond: keepaliveLoadPerSecond(parsed.sessions, ttlSeconds),
      writesPerSecond: roundTo(writes, 1),
      writeCeilingShare: parsed.writeCeiling === undefined ? null : roundTo(writes / parsed.writeCeiling, 4),
      writeCeilingPerSecond: parsed.writeCeiling === undefined ? null : roundTo(parsed.writeCeiling, 1),
      keepaliveCeilingShare: parsed.keepaliveCeiling === undefined ? null : roundTo(keepalivesPerSecond(parsed.sessions, ttlSeconds) / parsed.keepaliveCeiling, 4),
      verdict: ttlVerdict(ttlSeconds, doc.spec?.enforcement, problems),
    });
  }
  // The sweep is one simulated run per TTL (the page's runs field defaults to the same).
  const sweep = parsed.sweep === undefined ? undefined : await priceTtlSweep({ ...priceRequest(parsed, options.seed), ...parsed.sweep, runs: 1 }, yieldToHost);
  if (options.format === 'json' || options.json === true) io.out(JSON.stringify({ classes: rows, ...(sweep === undefined ? {} : { sweep }) }));
  else io.out(render(rows, parsed, options.format === 'md', sweep, options.seed));
  return rows.every((r) => r.verdict.ok) ? ExitCode.ok : ExitCode.failed;
}

// The page prints the same words for the same figures (core/numbers.ts, issue 34).
const seconds = formatSimulatedSeconds;

function percent(share: number): string {
  return formatPercent(share, 2);
}

/** ADR-11's verdict in words: the floor is named only where it applies (an advisory class). */
function verdictText(r: ClassRow): string {
  if (!r.verdict.ok) return `NOT OK: ${r.verdict.problems.length} problem(s)`;
  const range = `${r.ttlSeconds} s is within ADR-11's range of ${TTL_MIN_SECONDS}..${TTL_MAX_SECONDS} s`;
  const floor = r.enforcement === 'advisory' ? ` and at or above the advisory floor of ${ADVISORY_TTL_FLOOR_SECONDS} s` : ` (a ${r.enforcement ?? 'fenced'} class: the advisory floor of ${ADVISORY_TTL_FLOOR_SECONDS} s does not apply)`;
  return `OK: ${range}${floor}; no rule problems`;
}

function render(rows: readonly ClassRow[], p: Parsed, md: boolean, sweep: readonly TtlPrice[] | undefined, seed: string): string {
  const sim = `simulated, ${p.runs} run${p.runs === 1 ? '' : 's'}`;
  const lines: string[] = [];
  if (md) lines.push(`Figures are **analytic** (closed form), **simulated** (the deterministic simulator, seed \`${seed}\`) or **measured** (a bench file); each row says which.`, '');
  for (const r of rows) {
    const className = oneLine(`${r.namespace}/${r.name}`);
    lines.push(md ? `### TTL review: ${className} (ttlSeconds: ${r.ttlSeconds})` : `${className}  ttl ${r.ttlSeconds} s`);
    const item = (label: string, value: string, source: string): string => (md ? `| ${label} | ${value} | ${source} |` : `  ${label.padEnd(36)} ${value}  (${source})`);
    if (md) lines.push('', '| figure | value | source |', '|---|---|---|');
    lines.push(item('keepalives/s at the etcd leader', `${r.keepalivesPerSecond}`, `analytic: ${p.sessions} sessions / (TTL/3)`));
    if (r.keepaliveCeilingShare !== null) lines.push(item('  share of the keepalive capacity', `${percent(r.keepaliveCeilingShare)} of ${p.keepaliveCeiling} keepalives/s`, 'measured: LeaseKeepAlives/s the leader served (lockstep bench)'));
    lines.push(item('grant + release writes/s', `${r.writesPerSecond}`, `analytic: 2 x ${p.sessions} sessions x ${p.holds} holds/s`));
    lines.push(item('share of the write ceiling', r.writeCeilingShare === null ? 'n/a (give --bench FILE)' : `${percent(r.writeCeilingShare)} of ${r.writeCeilingPerSecond} writes/s`, p.writeCeilingSource ?? 'no bench file'));
    const round = seconds(r.livenessPerFailedElectionRoundMs);
    lines.push(item('liveness bound', seconds(r.livenessBoundMs), `analytic worst case, one election round: TTL + election (at most 2 x 1 s timeout + vote and no-op commits) + 1 s promote extension + 0.5 s expiry scan + revoke and grant commits; each failed election round adds up to ${round}`));
    lines.push(item('  without a leader change', seconds(r.livenessBoundNoLeaderChangeMs), 'analytic: TTL + 0.5 s scan + commits'));
    lines.push(item('  after a quorum loss', `outage + ${seconds(r.livenessAfterQuorumReturnMs)}`, 'analytic, PreVote on (etcd 3.5+): quorum back, one election round, the lease restarted at promote expires; without PreVote the recovery election has no worst case'));
    const notSimulated = `not simulated: the arbiter refuses a TTL outside ${TTL_MIN_SECONDS}..${TTL_MAX_SECONDS} s`;
    const extra = r.reacquireLeaderChangeExtraRoundRuns === 0 ? 'every election won in one round' : `${r.reacquireLeaderChangeExtraRoundRuns} of ${p.runs} elections needed another round`;
    if (r.simulatedSessionHours === null) lines.push(item('reacquire, false fences', 'n/a', notSimulated));
    else {
      lines.push(item('reacquire after holder crash p50/p99', `${seconds(r.reacquireMsP50)} / ${seconds(r.reacquireMsP99)}`, sim));
      lines.push(item('  with a leader change p50/p99', `${seconds(r.reacquireLeaderChangeMsP50)} / ${seconds(r.reacquireLeaderChangeMsP99)}`, `${sim}: the etcd leader crashes with the holder; ${extra}`));
      lines.push(item('false fences per session-hour', `${r.falseFencePerSessionHour} (95% upper ${r.falseFenceUpper95PerSessionHour})`, `simulated, ${r.simulatedSessionHours} session-hours, pauses ${p.pauseLabel}`));
    }
    lines.push(item('  from pauses alone', `${r.falseFenceAnalyticPerSessionHour}`, 'analytic: P(pause > TTL - 1 s - phase)'));
    const verdict = verdictText(r);
    lines.push(md ? `\n**Verdict:** ${verdict}` : `  verdict: ${verdict}`);
    for (const problem of r.verdict.problems) lines.push(`${md ? '- ' : '    - '}${oneLine(`${problem.field} ${problem.message}. Fix: ${problem.fix}`)}`);
    lines.push('');
  }
  if (sweep !== undefined) {
    lines.push(md ? '### TTL sweep (1 simulated run per point)\n\n| TTL s | liveness bound s (analytic) | reacquire p50 s (simulated) | false fences/session-hour: simulated (analytic) |\n|---|---|---|---|' : 'sweep: TTL s, liveness bound (analytic), reacquire p50 (simulated, 1 run), false fences/session-hour (simulated | analytic)');
    for (const s of sweep) lines.push(md ? `| ${s.ttlSeconds} | ${formatNumber(s.livenessBoundMs / 1000, 2)} | ${s.reacquireMsP50 === null ? '-' : formatNumber(s.reacquireMsP50 / 1000, 2)} | ${s.falseFencePerSessionHour} (${s.falseFenceAnalyticPerSessionHour}) |` : `  ${String(s.ttlSeconds).padStart(4)}  ${seconds(s.livenessBoundMs).padStart(9)}  ${seconds(s.reacquireMsP50).padStart(9)}  ${s.falseFencePerSessionHour} | ${s.falseFenceAnalyticPerSessionHour}`);
  }
  return lines.join('\n');
}
