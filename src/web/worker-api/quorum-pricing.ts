// The quorum pricing view's data (ADR-06/07/08): for each chosen topology, the simulated acquisition
// latencies (the full protocol, every leader placement weighed equally, sim/planner/quorum-run.ts) and
// the analytic floor and upper bound beside them (core/planner/quorum-bounds.ts), as `lockstep quorum`
// prices them. The page draws the samples as a CDF; it gets them sorted.
import { roundTo, summarise } from '../../../core/planner/percentiles.js';
import { quorumBounds } from '../../../core/planner/quorum-bounds.js';
import { simulateAcquisitions } from '../../../sim/planner/quorum-run.js';
import { type OnProgress, safeProgress } from './progress.js';
import { presetTopology } from './topology-presets.js';

export interface QuorumRequest {
  readonly topologies: readonly string[];
  /** Acquisitions measured per run. */
  readonly samplesPerRun: number;
  /** Runs per topology; run r puts the leader on member r mod N. Default: one per member. */
  readonly runs?: number;
  readonly seed?: string;
}

export interface TopologyPricing {
  readonly name: string;
  readonly description: string;
  readonly members: number;
  readonly runs: number;
  readonly leaders: readonly string[];
  /** Simulated acquisition latencies, ascending. */
  readonly samplesMs: readonly number[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  /** Analytic: best leader, median links and disks. */
  readonly floorMs: number;
  /** Analytic: worst leader and endpoint, every part at p99. */
  readonly upperBoundMs: number;
}

const MAX_SAMPLES_PER_RUN = 2_000;
const MAX_RUNS = 20;

export function checkQuorumRequest(r: QuorumRequest): void {
  if (r.topologies.length === 0) throw new RangeError('topologies: choose at least one');
  if (!(Number.isInteger(r.samplesPerRun) && r.samplesPerRun >= 10 && r.samplesPerRun <= MAX_SAMPLES_PER_RUN)) throw new RangeError(`samples per run ${r.samplesPerRun} must be a whole number from 10 to ${MAX_SAMPLES_PER_RUN}`);
  if (r.runs !== undefined && !(Number.isInteger(r.runs) && r.runs >= 1 && r.runs <= MAX_RUNS)) throw new RangeError(`runs ${r.runs} must be a whole number from 1 to ${MAX_RUNS}`);
}

export async function quorumPricing(request: QuorumRequest, yieldToHost: () => Promise<void>, onProgress?: OnProgress): Promise<TopologyPricing[]> {
  checkQuorumRequest(request);
  const topologies = request.topologies.map(presetTopology); // every name checked before any simulation
  const progress = safeProgress(onProgress);
  const seed = request.seed ?? 'quorum';
  const priced: TopologyPricing[] = [];
  for (const [i, topology] of topologies.entries()) {
    const runs = request.runs ?? topology.members.length;
    progress({ label: `${topology.name}: ${runs} runs x ${request.samplesPerRun} acquisitions`, done: i, total: topologies.length });
    const bounds = quorumBounds(topology);
    const sim = await simulateAcquisitions(topology, { runs, samplesPerRun: request.samplesPerRun, seed: `${seed}-${topology.name}`, yieldToHost });
    const summary = summarise(sim.latenciesMs);
    priced.push({
      name: topology.name,
      description: topology.description ?? '',
      members: topology.members.length,
      runs,
      leaders: sim.leaders,
      samplesMs: [...sim.latenciesMs].sort((a, b) => a - b),
      p50Ms: roundTo(summary.p50Ms, 2),
      p99Ms: roundTo(summary.p99Ms, 2),
      p999Ms: roundTo(summary.p999Ms, 2),
      floorMs: roundTo(bounds.floorMs, 2),
      upperBoundMs: roundTo(bounds.upperMs, 2),
    });
  }
  progress({ label: 'quorum pricing done', done: topologies.length, total: topologies.length });
  return priced;
}
