// The quorum pricing view's data (ADR-06/07/08): for each chosen topology, the simulated acquisition
// latencies (the full protocol, every leader placement weighed equally, sim/planner/quorum-run.ts), the
// same split by the member that led each run, and the analytic floor and bounds beside them
// (core/planner/quorum-bounds.ts), as `lockstep quorum` prices them (src/commands/quorum.ts, whose node
// imports keep it out of the worker). The page draws the samples as CDFs; it gets them sorted.
import { roundTo } from '../../../core/numbers.js';
import { summarise } from '../../../core/planner/percentiles.js';
import { quorumBounds } from '../../../core/planner/quorum-bounds.js';
import type { Topology } from '../../../core/planner/topology.js';
import { simulateAcquisitions, type QuorumRun } from '../../../sim/planner/quorum-run.js';
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

/** Simulated acquisition latencies: the samples ascending and their nearest-rank percentiles. */
export interface SimulatedLatency {
  readonly samplesMs: readonly number[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
}

/** One leader placement: the runs that member led, beside the analytic path under that leader. */
export interface LeaderPricing {
  readonly leader: string;
  readonly region: string;
  /** Runs this member led; 0 when fewer runs than members were asked for. */
  readonly runs: number;
  /** The arbiter's etcd endpoint in those runs, when measuring began and ended (ADR-08: its own member). */
  readonly endpoints: readonly string[];
  /** Null when this member led no run. */
  readonly simulated: SimulatedLatency | null;
  /** Analytic, under this leader: median links and disks. */
  readonly medianMs: number;
  /** Analytic, under this leader: every part at p99, one acquisition in flight. */
  readonly p99BoundMs: number;
  /** Analytic, under this leader: as p99BoundMs, each Ready on the path first waiting for one fsync. */
  readonly loadedP99BoundMs: number;
}

/** Where the model puts the callers (docs/planner.md, "What the model assumes"), as the topology's data. */
export interface PricingSetting {
  readonly clients: number;
  readonly clientsHall: string;
  readonly arbiterHall: string;
  readonly regionOfHall: Readonly<Record<string, string>>;
  /** The member the arbiter's etcd client starts on and keeps until an error: the topology's first. */
  readonly homeEndpoint: string;
}

export interface TopologyPricing {
  readonly name: string;
  readonly description: string;
  readonly members: number;
  readonly runs: number;
  readonly samplesPerRun: number;
  readonly setting: PricingSetting;
  /** Every run's samples together: each leader placement weighed equally (the leader is not pinned). */
  readonly simulated: SimulatedLatency;
  /** Analytic: best leader, median links and disks; nothing simulated is consistently faster. */
  readonly floorMs: number;
  /**
   * Analytic: the worst leader, the arbiter's etcd client on its own member (the topology's first), every
   * part at its p99, one acquisition in flight. A closed loop of several clients queues behind fsyncs and
   * may exceed it; loadedUpperBoundMs is the bound for that.
   */
  readonly upperBoundMs: number;
  /** Analytic: as upperBoundMs, and every Ready on the path first waits for one fsync in progress. */
  readonly loadedUpperBoundMs: number;
  /** Analytic: as upperBoundMs with the arbiter's client failed over to the worst member. */
  readonly failoverUpperBoundMs: number;
  readonly byLeader: readonly LeaderPricing[];
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
    const sim = await simulateAcquisitions(topology, { runs, samplesPerRun: request.samplesPerRun, seed: `${seed}-${topology.name}`, yieldToHost });
    priced.push(priceTopology(topology, sim.byRun, request.samplesPerRun));
  }
  progress({ label: 'quorum pricing done', done: topologies.length, total: topologies.length });
  return priced;
}

/** The figures of one topology from its simulated runs and its analytic bounds. */
export function priceTopology(topology: Topology, byRun: readonly QuorumRun[], samplesPerRun: number): TopologyPricing {
  const bounds = quorumBounds(topology);
  const setting = settingOf(topology);
  const hallOf = (member: string): string => topology.members.find((m) => m.name === member)?.hall ?? '?';
  return {
    name: topology.name,
    description: topology.description ?? '',
    members: topology.members.length,
    runs: byRun.length,
    samplesPerRun,
    setting,
    simulated: latency(byRun.flatMap((r) => r.latenciesMs)) ?? noAcquisitions(topology, byRun.length),
    floorMs: roundTo(bounds.floorMs, 2),
    upperBoundMs: roundTo(bounds.upperMs, 2),
    loadedUpperBoundMs: roundTo(bounds.loadedUpperMs, 2),
    failoverUpperBoundMs: roundTo(bounds.failoverUpperMs, 2),
    byLeader: bounds.byLeader.map((path) => {
      const led = byRun.filter((r) => r.leader === path.leader);
      return {
        leader: path.leader,
        region: setting.regionOfHall[hallOf(path.leader)] ?? '?',
        runs: led.length,
        endpoints: [...new Set(led.flatMap((r) => [r.endpointAtStart, r.endpointAtEnd]))],
        simulated: latency(led.flatMap((r) => r.latenciesMs)),
        medianMs: roundTo(path.medianMs, 2),
        p99BoundMs: roundTo(path.p99BoundMs, 2),
        loadedP99BoundMs: roundTo(path.loadedP99BoundMs, 2),
      };
    }),
  };
}

function settingOf(topology: Topology): PricingSetting {
  const home = topology.members[0]!; // validateTopology requires members
  return {
    clients: topology.clients.count,
    clientsHall: topology.clients.hall,
    arbiterHall: topology.arbiter.hall,
    regionOfHall: Object.fromEntries(topology.halls.map((h) => [h.name, h.region])),
    homeEndpoint: home.name,
  };
}

function noAcquisitions(topology: Topology, runs: number): never {
  throw new Error(`${topology.name}: no acquisition completed in ${runs} simulated run(s); check the topology's links (an unreachable hall?) or ask for more acquisitions per run`);
}

/** Null for no samples (a member that led no run). */
function latency(samplesMs: readonly number[]): SimulatedLatency | null {
  if (samplesMs.length === 0) return null;
  const s = summarise(samplesMs);
  return { samplesMs: [...samplesMs].sort((a, b) => a - b), p50Ms: roundTo(s.p50Ms, 2), p99Ms: roundTo(s.p99Ms, 2), p999Ms: roundTo(s.p999Ms, 2) };
}
