// The worker's API (issue 7), plain data in and out, as comlink exposes it (src/web/worker.ts). Built
// over a host-yield port so the same object runs in the worker (a MessageChannel) and in node tests.
import { type ArtifactJson } from './artifact-file.js';
import type { OnProgress } from './worker-api/progress.js';
import { type QuorumRequest, quorumPricing, type TopologyPricing } from './worker-api/quorum-pricing.js';
import { type DefaultSchedule, defaultSchedule, listScenarios, replayArtifact, type ReplayResult, type RunRequest, runScenario, type ScenarioInfo, type ScheduleRequest } from './worker-api/scenario-runs.js';
import { TOPOLOGY_PRESETS } from './worker-api/topology-presets.js';
import { type TtlCurve, type TtlCurveRequest, ttlCurve } from './worker-api/ttl-curve.js';

export type { ProgressReport, OnProgress } from './worker-api/progress.js';
export type { LeaderPricing, PricingSetting, QuorumRequest, SimulatedLatency, TopologyPricing } from './worker-api/quorum-pricing.js';
export type { DefaultSchedule, ReplayResult, RunRequest, ScenarioInfo, ScheduleRequest, VariantInfo } from './worker-api/scenario-runs.js';
export type { TtlCurve, TtlCurveRequest, TtlPoint } from './worker-api/ttl-curve.js';

export interface WorkbenchApi {
  listScenarios(): ScenarioInfo[];
  topologyPresets(): string[];
  defaultSchedule(request: ScheduleRequest): Promise<DefaultSchedule>;
  runScenario(request: RunRequest, onProgress?: OnProgress): Promise<ArtifactJson>;
  replayArtifact(artifact: unknown, onProgress?: OnProgress): Promise<ReplayResult>;
  ttlCurve(request: TtlCurveRequest, onProgress?: OnProgress): Promise<TtlCurve>;
  quorumPricing(request: QuorumRequest, onProgress?: OnProgress): Promise<TopologyPricing[]>;
}

export function createWorkbenchApi(yieldToHost: () => Promise<void>): WorkbenchApi {
  return {
    listScenarios,
    topologyPresets: () => [...TOPOLOGY_PRESETS],
    defaultSchedule: (request) => defaultSchedule(request, yieldToHost),
    runScenario: (request, onProgress) => runScenario(request, yieldToHost, onProgress),
    replayArtifact: (artifact, onProgress) => replayArtifact(artifact, yieldToHost, onProgress),
    ttlCurve: (request, onProgress) => ttlCurve(request, yieldToHost, onProgress),
    quorumPricing: (request, onProgress) => quorumPricing(request, yieldToHost, onProgress),
  };
}
