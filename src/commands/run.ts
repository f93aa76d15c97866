// `lockstep list`, `lockstep run`, `lockstep replay`: the scenario suite (ARCHITECTURE.md, scenarios/).
// Exit 0 ok, 1 violation, 2 bad input. `run --all` exits 0 when every variant behaves as it declares.
// Every input is checked before anything runs (run-inputs.ts); every run ends by its horizon (scenarios/horizon.ts).
import type { Command } from 'commander';
import { formatNumber } from '../../core/numbers.js';
import { toJson } from '../../scenarios/history.js';
import { SCENARIOS } from '../../scenarios/registry.js';
import { MUTANTS } from '../../scenarios/mutants.js';
import { type RunArtifact, runScenario } from '../../scenarios/runner.js';
import { compareReplay, recordSentence, runSentence } from '../../scenarios/replay-comparison.js';
import { runCommand } from '../../scenarios/replay-command.js';
import { BadInput } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { writeReport } from '../report/write-report.js';
import { yieldToHost } from '../host-yield.js';
import { checkOutputs, chooseVariant, readFaultsFile, readSavedRun, saveArtifact, seedOf } from './run-inputs.js';

/** `lockstep replay`: the artifact's recorded verdict or checks are not what replaying it gives (issue 18). */
export const REPLAY_RECORD_DIFFERS = 3;

interface RunOptions {
  variant?: string;
  seed: string;
  out?: string;
  html?: string;
  json?: boolean;
  all?: boolean;
  faults?: string;
}

export function registerScenarioCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('list')
    .description('List the scenarios, their variants (and whether each should pass or show a violation).')
    .option('--json', 'print {scenarios: [{name, description, variants: [{name, expect, shows?, description}]}], mutants: [...]}; shows: the checks a violation variant fails at every seed')
    .action((options: { json?: boolean }) => {
      const scenarios = SCENARIOS.map((s) => ({ name: s.name, description: s.description, variants: s.variants.map((v) => ({ name: v.name, expect: v.expect, ...(v.expect === 'violation' ? { shows: v.shows } : {}), description: v.description })) }));
      if (options.json === true) io.out(JSON.stringify({ scenarios, mutants: MUTANTS.map((m) => ({ name: m.name, description: m.description })) }));
      else for (const s of scenarios) io.out(`${s.name}: ${s.description}\n${s.variants.map((v) => `  ${v.name.padEnd(32)} ${v.expect.padEnd(9)} ${v.description}`).join('\n')}`);
    });
  program
    .command('run')
    .description('Run a scenario variant from a seed and check it; --all runs every variant. Exit 0 ok, 1 violation (or, with --all, a variant not behaving as declared), 2 bad input.')
    .argument('[scenario]', 'scenario name (lockstep list)')
    .option('--variant <name>', 'variant (default: the scenario\'s first)')
    .option('--seed <n>', 'the seed every random choice derives from: a whole number from 0 to 2^53-1', '1')
    .option('--faults <file>', "run the variant with this fault schedule instead of its own: a JSON list of faults (scenarios/faults.ts), checked as the web runner checks it; the artifact records it")
    .option('--out <file>', 'write the run artifact (JSON) here')
    .option('--html <file>', 'write a self-contained HTML report of the run here: its timeline (a lane per process: holds, beliefs, keepalives, leaders, partitions, pauses, writes, fence rejections) and checks, the run embedded; opens offline from file://')
    .option('--all', 'run every scenario and variant')
    .option('--json', 'print the result as JSON on the last line')
    .action(async (name: string | undefined, options: RunOptions) => {
      setExitCode(options.all === true ? await runAll(name, options, io) : await runOne(name, options, io));
    });
  program
    .command('replay')
    .description(`Run a saved artifact again (same scenario, variant, seed and fault schedule, checked first), print the replay's own checks, and compare it with the artifact: its trace hash, and its recorded verdict and checks. Exit 0 reproduced (same trace hash, and the artifact's verdict and checks are the replay's), 1 the trace hash differs, ${REPLAY_RECORD_DIFFERS} the artifact's recorded verdict or checks differ from the replay's (an edited artifact: "this artifact says ok; replaying it gives VIOLATION: fence"), 2 bad input.`)
    .argument('<artifact>', 'a run artifact written by lockstep run --out or lockstep explore')
    .option('--out <file>', "write the replayed run's artifact here (its replay command names this file)")
    .option('--json', "print the replay's result as JSON on the last line, with savedTraceHash, sameTraceHash, agreement (same-trace|other-model|same-history|different), recordMatches, recordedVerdict and checkDifferences")
    .action(async (file: string, options: { json?: boolean; out?: string }) => {
      setExitCode(await replay(file, options, io));
    });
}

