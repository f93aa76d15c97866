// Runs one scenario variant from a seed and turns the outcome into a run artifact (ARCHITECTURE.md):
// scenario, variant, seed, parameters, fault schedule, history, checks, metrics, trace hash, and the
// exact command that replays it. The artifact is plain JSON (bigints as decimal strings).
import { type CheckResult, checkRun } from '../core/checkers/index.js';
import { SIM_MODEL_VERSION } from '../sim/model-version.js';
import type { TraceOptions } from '../sim/trace/trace.js';
import type { Fault } from './faults.js';
import { DEFAULT_HORIZON_MS, HorizonReached } from './horizon.js';
import { replayFileCommand, runCommand } from './replay-command.js';
import { crashedRun } from './run-crashed.js';
import { type Expectation, type Scenario, type ScenarioOutcome, variantOf } from './scenario.js';
import { type RunTimeline, TimelineCapture } from './timeline-capture.js';

export const ARTIFACT_FORMAT = 'lockstep.run/1';

export interface ArtifactCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly violations: readonly unknown[];
}

export interface RunArtifact {
  readonly format: typeof ARTIFACT_FORMAT;
  readonly scenario: string;
  readonly variant: string;
  readonly expect: Expectation;
  readonly seed: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly faults: readonly Fault[];
  /** What each fault resolved to when it fired (roles such as @leader become member names). */
  readonly appliedFaults: readonly string[];
  readonly history: unknown;
  readonly checks: readonly ArtifactCheck[];
  /** No check found a violation. */
  readonly ok: boolean;
  /** The variant did what it declares: passed, or showed its violation through every check it names (Variant `shows`). */
  readonly asDeclared: boolean;
  readonly metrics: Readonly<Record<string, number>>;
  readonly traceHash: string;
  /** The simulator model that ran it (sim/model-version.ts): a replay by another model is another run. */
  readonly simModel: number;
  readonly simulatedMs: number;
  readonly replay: string;
  /** The trace records the run timeline draws (viz/timeline), when the run was asked to capture them. */
  readonly timeline?: RunTimeline;
}

export interface RunOptions {
  readonly yieldToHost: () => Promise<void>;
  readonly faults?: readonly Fault[];
  /** Where the artifact will be saved, for the replay command. */
  readonly artifactPath?: string;
  /** Capture the timeline's trace records into the artifact (true: up to the default bound). The trace hash is the same either way. */
  readonly timeline?: boolean | { readonly maxRecords: number };
  /** Simulated ms after the workload starts by which the run ends (horizon.ts); default DEFAULT_HORIZON_MS. */
  readonly horizonMs?: number;
  /**
   * Hash the trace (default true). False gives an UnhashedRun, for a run whose hash nobody reads (the
   * explorer's runs that pass, issue 16: hashing is about 30% of their CPU); the trace's listeners (the
   * timeline, a scenario's own subscribers) still get every record. A run that becomes an artifact is
   * run again with hashing: the same seed and schedule replay the same run.
   */
  readonly hashTrace?: boolean;
}

/** A run's outcome without its trace hash: what a run with `hashTrace: false` gives; not an artifact to save or replay. */
export type UnhashedRun = Omit<RunArtifact, 'traceHash'>;

/** The check a run that did not finish by its horizon fails (the scenario's checks of a finished run are not available). */
export const HORIZON_CHECK = 'horizon';

