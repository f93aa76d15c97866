// `lockstep explore [--scenario S] [--runs N] [--seed N] [--workers K] [--shard i/n] [--mutant M] [--json]`:
// swarm testing (scenarios/explore.ts). Each run draws its fault mix, workload and schedule from its seed
// (under --mutant, the workload parameters a mutant's demonstration pins stay pinned: scenarios/mutants.ts);
// runs spread over worker threads; the first failure (in seed order) is shrunk by fast-check to a minimal
// schedule, saved as a run artifact, and printed with the command that replays it. `--shard i/n` runs every
// n-th seed from the i-th, so n machines (a Kubernetes Indexed Job) cover the same seeds as one; each writes
// its summary with `--summary FILE`, and `lockstep explore merge` combines them (src/commands/explore-merge.ts).
// Exit 0: no run failed; 1: a run failed a check (with --mutant: the explorer caught the mutant); 2: bad input.
import { formatSeconds } from '../../core/numbers.js';
import { mkdir } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { DEFAULT_SHRINK_BUDGET, type RunVerdict, type Shard, type Shrunk, parseShard, shardRuns, shrinkFailure } from '../../scenarios/explore.js';
import { toJson } from '../../scenarios/history.js';
import { MUTANTS, mutantNamed } from '../../scenarios/mutants.js';
import type { RunArtifact } from '../../scenarios/runner.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { BadInput, OperationError } from '../cli-errors.js';
import { writeFileAtomically } from '../files/atomic-write.js';
import { outputDirectoryProblem, outputFileProblem } from '../files/output-path.js';
import { type ExploreSummary, SUMMARY_FORMAT } from '../explore/summary.js';
import { registerExploreMerge } from './explore-merge.js';
import { type PoolResult, runPool } from '../explore/pool.js';
import { type ProfileSpec, profileOf, profileSpec, watchdog } from '../explore/profile.js';
import { yieldToHost } from '../host-yield.js';
import { Progress, type ProgressSink } from '../explore/progress.js';

export interface ExploreOptions {
  scenario: string;
  variant?: string;
  mutant?: string;
  runs: string;
  seed: string;
  workers?: string;
  shard?: string;
  outDir: string;
  shrinkBudget: string;
  keepGoing?: boolean;
  summary?: string;
  json?: boolean;
}

const MAX_RUNS = 10_000_000;
const MAX_WORKERS = 256;

export function registerExploreCommand(program: Command, io: CliIo, setExitCode: (code: number) => void, progress: ProgressSink | undefined = process.stderr): void {
  const command = program
    .command('explore')
    .description('Swarm testing: runs a scenario from consecutive seeds, each drawing its own fault mix and schedule; shrinks the first failure and saves it for `lockstep replay`. Exit 0: nothing failed; 1: a run failed a check; 2: bad input.')
    .option('--scenario <name>', 'the scenario to explore (the swarm draws schedules; others have theirs perturbed)', 'swarm')
    .option('--variant <name>', "the scenario's variant (default its first)")
    .option('--mutant <name>', `run a deliberately broken core on the swarm (${MUTANTS.map((m) => m.name).join(', ')})`)
    .option('--runs <n>', 'how many seeds (with --shard: in all shards together)', '100')
    .option('--seed <n>', 'the first seed; run k uses seed + k', '1')
    .option('--workers <k>', 'worker threads (default: the CPUs available; 1 runs inline)')
    .option('--shard <i/n>', 'run only every n-th seed, starting at the i-th (0 <= i < n)')
    .option('--out-dir <dir>', 'where failing runs are saved as artifacts', join('.lockstep-tmp', 'explore'))
    .option('--shrink-budget <n>', 'most runs spent shrinking the first failure', String(DEFAULT_SHRINK_BUDGET))
    .option('--keep-going', 'run every seed, not stopping at the first failure (only the first is shrunk)')
    .option('--summary <file>', `also write the summary (the --json line) to FILE, for lockstep explore merge (${SUMMARY_FORMAT})`)
    .option('--json', 'print {runs, failures: [{seed, scenario, check, artifact, replay}], runsToFirstFailure} on the last line')
    .action(async (options: ExploreOptions) => {
      setExitCode(await explore(options, io, progress));
    });
  registerExploreMerge(command, io, setExitCode);
}

interface Plan {
  readonly spec: ProfileSpec;
  readonly runs: readonly number[];
  readonly totalRuns: number;
  readonly baseSeed: number;
  readonly workers: number;
  readonly shard: Shard;
  readonly shrinkBudget: number;
}

