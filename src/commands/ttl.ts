// `lockstep ttl`: what a class's TTL costs and buys (ADR-10/11/12), per class, every figure labelled
// analytic, simulated (runs, seeds) or measured (a bench profile). `--format md` prints the comment a
// class pull request carries.
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { checkDocuments } from '../../core/classes/index.js';
import { DEFAULT_ETCD_TIMERS, falseFencesPerSessionHourFromPauses, keepalivesPerSecond, livenessBound, poissonUpper95, writesPerSecond } from '../../core/planner/liveness.js';
import { percentile, roundTo } from '../../core/planner/percentiles.js';
import { ttlVerdict, type TtlVerdict } from '../../core/planner/ttl-verdict.js';
import { compileDistribution, type DistributionSpec } from '../../sim/kernel/distribution.js';
import { falseFences, GC_PAUSES, type PauseProfile, reacquireAfterCrash } from '../../sim/planner/ttl-runs.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { formatUnreadable, readDocumentFiles, todayUtc } from '../policy-files.js';

interface TtlOptions {
  sessions: string;
  holdsPerSession: string;
  pauses: string;
  rtt?: string;
  bench?: string;
  runs: string;
  sweep?: string;
  format: string;
  seed: string;
}

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const FALSE_FENCE_SESSIONS = 8;
const FALSE_FENCE_MS = 10 * 60_000;

export function registerTtlCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('ttl')
    .description('Price a lock class TTL (ADR-10/11/12): keepalive and write load, liveness bound after a holder crash (analytic and simulated), false-fence rate, and the ADR-11 verdict.')
    .argument('<files...>', 'LockClass files (with their PauseTestResults)')
    .requiredOption('--sessions <N>', 'sessions of the class at peak (one per identity and TTL, ADR-10)')
    .option('--holds-per-session <K>', 'grants per session per second', '0.1')
    .option('--pauses <none|gc|FILE>', 'process pause profile: none, gc (a pause a minute, lognormal 50 ms median, 1.5 s p99), or a JSON file {pausesPerHour, durationMs: DistributionSpec}', 'none')
    .option('--rtt <MEDIAN[:P99]>', 'client <-> arbiter round trip, ms (default: the simulator\'s 0.5 ms)')
    .option('--bench <FILE>', 'a hardware profile from lockstep bench --profile: measured fsync and CPU costs')
    .option('--runs <R>', 'simulated runs (seeds) per figure', '3')
    .option('--sweep <ttl=A..B>', 'print the curve of liveness bound and false-fence rate against TTL')
    .option('--format <md|json|table>', 'output format', 'table')
    .option('--seed <S>', 'base seed', 'ttl')
    .action(async (files: string[], options: TtlOptions) => {
      setExitCode(await runTtl(files, options, io));
    });
}

type Parsed = { sessions: number; holds: number; runs: number; pauses: PauseProfile | undefined; pauseLabel: string; rpc?: DistributionSpec; fsync?: DistributionSpec; writeCeiling?: number; sweep?: number[] };