export function runScenario(scenario: Scenario, variantName: string | undefined, seed: string, options: RunOptions & { readonly hashTrace: false }): Promise<UnhashedRun>;
export function runScenario(scenario: Scenario, variantName: string | undefined, seed: string, options: RunOptions & { readonly hashTrace?: true }): Promise<RunArtifact>;
export function runScenario(scenario: Scenario, variantName: string | undefined, seed: string, options: RunOptions): Promise<RunArtifact | UnhashedRun>;
export async function runScenario(scenario: Scenario, variantName: string | undefined, seed: string, options: RunOptions): Promise<RunArtifact | UnhashedRun> {
  const variant = variantOf(scenario, variantName);
  const capture = options.timeline === undefined || options.timeline === false ? undefined : new TimelineCapture(options.timeline === true ? undefined : options.timeline.maxRecords);
  const horizonMs = options.horizonMs ?? DEFAULT_HORIZON_MS;
  const hashTrace = options.hashTrace !== false;
  const trace: TraceOptions | undefined = capture === undefined && hashTrace ? undefined : { ...(capture === undefined ? {} : { listener: capture.listener }), hash: hashTrace };
  let outcome: ScenarioOutcome;
  let unfinished: HorizonReached | undefined;
  try {
    outcome = await scenario.run({
      seed,
      variant,
      yieldToHost: options.yieldToHost,
      horizonMs,
      ...(options.faults === undefined ? {} : { faults: options.faults }),
      ...(trace === undefined ? {} : { trace }),
    });
  } catch (error) {
    if (!(error instanceof HorizonReached)) throw crashedRun(error, scenario.name, variant.name, seed, runCommand(scenario.name, variant === scenario.variants[0] ? undefined : variant.name, seed, options.faults === undefined ? undefined : '<its fault schedule>'));
    // What happened up to the horizon is still checked: a schedule that stops the workload must not hide a violation.
    unfinished = error;
    outcome = { ...error.partial, metrics: {} };
  }
  const checks: ArtifactCheck[] = checkRun(outcome.history, outcome.checkOptions).map((c: CheckResult) => ({ name: c.name, ok: c.ok, detail: c.detail, violations: c.violations }));
  checks.push(...(outcome.checks ?? []));
  if (unfinished !== undefined) checks.unshift(horizonCheck(unfinished, outcome));
  // Every cluster the world ran (shards, and a restored cluster's predecessor), each named when there are several.
  const clusterViolations = outcome.world.clusters.flatMap((c) => c.cluster.violations.map((v) => (outcome.world.clusters.length === 1 ? v : `${c.name}: ${v}`)));
  checks.push({
    name: 'raft-safety',
    ok: clusterViolations.length === 0,
    detail: clusterViolations.length === 0 ? 'one leader per term; every member applied the same entry at every index' : `${clusterViolations.length} violations`,
    violations: clusterViolations,
  });
  const ok = checks.every((c) => c.ok);
  return {
    format: ARTIFACT_FORMAT,
    scenario: scenario.name,
    variant: variant.name,
    expect: variant.expect,
    seed,
    parameters: outcome.parameters,
    faults: outcome.faults,
    appliedFaults: outcome.appliedFaults,
    history: outcome.history,
    checks,
    ok,
    asDeclared: variant.expect === 'pass' ? ok : variant.shows.every((name) => checks.some((c) => c.name === name && !c.ok)),
    metrics: outcome.metrics,
    ...(hashTrace ? { traceHash: outcome.world.kernel.trace.hash() } : {}),
    simModel: SIM_MODEL_VERSION,
    simulatedMs: outcome.world.kernel.now(),
    replay: options.artifactPath !== undefined ? replayFileCommand(options.artifactPath) : runCommand(scenario.name, variant === scenario.variants[0] ? undefined : variant.name, seed),
    ...(capture === undefined ? {} : { timeline: capture.result(outcome.world) }),
  };
}

/** The failed check of a run that hit its horizon: what still waited, and which processes were not running then. */
function horizonCheck(reached: HorizonReached, outcome: ScenarioOutcome): ArtifactCheck {
  const { world } = outcome;
  const processes = [...world.clients.map((c) => c.process), ...world.arbiters.map((a) => a.process), ...world.clusters.flatMap((c) => c.cluster.members.map((m) => m.process))];
  const stopped = processes.filter((p) => p.state !== 'running').map((p) => `${p.name} ${p.state}`);
  return {
    name: HORIZON_CHECK,
    ok: false,
    detail: `did not finish: ${reached.message}${stopped.length === 0 ? '' : `; not running then: ${stopped.join(', ')}`}. A schedule that never lets the workload finish (a pause with no resume, a crash with no restart) ends here; resume or restart what it stops`,
    violations: [reached.message],
  };
}