function summary(artifact: RunArtifact) {
  return { scenario: artifact.scenario, variant: artifact.variant, seed: artifact.seed, ok: artifact.ok, expect: artifact.expect, asDeclared: artifact.asDeclared, checks: artifact.checks.map((c) => ({ name: c.name, ok: c.ok, detail: c.detail })), metrics: artifact.metrics, traceHash: artifact.traceHash, replay: artifact.replay };
}

function printRun(artifact: RunArtifact, io: CliIo): void {
  io.out(`${artifact.scenario} / ${artifact.variant} (seed ${artifact.seed}, expect ${artifact.expect}): ${artifact.ok ? 'no violation' : 'VIOLATION'}${artifact.asDeclared ? '' : '  <-- not as declared'}`);
  for (const check of artifact.checks) io.out(`  ${check.ok ? 'ok  ' : 'FAIL'} ${check.name.padEnd(16)} ${check.detail}`);
  const metrics = Object.entries(artifact.metrics).map(([k, v]) => `${k}=${formatNumber(v)}`);
  if (metrics.length > 0) io.out(`  metrics: ${metrics.join(' ')}`);
  io.out(`  trace ${artifact.traceHash}; replay: ${artifact.replay}`);
}

async function runOne(name: string | undefined, options: RunOptions, io: CliIo): Promise<number> {
  if (name === undefined) throw new BadInput('name a scenario (lockstep list shows them) or use --all');
  const chosen = chooseVariant(name, options.variant);
  const seed = seedOf(options.seed, '--seed');
  await checkOutputs({ '--out': options.out, '--html': options.html });
  const faults = options.faults === undefined ? undefined : await readFaultsFile(options.faults, chosen, seed, (line) => io.err(`lockstep run: ${line}`));
  io.err(`lockstep run: running ${chosen.scenario.name} / ${chosen.variant.name}, seed ${seed}${faults === undefined ? '' : `, ${faults.length} faults from ${options.faults}`}...`);
  // The report draws the timeline, so its run captures the trace records the timeline needs (the hash is the same either way).
  const timeline = options.html !== undefined;
  const run = await runScenario(chosen.scenario, chosen.variant.name, seed, { yieldToHost, timeline, ...(faults === undefined ? {} : { faults }), ...(options.out === undefined ? {} : { artifactPath: options.out }) });
  // A schedule of one's own, not saved: the command that runs it again names its file.
  const artifact = faults !== undefined && options.out === undefined ? { ...run, replay: runCommand(chosen.scenario.name, chosen.variant === chosen.scenario.variants[0] ? undefined : chosen.variant.name, seed, options.faults) } : run;
  // The verdict first: should a write fail after the run, the run is not lost with it.
  if (options.json === true) io.out(toJson({ ...summary(artifact), ...(options.html === undefined ? {} : { html: options.html }) }));
  else printRun(artifact, io);
  if (options.out !== undefined) await saveArtifact(options.out, artifact);
  if (options.html !== undefined) {
    await saveReport(options.html, artifact, io);
    if (options.json !== true) io.out(`  report: ${options.html} (open it in a browser; it needs no network)`);
  }
  return artifact.ok ? ExitCode.ok : ExitCode.failed;
}