async function parseOptions(options: TtlOptions): Promise<Parsed | string> {
  const sessions = Number(options.sessions);
  if (!(Number.isInteger(sessions) && sessions > 0)) return `--sessions ${JSON.stringify(options.sessions)} must be a positive whole number (sessions of the class at peak)`;
  const holds = Number(options.holdsPerSession);
  if (!(holds >= 0 && Number.isFinite(holds))) return `--holds-per-session ${JSON.stringify(options.holdsPerSession)} must be a number >= 0 (grants per session per second)`;
  const runs = Number(options.runs);
  if (!(Number.isInteger(runs) && runs >= 1 && runs <= 50)) return `--runs ${JSON.stringify(options.runs)} must be a whole number from 1 to 50`;
  if (!['md', 'json', 'table'].includes(options.format)) return `--format ${JSON.stringify(options.format)} must be md, json or table`;
  const parsed: Parsed = { sessions, holds, runs, pauses: undefined, pauseLabel: 'none' };
  if (options.pauses === 'gc') Object.assign(parsed, { pauses: GC_PAUSES, pauseLabel: 'gc' });
  else if (options.pauses !== 'none') {
    try {
      const profile = JSON.parse(await readFile(options.pauses, 'utf8')) as PauseProfile;
      if (!(profile.pausesPerHour >= 0)) return `--pauses ${options.pauses}: pausesPerHour must be a number >= 0`;
      compileDistribution(profile.durationMs, `--pauses ${options.pauses}: durationMs`);
      Object.assign(parsed, { pauses: profile, pauseLabel: options.pauses });
    } catch (error) {
      return `--pauses ${options.pauses}: ${(error as Error).message}; give none, gc or a JSON file {"pausesPerHour": 60, "durationMs": {"kind": "lognormal", "medianMs": 50, "p99Ms": 1500}}`;
    }
  }
  if (options.rtt !== undefined) {
    const [median, p99] = options.rtt.split(':').map(Number);
    if (!(median !== undefined && median > 0 && (p99 === undefined || p99 >= median))) return `--rtt ${JSON.stringify(options.rtt)} must be MEDIAN or MEDIAN:P99 in ms, e.g. 2:10`;
    parsed.rpc = p99 === undefined || p99 === median ? { kind: 'constant', ms: median / 2 } : { kind: 'lognormal', medianMs: median / 2, p99Ms: p99 / 2 };
  }
  if (options.bench !== undefined) {
    try {
      const profile = JSON.parse(await readFile(options.bench, 'utf8')) as { kind?: string; walFsync?: DistributionSpec; cpuByConcurrency?: Array<{ requestCostMs: number; applyCostMs: number }> };
      if (profile.kind !== 'lockstep-hardware-profile' || profile.walFsync === undefined) return `--bench ${options.bench} is not a hardware profile; write one with lockstep bench --profile FILE`;
      parsed.fsync = profile.walFsync;
      const cpu = profile.cpuByConcurrency?.[profile.cpuByConcurrency.length - 1];
      if (cpu !== undefined && cpu.requestCostMs + cpu.applyCostMs > 0) parsed.writeCeiling = 1000 / (cpu.requestCostMs + cpu.applyCostMs);
    } catch (error) {
      return `--bench ${options.bench}: ${(error as Error).message}`;
    }
  }
  if (options.sweep !== undefined) {
    const match = /^ttl=(\d+)\.\.(\d+)$/.exec(options.sweep);
    if (match === null || Number(match[1]) > Number(match[2])) return `--sweep ${JSON.stringify(options.sweep)} must be ttl=A..B in seconds, e.g. ttl=5..60`;
    const [a, b] = [Number(match[1]), Number(match[2])];
    parsed.sweep = [...new Set([a, ...[5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300].filter((t) => t > a && t < b), b])];
  }
  return parsed;
}

interface ClassRow {
  namespace: string;
  name: string;
  ttlSeconds: number;
  keepalivesPerSecond: number;
  writesPerSecond: number;
  writeCeilingShare: number | null;
  livenessBoundMs: number;
  livenessBoundNoLeaderChangeMs: number;
  reacquireMsP50: number;
  reacquireMsP99: number;
  reacquireLeaderChangeMsP50: number;
  reacquireLeaderChangeMsP99: number;
  falseFencePerSessionHour: number;
  falseFenceAnalyticPerSessionHour: number;
  falseFenceUpper95PerSessionHour: number;
  simulatedSessionHours: number;
  verdict: TtlVerdict;
}

