// The scenario side of the worker (issue 7): list the scenarios, run one from a seed, replay a saved
// artifact. Everything in and out is plain JSON (bigints become decimal strings, as in a saved file), so
// it crosses postMessage unchanged and a run can be saved exactly as it was shown.
import { SCENARIOS, scenarioNamed } from '../../../scenarios/registry.js';
import { runScenario as runScenarioInWorld } from '../../../scenarios/runner.js';
import type { Fault } from '../../../scenarios/faults.js';
import { type ArtifactJson, artifactText, checkArtifact } from '../artifact-file.js';
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
  /** A fault schedule instead of the scenario's own (a replay). */
  readonly faults?: readonly unknown[];
}

export interface ReplayResult {
  readonly artifact: ArtifactJson;
  readonly savedTraceHash: string;
  readonly sameTraceHash: boolean;
}

export function listScenarios(): ScenarioInfo[] {
  return SCENARIOS.map((s) => ({ name: s.name, description: s.description, variants: s.variants.map((v) => ({ name: v.name, expect: v.expect, description: v.description })) }));
}

export async function runScenario(request: RunRequest, yieldToHost: () => Promise<void>, onProgress?: OnProgress): Promise<ArtifactJson> {
  const seed = request.seed.trim();
  if (seed === '') throw new RangeError('seed is empty; give any text, e.g. 1 (every random choice of the run derives from it)');
  const scenario = scenarioNamed(request.scenario);
  safeProgress(onProgress)({ label: `running ${scenario.name} / ${request.variant}, seed ${seed}` });
  // The run records its timeline for the timeline view (viz/timeline); the trace hash is the same either way.
  const artifact = await runScenarioInWorld(scenario, request.variant, seed, { yieldToHost, timeline: true, ...(request.faults === undefined ? {} : { faults: request.faults as readonly Fault[] }) });
  return JSON.parse(artifactText(artifact)) as ArtifactJson;
}

/** Runs the artifact's scenario, variant, seed and fault schedule again and compares trace hashes. */
export async function replayArtifact(saved: unknown, yieldToHost: () => Promise<void>, onProgress?: OnProgress): Promise<ReplayResult> {
  const artifact = checkArtifact(saved, 'replay');
  const again = await runScenario({ scenario: artifact.scenario, variant: artifact.variant, seed: artifact.seed, ...(artifact.faults === undefined ? {} : { faults: artifact.faults }) }, yieldToHost, onProgress);
  return { artifact: again, savedTraceHash: artifact.traceHash, sameTraceHash: again.traceHash === artifact.traceHash };
}