async function saveReport(path: string, artifact: RunArtifact, io: CliIo): Promise<void> {
  await writeReport(path, {
    title: `lockstep run ${artifact.scenario} / ${artifact.variant} (seed ${artifact.seed})`,
    artifactJson: toJson(artifact),
    progress: (line) => io.err(`lockstep run: ${line}`),
  });
}

async function runAll(name: string | undefined, options: RunOptions, io: CliIo): Promise<number> {
  if (name !== undefined) throw new BadInput(`--all runs every scenario; name one (lockstep run ${name}) or use --all, not both`);
  if (options.html !== undefined) throw new BadInput('--html writes the report of one run; name a scenario (and --variant) instead of --all');
  for (const flag of ['variant', 'faults', 'out'] as const) {
    if (options[flag] !== undefined) throw new BadInput(`--${flag} is for one run; name a scenario instead of --all`);
  }
  const seed = seedOf(options.seed, '--seed');
  const results: RunArtifact[] = [];
  const total = SCENARIOS.reduce((n, s) => n + s.variants.length, 0);
  for (const scenario of SCENARIOS) {
    for (const variant of scenario.variants) {
      io.err(`run --all: ${results.length + 1}/${total} ${scenario.name} / ${variant.name}`);
      results.push(await runScenario(scenario, variant.name, seed, { yieldToHost }));
    }
  }
  const allAsDeclared = results.every((r) => r.asDeclared);
  if (options.json === true) {
    io.out(toJson({ seed, ok: allAsDeclared, runs: results.map(summary) }));
  } else {
    io.out(`${'scenario'.padEnd(14)} ${'variant'.padEnd(32)} ${'expect'.padEnd(9)} ${'result'.padEnd(9)} ${'as declared'.padEnd(11)} failed checks`);
    for (const r of results) {
      const failed = r.checks.filter((c) => !c.ok).map((c) => c.name).join(', ');
      io.out(`${r.scenario.padEnd(14)} ${r.variant.padEnd(32)} ${r.expect.padEnd(9)} ${(r.ok ? 'pass' : 'violation').padEnd(9)} ${(r.asDeclared ? 'yes' : 'NO').padEnd(11)} ${failed}`);
    }
    io.out(allAsDeclared ? `run --all: every variant behaved as it declares (seed ${seed})` : 'run --all: some variants did NOT behave as declared');
  }
  return allAsDeclared ? ExitCode.ok : ExitCode.failed;
}

async function replay(file: string, options: { json?: boolean; out?: string }, io: CliIo): Promise<number> {
  await checkOutputs({ '--out': options.out });
  const { artifact: saved, chosen, seed, faults } = await readSavedRun(file, (line) => io.err(`lockstep replay: ${line}`));
  io.err(`lockstep replay: running ${chosen.scenario.name} / ${chosen.variant.name}, seed ${seed} again...`);
  const again = await runScenario(chosen.scenario, chosen.variant.name, seed, { yieldToHost, ...(faults === undefined ? {} : { faults }), artifactPath: options.out ?? file });
  // One comparison for the CLI and the web workbench (scenarios/replay-comparison.ts): the checks shown
  // are the replay's; the artifact's own are only compared with them.
  const comparison = compareReplay(saved, again);
  if (options.json === true) {
    io.out(toJson({ ...summary(again), savedTraceHash: comparison.recordedTraceHash, sameTraceHash: comparison.run === 'same-trace', sameVerdict: saved.ok === again.ok, agreement: comparison.run, recordMatches: comparison.recordMatches, recordedVerdict: comparison.recordedVerdict, checkDifferences: comparison.checkDifferences }));
  } else {
    printRun(again, io);
    io.out(`replay: ${runSentence(comparison)}`);
    io.out(`replay: ${comparison.recordMatches ? '' : 'RECORD DIFFERS: '}${recordSentence(comparison)}${comparison.recordMatches ? '' : "; the checks above are the replay's"}`);
  }
  if (options.out !== undefined) await saveArtifact(options.out, again);
  if (!comparison.recordMatches) return REPLAY_RECORD_DIFFERS;
  return comparison.run === 'same-trace' ? ExitCode.ok : ExitCode.failed;
}
