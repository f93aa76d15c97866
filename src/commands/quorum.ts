// `lockstep quorum`: a quorum topology priced (ADR-06/07/08): acquisition latency from the full simulated
// protocol beside its analytic floor and bound, the throughput ceiling, and what losing a region or a hall
// does. Topologies are data: a preset name (examples/topologies/NAME.json) or a file.
import { join } from 'node:path';
import type { Command } from 'commander';
import { formatMs, formatNumber, roundTo } from '../../core/numbers.js';
import { TopologyError, validateTopology, type Topology } from '../../core/planner/topology.js';
import type { HostTiming } from '../../sim/planner/host-timing.js';
import { priceQuorum, QUORUM_PRESETS, type QuorumPriceRequest, quorumRequestProblems } from '../../sim/planner/quorum-pricing.js';
import { simulateLosses } from '../../sim/planner/quorum-run.js';
import { BadInput } from '../cli-errors.js';
import { durationText, parseDuration } from '../duration.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { yieldToHost } from '../host-yield.js';
import { REPO_ROOT } from '../repo-root.js';
import { type ChosenBenchProfile, chosenBenchProfile, DEFAULT_BENCH_PROFILE } from '../files/bench-profile.js';
import { InputFileError, MIB, readInputFile } from '../files/read-input.js';
import { runMeasurement } from '../planner-measure/measure-run.js';
import { ARBITER_WARMUP_MS } from '../planner-measure/quorum-measure.js';
import { measureTopology, renderDifferences, renderMeasurement } from '../planner-measure/quorum-report.js';
import { MAX_MEASURED_CLIENTS, measureProblem } from '../planner-measure/real-topology.js';
import { oneLine } from '../terminal-text.js';
import { fittedHostTimingOf, timingLines } from './quorum-timing.js';
import { textTable } from '../text-table.js';

interface QuorumOptions {
  topology: string;
  compare: string[];
  runs?: string;
  samples: string;
  json?: boolean;
  seed: string;
  measure?: boolean;
  clients?: string;
  warmup?: string;
  benchProfile?: string;
}

/** The longest `--warmup`: a run that needs longer is not measuring a steady arbiter. */
const MAX_WARMUP = { maxMs: 120_000, why: 'a serve is warm well within it (docs/planner.md)' };

const PRESET_DIR = join(REPO_ROOT, 'examples', 'topologies');
const PRESETS = QUORUM_PRESETS;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerQuorumCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('quorum')
    .description('Price a quorum topology (ADR-06/08): simulated acquisition latency p50/p99/p999 beside the analytic floor, throughput ceiling, and region or hall loss.')
    .requiredOption('--topology <NAME|FILE>', `a preset (${PRESETS.join(', ')}) or a topology JSON file`)
    .option('--compare <NAME|FILE>', 'another topology to price beside it (repeatable)', collect, [])
    .option('--runs <R>', 'simulated runs; run r puts the leader on member r mod N (default: one per member)')
    .option('--samples <S>', 'acquisitions measured per run', '300')
    .option('--json', 'print {topologies: [...]} as JSON')
    .option('--seed <S>', 'base seed', 'quorum')
    .option('--measure', 'also build each topology of real processes (etcd members on loopback, link proxies adding its one-way delays, a lockstep serve arbiter), run the priced workload and print measured grant p50/p99 beside the predicted (issue 32; takes a minute or more per topology)')
    .option('--clients <N>', `with --measure: this many clients instead of the topology's (1 to ${MAX_MEASURED_CLIENTS}); 1 prices latency without queueing behind other clients`)
    .option('--warmup <DURATION>', `with --measure: how long each run works unrecorded after restarting the arbiter (a freshly started lockstep serve runs cold code; the model prices a warm one); default ${durationText(ARBITER_WARMUP_MS)}, 0s for none`)
    .option('--bench-profile <FILE|none>', `time the priced world by this machine's lockstep bench --local 3 --profile FILE (WAL fsync, etcd CPU per request and apply, arbiter CPU per etcd call); default ${DEFAULT_BENCH_PROFILE} when it exists, else the simulator's defaults; none: the defaults`)
    .action(async (options: QuorumOptions) => {
      setExitCode(await runQuorum(options, io));
    });
}