async function priceTtl(ttlSeconds: number, p: Parsed, seed: string): Promise<Omit<ClassRow, 'namespace' | 'name' | 'verdict' | 'keepalivesPerSecond' | 'writesPerSecond' | 'writeCeilingShare'>> {
  const world = { ttlSeconds, yieldToHost, ...(p.rpc === undefined ? {} : { rpcLatency: p.rpc }), ...(p.fsync === undefined ? {} : { walFsync: p.fsync }) };
  const plain: number[] = [];
  const changed: number[] = [];
  let fences = 0;
  let sessionHours = 0;
  for (let r = 0; r < p.runs; r += 1) {
    plain.push((await reacquireAfterCrash({ ...world, seed: `${seed}-${ttlSeconds}-crash-${r}`, leaderChange: false })) ?? Number.POSITIVE_INFINITY);
    changed.push((await reacquireAfterCrash({ ...world, seed: `${seed}-${ttlSeconds}-leader-${r}`, leaderChange: true })) ?? Number.POSITIVE_INFINITY);
    const ff = await falseFences({ ...world, seed: `${seed}-${ttlSeconds}-fence-${r}`, clients: FALSE_FENCE_SESSIONS, durationMs: FALSE_FENCE_MS, ...(p.pauses === undefined ? {} : { pauses: p.pauses }) });
    fences += ff.fences;
    sessionHours += ff.sessionHours;
  }
  const bound = livenessBound(ttlSeconds, DEFAULT_ETCD_TIMERS);
  const analytic = p.pauses === undefined ? 0 : falseFencesPerSessionHourFromPauses(ttlSeconds, p.pauses.pausesPerHour, compileDistribution(p.pauses.durationMs));
  return {
    ttlSeconds,
    livenessBoundMs: bound.withLeaderChangeMs,
    livenessBoundNoLeaderChangeMs: bound.withoutLeaderChangeMs,
    reacquireMsP50: roundTo(percentile(plain, 0.5), 0),
    reacquireMsP99: roundTo(percentile(plain, 0.99), 0),
    reacquireLeaderChangeMsP50: roundTo(percentile(changed, 0.5), 0),
    reacquireLeaderChangeMsP99: roundTo(percentile(changed, 0.99), 0),
    falseFencePerSessionHour: roundTo(fences / sessionHours, 4),
    falseFenceAnalyticPerSessionHour: roundTo(analytic, 6),
    falseFenceUpper95PerSessionHour: roundTo(poissonUpper95(fences, sessionHours), 4),
    simulatedSessionHours: roundTo(sessionHours, 2),
  };
}

async function runTtl(files: readonly string[], options: TtlOptions, io: CliIo): Promise<number> {
  const parsed = await parseOptions(options);
  if (typeof parsed === 'string') {
    io.err(`lockstep ttl: ${parsed}`);
    return ExitCode.badInput;
  }
  const { documents, unreadable } = await readDocumentFiles(files, io);
  if (unreadable.length > 0) {
    for (const entry of unreadable) io.err(formatUnreadable(entry));
    return ExitCode.badInput;
  }
  const checked = checkDocuments(documents, { today: todayUtc() });
  const classDocs = documents.map((d) => d.value as { kind?: string; metadata?: { name?: string; namespace?: string }; spec?: { ttlSeconds?: number; enforcement?: string } }).filter((v) => v?.kind === 'LockClass');
  if (classDocs.length === 0) {
    io.err('lockstep ttl: no LockClass among the files; pass class files, e.g. examples/classes/*.yaml');
    return ExitCode.badInput;
  }
  const rows: ClassRow[] = [];
  for (const doc of classDocs) {
    const namespace = doc.metadata?.namespace ?? '';
    const name = doc.metadata?.name ?? '';
    const ttlSeconds = typeof doc.spec?.ttlSeconds === 'number' ? doc.spec.ttlSeconds : 15;
    const problems = checked.problems.filter((p) => p.namespace === namespace && p.name === name).map((p) => ({ field: p.field, message: p.message, fix: p.fix }));
    const priced = await priceTtl(ttlSeconds, parsed, options.seed);
    const writes = writesPerSecond(parsed.sessions, parsed.holds);
    rows.push({
      namespace,
      name,
      ...priced,
      keepalivesPerSecond: roundTo(keepalivesPerSecond(parsed.sessions, ttlSeconds), 1),
      writesPerSecond: roundTo(writes, 1),
      writeCeilingShare: parsed.writeCeiling === undefined ? null : roundTo(writes / parsed.writeCeiling, 4),
      verdict: ttlVerdict(ttlSeconds, doc.spec?.enforcement, problems),
    });
  }
  let sweep: Array<Awaited<ReturnType<typeof priceTtl>>> | undefined;
  if (parsed.sweep !== undefined) {
    sweep = [];
    for (const ttl of parsed.sweep) sweep.push(await priceTtl(ttl, { ...parsed, runs: 1 }, `${options.seed}-sweep`));
  }
  if (options.format === 'json') io.out(JSON.stringify({ classes: rows, ...(sweep === undefined ? {} : { sweep }) }));
  else io.out(render(rows, parsed, options.format === 'md', sweep));
  return rows.every((r) => r.verdict.ok) ? ExitCode.ok : ExitCode.failed;
}