interface FailureReport {
  readonly seed: string;
  readonly scenario: string;
  readonly variant: string;
  readonly check: string;
  readonly detail: string | undefined;
  readonly artifact: string;
  readonly replay: string;
  readonly shrunk?: { readonly fromSize: number; readonly toSize: number; readonly runs: number; readonly complete: boolean };
}

export async function explore(options: ExploreOptions, io: CliIo, progressSink: ProgressSink | undefined): Promise<number> {
  let plan: Plan;
  try {
    plan = await planOf(options);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw new BadInput(error.message);
  }
  const startedMs = performance.now();
  const progress = new Progress(progressSink, plan.runs.length, startedMs, () => performance.now());
  let failuresSeen = 0;
  const pool = await runPool({
    spec: plan.spec,
    baseSeed: plan.baseSeed,
    runs: plan.runs,
    workers: plan.workers,
    stopAtFirstFailure: options.keepGoing !== true,
    onVerdict: (verdict, done) => {
      if (!verdict.ok) failuresSeen += 1;
      progress.update(done, failuresSeen);
    },
  });
  progress.end();
  const reports = await reportFailures(plan, pool, options.outDir, io, options.json === true);
  const wallMs = Math.round(performance.now() - startedMs);
  const summary: ExploreSummary = {
    format: SUMMARY_FORMAT,
    runs: pool.verdicts.length,
    runsPlanned: plan.runs.length,
    failures: reports.map((r) => ({ seed: r.seed, scenario: r.scenario, check: r.check, artifact: r.artifact, replay: r.replay })),
    runsToFirstFailure: pool.runsToFirstFailure ?? null,
    scenario: plan.spec.scenario,
    variant: plan.spec.variant,
    mutant: mutantNamed(plan.spec.variant) === undefined ? null : plan.spec.variant,
    seeds: { first: plan.baseSeed, runs: plan.totalRuns, shard: `${plan.shard.index}/${plan.shard.count}` },
    workers: plan.workers,
    wallMs,
  };
  if (options.summary !== undefined) await writeFileAtomically(options.summary, `${JSON.stringify(summary, null, 2)}\n`);
  if (options.json === true) io.out(JSON.stringify(summary));
  else {
    const what = summary.mutant === null ? `${plan.spec.scenario} / ${plan.spec.variant}` : `${plan.spec.scenario} with mutant ${summary.mutant}`;
    const outcome = reports.length === 0 ? 'no failure' : `first failure after ${pool.runsToFirstFailure} runs`;
    io.out(`explore ${what}: ${summary.runs} runs (seeds from ${plan.baseSeed}, shard ${summary.seeds.shard}, ${plan.workers} workers) in ${formatSeconds(wallMs, 1)}: ${outcome}`);
  }
  return reports.length === 0 ? ExitCode.ok : ExitCode.failed;
}

async function planOf(options: ExploreOptions): Promise<Plan> {
  const totalRuns = whole(options.runs, '--runs', 1, MAX_RUNS);
  const baseSeed = whole(options.seed, '--seed', 0, Number.MAX_SAFE_INTEGER - totalRuns);
  const workers = options.workers === undefined ? Math.max(1, availableParallelism()) : whole(options.workers, '--workers', 1, MAX_WORKERS);
  const shard = options.shard === undefined ? { index: 0, count: 1 } : parseShard(options.shard);
  const shrinkBudget = whole(options.shrinkBudget, '--shrink-budget', 1, 100_000);
  if (options.mutant !== undefined) {
    if (mutantNamed(options.mutant) === undefined) throw new RangeError(`no mutant ${JSON.stringify(options.mutant)}; the mutants: ${MUTANTS.map((m) => m.name).join(', ')} (lockstep list)`);
    if (options.scenario !== 'swarm') throw new RangeError(`--mutant runs on the swarm scenario, not ${options.scenario}`);
    if (options.variant !== undefined) throw new RangeError('--mutant chooses the variant; leave out --variant');
  }
  // Failures are saved after thousands of runs: a directory that cannot take them is refused before the first.
  const outDirProblem = await outputDirectoryProblem(options.outDir);
  if (outDirProblem !== undefined) throw new RangeError(`--out-dir ${options.outDir}: ${outDirProblem}`);
  const summaryProblem = options.summary === undefined ? undefined : await outputFileProblem(options.summary);
  if (summaryProblem !== undefined) throw new RangeError(`--summary ${options.summary}: ${summaryProblem}`);
  const spec = await profileSpec(options.scenario, options.mutant ?? options.variant);
  return { spec, runs: shardRuns(totalRuns, shard), totalRuns, baseSeed, workers, shard, shrinkBudget };
}