export async function loadTopology(nameOrFile: string): Promise<Topology> {
  const file = (PRESETS as readonly string[]).includes(nameOrFile) ? join(PRESET_DIR, `${nameOrFile}.json`) : nameOrFile;
  let text: string;
  try {
    text = await readInputFile(file, { what: 'a topology JSON file (examples/topologies/)', maxBytes: MIB });
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    throw new TopologyError('--topology', `${JSON.stringify(nameOrFile)} is neither a preset nor a topology file (${error.reason})`, `use one of ${PRESETS.join(', ')} or a path to a topology JSON file`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TopologyError(file, `is not JSON (${(error as Error).message})`, 'fix the JSON syntax');
  }
  return validateTopology(value);
}

async function runQuorum(options: QuorumOptions, io: CliIo): Promise<number> {
  const request = { samplesPerRun: Number(options.samples), seed: options.seed, ...(options.runs === undefined ? {} : { runs: Number(options.runs) }) };
  const flags: Readonly<Record<string, string>> = { runs: `--runs ${JSON.stringify(options.runs)}`, samplesPerRun: `--samples ${JSON.stringify(options.samples)}` };
  const problem = quorumRequestProblems(request)[0];
  if (problem !== undefined) throw new BadInput(`${flags[problem.field] ?? problem.field} ${problem.message}`);
  const topologies: Topology[] = [];
  for (const name of [options.topology, ...options.compare]) {
    try {
      topologies.push(await loadTopology(name));
    } catch (error) {
      if (!(error instanceof TopologyError)) throw error;
      throw new BadInput(`${name}: ${error.message}`);
    }
  }
  const profile = await chosenBenchProfile(options.benchProfile);
  const hostOf = fittedHosts(profile);
  if (options.measure === true) return measureTopologies(topologies.map((t) => measurable(t, options.clients)), { ...request, hostOf }, warmupMsOf(options.warmup), options.json === true, io);
  if (options.clients !== undefined) throw new BadInput('--clients is for --measure only; add --measure, or give the client count in the topology file');
  if (options.warmup !== undefined) throw new BadInput('--warmup is for --measure only (the unrecorded start of each measured run); add --measure, or leave it out');
  const results = [];
  for (const topology of topologies) {
    const host = await hostOf(topology);
    results.push(await priceTopology(topology, { ...request, ...(host === undefined ? {} : { host }) }));
  }
  if (options.json === true) io.out(JSON.stringify({ topologies: results }));
  else if (results.length === 1) io.out(render(results[0] as Priced));
  else io.out(renderComparison(results));
  return ExitCode.ok;
}

/** `--warmup` in ms (ARBITER_WARMUP_MS without it), or BadInput naming the flag, the rule and the fix. */
function warmupMsOf(flag: string | undefined): number {
  if (flag === undefined) return ARBITER_WARMUP_MS;
  try {
    return parseDuration(flag, '--warmup', MAX_WARMUP);
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
}

/** The host timing of each topology's client count, fitted once per count (host-fit.ts prices the bench's shape a few times). */
function fittedHosts(profile: ChosenBenchProfile | undefined): (topology: Topology) => Promise<HostTiming | undefined> {
  const byClients = new Map<number, Promise<HostTiming>>();
  return (topology) => {
    if (profile === undefined) return Promise.resolve(undefined);
    const clients = topology.clients.count;
    const host = byClients.get(clients) ?? fittedHostTimingOf(profile, clients, yieldToHost);
    byClients.set(clients, host);
    return host;
  };
}

/** A topology as --measure builds it (its client count from --clients), or BadInput naming what real processes cannot do. */
function measurable(topology: Topology, clients: string | undefined): Topology {
  const count = clients === undefined ? topology.clients.count : Number(clients);
  if (!(Number.isInteger(count) && count >= 1 && count <= MAX_MEASURED_CLIENTS)) throw new BadInput(`--clients ${JSON.stringify(clients ?? String(count))} must be a whole number from 1 to ${MAX_MEASURED_CLIENTS}; measure fewer clients`);
  const problem = measureProblem({ ...topology, clients: { ...topology.clients, count } });
  if (problem !== undefined) throw new BadInput(`--measure ${topology.name}: ${problem}`);
  return { ...topology, clients: { ...topology.clients, count } };
}

/**
 * `--measure`: each topology measured on real processes (src/planner-measure), one after another, the
 * rig's cost per message probed during each measurement (hop-probe.ts), then priced with it and the host's timing.
 */
function measureTopologies(topologies: readonly Topology[], request: QuorumPriceRequest & { readonly hostOf: (topology: Topology) => Promise<HostTiming | undefined> }, warmupMs: number, json: boolean, io: CliIo): Promise<number> {
  return runMeasurement(io, 'quorum', async (context) => {
    const measured = [];
    for (const topology of topologies) {
      const host = await request.hostOf(topology);
      measured.push(await measureTopology(topology, { ...request, ...(host === undefined ? {} : { host }) }, context, warmupMs));
    }
    io.out(json ? JSON.stringify({ measurements: measured }) : [...measured.map(renderMeasurement), renderDifferences(measured).join('\n')].filter((text) => text !== '').join('\n\n'));
    return ExitCode.ok;
  });
}

/** What the figures assume, in words the output prints (docs/planner.md, "What the model assumes"). */
function assumptions(topology: Topology): { clientCount: number; clients: string; arbiterEndpoint: string; leader: string } {
  const region = (hall: string): string => topology.halls.find((h) => h.name === hall)?.region ?? '?';
  const home = topology.members[0]!;
  return {
    clientCount: topology.clients.count,
    clients: `${topology.clients.count} clients and the arbiter in hall ${topology.clients.hall} (${region(topology.clients.hall)})${topology.arbiter.hall === topology.clients.hall ? '' : `, the arbiter in hall ${topology.arbiter.hall} (${region(topology.arbiter.hall)})`}`,
    arbiterEndpoint: `the arbiter's etcd client on ${home.name} (hall ${home.hall}), its first endpoint, kept until an error (ADR-08: no hidden cross-region hop)`,
    leader: 'not pinned: etcd elects any member and has no leader affinity, so each member leads an equal share of the runs; the rows below show each placement (pinning one takes a MoveLeader after every election)',
  };
}

/** The shared procedure's prices (sim/planner/quorum-pricing.ts) in this command's JSON shape, and the losses it adds. */
async function priceTopology(topology: Topology, request: QuorumPriceRequest) {
  const priced = await priceQuorum(topology, request, yieldToHost);
  const losses = await simulateLosses(topology, { seed: `${request.seed}-${topology.name}`, yieldToHost, ...(request.host === undefined ? {} : { host: request.host }) });
  const worst = losses.reduce<(typeof losses)[number] | undefined>((w, l) => (w === undefined || !l.quorumSurvives || (w.quorumSurvives && (l.simulatedResumeMs ?? 0) > (w.simulatedResumeMs ?? 0)) ? l : w), undefined);
  return {
    name: priced.name,
    runs: priced.runs,
    samples: priced.simulated.samplesMs.length,
    leaders: priced.leaders,
    assumptions: assumptions(topology),
    p50Ms: priced.simulated.p50Ms,
    p99Ms: priced.simulated.p99Ms,
    p999Ms: priced.simulated.p999Ms,
    floorMs: priced.floorMs,
    quorumFloorMs: priced.quorumFloorMs,
    upperBoundMs: priced.upperBoundMs,
    loadedUpperBoundMs: priced.loadedUpperBoundMs,
    failoverUpperBoundMs: priced.failoverUpperBoundMs,
    byLeader: priced.byLeader.map((l) => ({
      leader: l.leader,
      region: l.region,
      runs: l.runs,
      endpoints: l.endpoints,
      p50Ms: l.simulated?.p50Ms ?? null,
      p99Ms: l.simulated?.p99Ms ?? null,
      medianMs: l.medianMs,
      p99BoundMs: l.p99BoundMs,
      loadedP99BoundMs: l.loadedP99BoundMs,
      failoverP99BoundMs: l.failoverP99BoundMs,
    })),
    throughputPerSecond: priced.throughputPerSecond,
    timing: priced.timing,
    regionLoss: {
      worst: worst?.lost ?? null,
      cases: losses.map((l) => ({
        lost: l.lost,
        members: l.members,
        quorumSurvives: l.quorumSurvives,
        newLeaderMsAnalytic: l.newLeaderMs,
        newLeaderMs: l.simulatedNewLeaderMs === null ? null : roundTo(l.simulatedNewLeaderMs, 0),
        grantsResumeMs: l.simulatedResumeMs === null ? null : roundTo(l.simulatedResumeMs, 0),
        grantsLost: l.grantsLost,
        failedAcquisitions: l.failedAcquisitions,
      })),
    },
  };
}

type Priced = Awaited<ReturnType<typeof priceTopology>>;

function render(r: Priced): string {
  return [
    `${oneLine(r.name)}: acquisition latency (simulated, ${r.runs} runs x ${r.samples / r.runs} acquisitions)`,
    `  assumes                 ${r.assumptions.clients};`,
    `                          ${r.assumptions.arbiterEndpoint};`,
    `                          leader ${r.assumptions.leader}`,
    ...timingLines(r.timing).map((line) => `                          ${line}`),
    `  p50 / p99 / p999        ${latencies(r)} ms  (simulated, every leader placement weighed equally)`,
    `  floor                   ${formatMs(r.floorMs, 2)}  (analytic: best leader, median links and disks; fastest majority alone ${formatMs(r.quorumFloorMs, 2)})`,
    `  upper bound             ${formatMs(r.upperBoundMs, 2)}  (analytic: worst leader, every part at p99, one acquisition in flight)`,
    `    under load            ${formatMs(r.loadedUpperBoundMs, 2)}  (analytic: as above, and every Ready on the path first waits for an fsync in progress; the ${r.assumptions.clientCount} simulated clients keep the disks busy)`,
    ...leaderLines(r),
    `  after a client failover ${formatMs(r.failoverUpperBoundMs, 2)}  (analytic p99 bound: the arbiter's etcd client moved to the worst member, e.g. after its own member failed)`,
    `  throughput ceiling      ${r.throughputPerSecond} grants/s  (analytic: the CPU model, ${cpuPerWrite(r)} ms per write, grant + release)`,
    ...lossLines(r),
  ].join('\n');
}

/** `--compare`: the figures of every topology side by side in one table, then what each one's leader placements and losses do. */
function renderComparison(results: readonly Priced[]): string {
  const row = (figure: string, cell: (r: Priced) => string, source: string): string[] => [figure, ...results.map(cell), source];
  const table = textTable(
    [
      ['figure', ...results.map((r) => oneLine(r.name)), 'source'],
      row('p50 / p99 / p999 ms', latencies, 'simulated, every leader placement weighed equally'),
      row('floor ms', (r) => formatNumber(r.floorMs, 2), 'analytic: best leader, median links and disks'),
      row('upper bound ms', (r) => formatNumber(r.upperBoundMs, 2), 'analytic: worst leader, every part at p99, one acquisition in flight'),
      row('  under load ms', (r) => formatNumber(r.loadedUpperBoundMs, 2), 'analytic: every Ready on the path first waits for an fsync in progress'),
      row('after a client failover ms', (r) => formatNumber(r.failoverUpperBoundMs, 2), "analytic p99 bound: the arbiter's etcd client on the worst member"),
      row('best leader p99 ms', (r) => bestLeader(r), 'simulated, by leader placement'),
      row('throughput grants/s', (r) => String(r.throughputPerSecond), 'analytic: the CPU model, request + apply ms per write'),
      row('worst loss', (r) => worstLoss(r), 'simulated, 1 run per place'),
      row('runs x acquisitions', (r) => `${r.runs} x ${r.samples / r.runs}`, 'simulated'),
    ],
    { rightAligned: (i) => i > 0 && i <= results.length },
  );
  const details = results.flatMap((r) => ['', `${oneLine(r.name)}: ${r.assumptions.clients}`, ...timingLines(r.timing).map((line) => `  ${line}`), ...leaderLines(r), ...lossLines(r)]);
  return [`quorum: ${results.map((r) => oneLine(r.name)).join(' beside ')}`, ...table, ...details].join('\n');
}

function cpuPerWrite(r: Priced): string {
  return formatNumber(r.timing.requestCostMs + r.timing.applyCostMs, 3);
}

function latencies(r: Priced): string {
  return [r.p50Ms, r.p99Ms, r.p999Ms].map((ms) => formatNumber(ms, 2)).join(' / ');
}

function bestLeader(r: Priced): string {
  const simulated = r.byLeader.filter((l) => l.p99Ms !== null);
  const best = simulated.reduce<(typeof simulated)[number] | undefined>((b, l) => (b === undefined || (l.p99Ms ?? Infinity) < (b.p99Ms ?? Infinity) ? l : b), undefined);
  return best === undefined ? '-' : `${formatNumber(best.p99Ms ?? Number.NaN, 2)} (${best.leader})`;
}

function worstLoss(r: Priced): string {
  const worst = r.regionLoss.cases.find((c) => c.lost === r.regionLoss.worst);
  if (worst === undefined) return '-';
  return worst.quorumSurvives ? `${worst.lost}: grants resume ${worst.grantsResumeMs === null ? 'never' : formatMs(worst.grantsResumeMs, 0)}` : `${worst.lost}: quorum lost`;
}

function leaderLines(r: Priced): string[] {
  return [
    '  by leader placement:',
    ...r.byLeader.map((l) => `    ${`${l.leader} (${l.region})`.padEnd(24)} p50 ${l.p50Ms === null ? '-' : formatNumber(l.p50Ms, 2)} / p99 ${l.p99Ms === null ? '-' : formatNumber(l.p99Ms, 2)} ms (simulated, ${l.runs} run${l.runs === 1 ? '' : 's'}); median ${formatNumber(l.medianMs, 2)} / p99 bound ${formatNumber(l.p99BoundMs, 2)} / under load ${formatNumber(l.loadedP99BoundMs, 2)} ms (analytic)`),
  ];
}

function lossLines(r: Priced): string[] {
  const lines = [
    '  loss (etcd members of the place crash at once, the leader among them; simulated, 1 run each; a write in flight to a lost',
    "        leader or through a lost member waits out etcd's 7 s request timeout, so a closed loop whose clients all wait resumes late):",
  ];
  for (const c of r.regionLoss.cases) {
    if (!c.quorumSurvives) {
      lines.push(`    ${c.lost.padEnd(22)} quorum lost: no grants until it returns (ADR-04 fails closed)`);
      continue;
    }
    const analytic = c.newLeaderMsAnalytic === null ? '' : ` (analytic ${formatNumber(c.newLeaderMsAnalytic[0], 0)}..${formatMs(c.newLeaderMsAnalytic[1], 0)})`;
    lines.push(`    ${c.lost.padEnd(22)} new leader ${c.newLeaderMs === null ? 'none' : formatMs(c.newLeaderMs, 0)}${analytic}, grants resume ${c.grantsResumeMs === null ? 'never' : formatMs(c.grantsResumeMs, 0)}, ~${c.grantsLost ?? '?'} grants lost, ${c.failedAcquisitions} acquisitions failed`);
  }
  return lines;
}
