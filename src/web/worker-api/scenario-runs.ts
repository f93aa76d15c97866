// The scenario side of the worker (issue 7): list the scenarios, run one from a seed, replay a saved
// artifact. Everything in and out is plain JSON (bigints become decimal strings, as in a saved file), so
// it crosses postMessage unchanged and a run can be saved exactly as it was shown.
import { SCENARIOS, scenarioNamed } from '../../../scenarios/registry.js';
import { type ReplayComparison, compareReplay } from '../../../scenarios/replay-comparison.js';
import { runScenario as runScenarioInWorld } from '../../../scenarios/runner.js';
import { type ArtifactJson, artifactFileName, artifactText, checkArtifact } from '../artifact-file.js';
import type { KnownProcess } from '../../../scenarios/fault-schedule.js';
import { checkSeed } from '../../../scenarios/seed.js';
import { checkGivenSchedule, variantSchedule } from '../../../scenarios/variant-schedule.js';
import { type OnProgress, safeProgress } from './progress.js';

export interface VariantInfo {
  readonly name: string;
  readonly expect: 'pass' | 'violation';
  readonly description: string;
}

export interface ScenarioInfo {
  readonly name: string;
  readonly description: string;
  readonly variants: readonly VariantInfo[];
}

export interface RunRequest {
  readonly scenario: string;
  readonly variant: string;
  readonly seed: string;
  /** A fault schedule instead of the scenario's own (an edited one, or a replay's). */
  readonly faults?: readonly unknown[];
}

export type ScheduleRequest = Omit<RunRequest, 'faults'>;

/** A variant's own fault schedule for a seed, and the processes its run has (what a schedule may target). */
export interface DefaultSchedule {
  readonly faults: readonly unknown[];
  readonly processes: readonly KnownProcess[];
}

export interface ReplayResult {
  /** The replay, whole: its checks, timeline and command are its own, none copied from the saved artifact. */
  readonly artifact: ArtifactJson;
  /** The replay against what the saved artifact records (the comparison `lockstep replay` makes too). */
  readonly comparison: ReplayComparison;
}

export function listScenarios(): ScenarioInfo[] {
  return SCENARIOS.map((s) => ({ name: s.name, description: s.description, variants: s.variants.map((v) => ({ name: v.name, expect: v.expect, description: v.description })) }));
}

/** The schedule a variant uses when given none, and what a schedule given instead may target (one run of the variant). */
export async function defaultSchedule(request: ScheduleRequest, yieldToHost: () => Promise<void>): Promise<DefaultSchedule> {
  const own = await variantSchedule(scenarioNamed(request.scenario), request.variant, checkSeed(request.seed), yieldToHost);
  return { faults: own.faults, processes: own.context.processes };
}

/** A run made now: it always names the simulator model that made it (issue 32), unlike an old saved one. */
export type FreshArtifact = ArtifactJson & { readonly simModel: number };

export async function runScenario(request: RunRequest, yieldToHost: () => Promise<void>, onProgress?: OnProgress): Promise<FreshArtifact> {
  const seed = checkSeed(request.seed);
  const scenario = scenarioNamed(request.scenario);
  const variant = `${scenario.name} / ${request.variant}`;
  // Checked here too: a schedule from a loaded file reaches the simulator without the page's editor.
  const faults = request.faults === undefined ? undefined : await checkGivenSchedule(request.faults, scenario, request.variant, seed, yieldToHost);
  safeProgress(onProgress)({ label: `running ${variant}, seed ${seed}${faults === undefined ? '' : `, ${faults.length} faults given`}` });
  // `lockstep run NAME --seed S` reruns the variant's own schedule; a given one lives in the artifact, so
  // its replay command names the file Save writes.
  const artifactPath = faults === undefined ? undefined : artifactFileName({ scenario: scenario.name, variant: request.variant, seed });
  // The run records its timeline for the timeline view (viz/timeline); the trace hash is the same either way.
  const artifact = await runScenarioInWorld(scenario, request.variant, seed, { yieldToHost, timeline: true, ...(faults === undefined ? {} : { faults }), ...(artifactPath === undefined ? {} : { artifactPath }) });
  return JSON.parse(artifactText(artifact)) as FreshArtifact;
}

/** Runs the artifact's scenario, variant, seed and fault schedule again, and compares the replay with the artifact's trace hash, verdict and checks. */
export async function replayArtifact(saved: unknown, yieldToHost: () => Promise<void>, onProgress?: OnProgress): Promise<ReplayResult> {
  const artifact = checkArtifact(saved, 'replay');
  const again = await runScenario({ scenario: artifact.scenario, variant: artifact.variant, seed: artifact.seed, ...(artifact.faults === undefined ? {} : { faults: artifact.faults }) }, yieldToHost, onProgress);
  return { artifact: again, comparison: compareReplay(artifact, again) };
}