function whole(text: string, flag: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`${flag} ${JSON.stringify(text)} must be a whole number from ${min} to ${max}`);
  return value;
}

/** Shrinks and saves the first failure; saves the others as they were. */
async function reportFailures(plan: Plan, pool: PoolResult, outDir: string, io: CliIo, json: boolean): Promise<FailureReport[]> {
  const reports: FailureReport[] = [];
  for (const [i, failure] of pool.failures.entries()) {
    const { verdict } = failure;
    const base = join(outDir, `${plan.spec.scenario}-${plan.spec.variant}-seed${verdict.seed}`);
    await mkdir(outDir, { recursive: true }).catch((error: unknown) => {
      throw new OperationError('create the directory', outDir, error);
    });
    if (failure.artifactJson !== undefined) await save(`${base}-original.json`, withReplay(JSON.parse(failure.artifactJson) as RunArtifact, `${base}-original.json`));
    if (i > 0) {
      reports.push(reportOf(plan, verdict, failure.artifactJson === undefined ? crashNote(plan, verdict) : `${base}-original.json`));
      continue;
    }
    if (!json) io.out(`run ${verdict.run} (seed ${verdict.seed}) failed ${verdict.check}: ${verdict.detail ?? ''}\nshrinking its schedule of ${verdict.scheduleSize} (at most ${plan.shrinkBudget} runs)...`);
    const shrunk = await shrinkFailure(profileOf(plan.spec), plan.spec.variant, verdict.seed, verdict.check ?? 'crash', yieldToHost, plan.shrinkBudget, watchdog);
    const path = shrunk.artifact === undefined ? await saveCrash(`${base}-shrunk-crash.json`, plan, verdict, shrunk) : `${base}.json`;
    if (shrunk.artifact !== undefined) await save(path, withReplay(shrunk.artifact, path));
    const profile = profileOf(plan.spec);
    const report: FailureReport = {
      ...reportOf(plan, { ...verdict, ...(shrunk.detail === undefined ? {} : { detail: shrunk.detail }) }, path),
      shrunk: { fromSize: profile.size(shrunk.original), toSize: profile.size(shrunk.shrunk), runs: shrunk.runs, complete: shrunk.complete },
    };
    reports.push(report);
    if (!json) printShrunk(io, report, profile.faults(shrunk.shrunk).map((f) => JSON.stringify(f)));
  }
  return reports;
}

function reportOf(plan: Plan, verdict: RunVerdict, artifact: string): FailureReport {
  return {
    seed: verdict.seed,
    scenario: plan.spec.scenario,
    variant: plan.spec.variant,
    check: verdict.check ?? 'crash',
    detail: verdict.detail,
    artifact,
    replay: artifact.endsWith('.json') && !artifact.endsWith('crash.json') ? `lockstep replay ${artifact}` : crashNote(plan, verdict),
  };
}

/** A run that threw has no artifact: the seed and schedule are the reproduction. */
function crashNote(plan: Plan, verdict: RunVerdict): string {
  const variant = mutantNamed(plan.spec.variant) !== undefined ? ` --mutant ${plan.spec.variant}` : ` --variant ${plan.spec.variant}`;
  return `lockstep explore --scenario ${plan.spec.scenario}${variant} --seed ${verdict.seed} --runs 1 --workers 1`;
}

function printShrunk(io: CliIo, report: FailureReport, faults: readonly string[]): void {
  const shrunk = report.shrunk;
  io.out(`shrunk from ${shrunk?.fromSize} to ${shrunk?.toSize} in ${shrunk?.runs} runs${shrunk?.complete === false ? ' (budget spent: maybe not minimal)' : ''}; still fails ${report.check}: ${report.detail ?? ''}`);
  io.out(faults.length === 0 ? '  (no faults: the workload alone fails)' : faults.map((f) => `  ${f}`).join('\n'));
  io.out(`saved ${report.artifact}\nreplay: ${report.replay}`);
}

function withReplay(artifact: RunArtifact, path: string): RunArtifact {
  return { ...artifact, replay: `lockstep replay ${path}` };
}

async function save(path: string, value: unknown): Promise<void> {
  await writeFileAtomically(path, `${toJson(value, 2)}\n`);
}

async function saveCrash(path: string, plan: Plan, verdict: RunVerdict, shrunk: Shrunk<unknown>): Promise<string> {
  await save(path, { scenario: plan.spec.scenario, variant: plan.spec.variant, seed: verdict.seed, check: 'crash', error: shrunk.detail ?? verdict.detail, faults: profileOf(plan.spec).faults(shrunk.shrunk) });
  return path;
}
