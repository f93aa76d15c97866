// Runs one scenario variant from a seed and turns the outcome into a run artifact (ARCHITECTURE.md):
// scenario, variant, seed, parameters, fault schedule, history, checks, metrics, trace hash, and the
// exact command that replays it. The artifact is plain JSON (bigints as decimal strings).
import { type CheckResult, checkRun } from '../core/checkers/index.js';
import type { Fault } from './faults.js';
import { replayFileCommand, runCommand } from './replay-command.js';
import { type Expectation, type Scenario, variantOf } from './scenario.js';
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
}

export async function runScenario(scenario: Scenario, variantName: string | undefined, seed: string, options: RunOptions): Promise<RunArtifact> {
  const variant = variantOf(scenario, variantName);
  const capture = options.timeline === undefined || options.timeline === false ? undefined : new TimelineCapture(options.timeline === true ? undefined : options.timeline.maxRecords);
  const outcome = await scenario.run({
    seed,
    variant,
    yieldToHost: options.yieldToHost,
    ...(options.faults === undefined ? {} : { faults: options.faults }),
    ...(capture === undefined ? {} : { trace: { listener: capture.listener } }),
  });
  const checks: ArtifactCheck[] = checkRun(outcome.history, outcome.checkOptions).map((c: CheckResult) => ({ name: c.name, ok: c.ok, detail: c.detail, violations: c.violations }));
  checks.push(...(outcome.checks ?? []));
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
    traceHash: outcome.world.kernel.trace.hash(),
    simulatedMs: outcome.world.kernel.now(),
    replay: options.artifactPath !== undefined ? replayFileCommand(options.artifactPath) : runCommand(scenario.name, variant === scenario.variants[0] ? undefined : variant.name, seed),
    ...(capture === undefined ? {} : { timeline: capture.result(outcome.world) }),
  };
}
