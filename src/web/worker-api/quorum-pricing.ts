// The quorum pricing view's data (ADR-06/07/08): the page's request adapted to sim/planner/quorum-pricing.ts,
// the procedure `lockstep quorum` runs too, so the page and the CLI give the same prices for the same
// question (quorum-pricing.test.ts asks both). This file adds the page's limits, its bundled presets and
// progress. The page draws the samples as CDFs; it gets them sorted.
import { priceQuorum, quorumRequestProblems, type TopologyPricing } from '../../../sim/planner/quorum-pricing.js';
import { type OnProgress, safeProgress } from './progress.js';
import { presetTopology } from './topology-presets.js';

export type { LeaderPricing, PricingSetting, SimulatedLatency, TopologyPricing } from '../../../sim/planner/quorum-pricing.js';

export interface QuorumRequest {
  readonly topologies: readonly string[];
  /** Acquisitions measured per run. */
  readonly samplesPerRun: number;
  /** Runs per topology; run r puts the leader on member r mod N. Default: one per member. */
  readonly runs?: number;
  /** Default `quorum`, as the CLI's --seed. */
  readonly seed?: string;
}

/** Page-sized bounds, below the procedure's own (the CLI's). */
const MAX_PAGE_SAMPLES_PER_RUN = 2_000;
const MAX_PAGE_RUNS = 20;

export function checkQuorumRequest(r: QuorumRequest): void {
  if (r.topologies.length === 0) throw new RangeError('topologies: choose at least one');
  const problems = quorumRequestProblems(r).map((p) => `${p.field === 'runs' ? `runs ${r.runs}` : `samples per run ${r.samplesPerRun}`} ${p.message}`);
  if (r.samplesPerRun > MAX_PAGE_SAMPLES_PER_RUN) problems.push(`samples per run ${r.samplesPerRun} must be a whole number from 10 to ${MAX_PAGE_SAMPLES_PER_RUN}`);
  if (r.runs !== undefined && r.runs > MAX_PAGE_RUNS) problems.push(`runs ${r.runs} must be a whole number from 1 to ${MAX_PAGE_RUNS}`);
  if (problems.length > 0) throw new RangeError(problems.join('; '));
}

export async function quorumPricing(request: QuorumRequest, yieldToHost: () => Promise<void>, onProgress?: OnProgress): Promise<TopologyPricing[]> {
  checkQuorumRequest(request);
  const topologies = request.topologies.map(presetTopology); // every name checked before any simulation
  const progress = safeProgress(onProgress);
  const priced: TopologyPricing[] = [];
  for (const [i, topology] of topologies.entries()) {
    progress({ label: `${topology.name}: ${request.runs ?? topology.members.length} runs x ${request.samplesPerRun} acquisitions`, done: i, total: topologies.length });
    priced.push(await priceQuorum(topology, { samplesPerRun: request.samplesPerRun, seed: request.seed ?? 'quorum', ...(request.runs === undefined ? {} : { runs: request.runs }) }, yieldToHost));
  }
  progress({ label: 'quorum pricing done', done: topologies.length, total: topologies.length });
  return priced;
}