function seconds(ms: number): string {
  return Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : 'never (within the run)';
}

function render(rows: readonly ClassRow[], p: Parsed, md: boolean, sweep: ReadonlyArray<Awaited<ReturnType<typeof priceTtl>>> | undefined): string {
  const sim = `simulated, ${p.runs} runs`;
  const lines: string[] = [];
  for (const r of rows) {
    lines.push(md ? `### TTL review: ${r.namespace}/${r.name} (ttlSeconds: ${r.ttlSeconds})` : `${r.namespace}/${r.name}  ttl ${r.ttlSeconds} s`);
    const item = (label: string, value: string, source: string): string => (md ? `| ${label} | ${value} | ${source} |` : `  ${label.padEnd(34)} ${value}  (${source})`);
    if (md) lines.push('', '| figure | value | source |', '|---|---|---|');
    lines.push(item('keepalives/s at the etcd leader', `${r.keepalivesPerSecond}`, `analytic: ${p.sessions} sessions / (TTL/3)`));
    lines.push(item('grant + release writes/s', `${r.writesPerSecond}`, `analytic: 2 x ${p.sessions} sessions x ${p.holds} holds/s`));
    lines.push(item('share of the write ceiling', r.writeCeilingShare === null ? 'n/a (give --bench FILE)' : `${(r.writeCeilingShare * 100).toFixed(2)}%`, r.writeCeilingShare === null ? 'no bench profile' : 'measured CPU costs from the bench profile'));
    lines.push(item('liveness bound', seconds(r.livenessBoundMs), 'analytic: TTL + election + 1 s promote extension + 0.5 s expiry scan + revoke and grant commits'));
    lines.push(item('  without a leader change', seconds(r.livenessBoundNoLeaderChangeMs), 'analytic: TTL + 0.5 s scan + commits'));
    lines.push(item('reacquire after holder crash p50/p99', `${seconds(r.reacquireMsP50)} / ${seconds(r.reacquireMsP99)}`, sim));
    lines.push(item('  with a leader change p50/p99', `${seconds(r.reacquireLeaderChangeMsP50)} / ${seconds(r.reacquireLeaderChangeMsP99)}`, `${sim}: the etcd leader crashes with the holder`));
    lines.push(item('false fences per session-hour', `${r.falseFencePerSessionHour} (95% upper ${r.falseFenceUpper95PerSessionHour})`, `simulated, ${r.simulatedSessionHours} session-hours, pauses ${p.pauseLabel}`));
    lines.push(item('  from pauses alone', `${r.falseFenceAnalyticPerSessionHour}`, 'analytic: P(pause > TTL - 1 s - phase)'));
    const verdict = r.verdict.ok ? 'OK: within 5..300 s and the advisory floor, no rule problems (ADR-11)' : `NOT OK: ${r.verdict.problems.length} problem(s)`;
    lines.push(md ? `\n**Verdict:** ${verdict}` : `  verdict: ${verdict}`);
    for (const problem of r.verdict.problems) lines.push(`${md ? '- ' : '    - '}${problem.field} ${problem.message}. Fix: ${problem.fix}`);
    lines.push('');
  }
  if (sweep !== undefined) {
    lines.push(md ? '### TTL sweep (1 run per point)\n\n| TTL s | liveness bound s | reacquire p50 s | false fences/session-hour (analytic) |\n|---|---|---|---|' : 'sweep: TTL s, liveness bound, simulated reacquire, false fences/session-hour (simulated | analytic)');
    for (const s of sweep) lines.push(md ? `| ${s.ttlSeconds} | ${(s.livenessBoundMs / 1000).toFixed(2)} | ${(s.reacquireMsP50 / 1000).toFixed(2)} | ${s.falseFencePerSessionHour} (${s.falseFenceAnalyticPerSessionHour}) |` : `  ${String(s.ttlSeconds).padStart(4)}  ${seconds(s.livenessBoundMs).padStart(9)}  ${seconds(s.reacquireMsP50).padStart(9)}  ${s.falseFencePerSessionHour} | ${s.falseFenceAnalyticPerSessionHour}`);
  }
  return lines.join('\n');
}
