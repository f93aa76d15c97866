// Quorum pricing (ADR-06/07/08), once, below both front ends: `lockstep quorum` (src/commands/quorum.ts)
// and the page's quorum view (src/web/worker-api/quorum-pricing.ts) read a topology their own way (a
// file, a bundled preset) and render; the figures come from here, so the CLI and the page give the same
// prices for the same question (src/web/worker-api/quorum-pricing.test.ts asks both). For each topology:
// the simulated acquisition latencies (the full protocol, every leader placement weighed equally,
// quorum-run.ts), the same split by the member that led each run, and the analytic floor and bounds
// beside them (core/planner/quorum-bounds.ts).
import type { FieldProblem } from '../../core/classes/fields.js';
import { roundTo } from '../../core/numbers.js';
import { summarise } from '../../core/planner/percentiles.js';
import { quorumBounds } from '../../core/planner/quorum-bounds.js';
import { specAt, type Topology } from '../../core/planner/topology.js';
import { DEFAULT_REQUEST_COST_MS } from '../cluster/timing.js';
import type { HostFit } from './host-fit.js';
import { type HostTiming, leaderCostMsPerCycle, type MessageCost, SIMULATOR_DEFAULTS_SOURCE, timedTopology } from './host-timing.js';
import type { ServedHopCost } from './served-hop.js';
import { type QuorumRun, simulateAcquisitions } from './quorum-run.js';
import { clusterFsync } from './topology-world.js';

/** The presets both front ends offer, by name: examples/topologies/NAME.json. */
export const QUORUM_PRESETS = ['regional-3', 'coord-5-2-2-1', 'stretched-3-region'] as const;
export type QuorumPresetName = (typeof QUORUM_PRESETS)[number];

export const MAX_QUORUM_RUNS = 50;
export const MIN_SAMPLES_PER_RUN = 10;
export const MAX_SAMPLES_PER_RUN = 10_000;

export interface QuorumPriceRequest {
  /** Acquisitions measured per run. */
  readonly samplesPerRun: number;
  /** Runs; run r puts the leader on member r mod N. Default: one per member. */
  readonly runs?: number;
  /** The base seed; a topology's runs are seeded `SEED-NAME`. */
  readonly seed: string;
  /** This machine's timing (a bench profile, the measuring rig: host-timing.ts); absent: the simulator's defaults. */
  readonly host?: HostTiming;
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
  /** Analytic, under this leader: as p99BoundMs with the arbiter's client on the worst member. */
  readonly failoverP99BoundMs: number;
}

/** What the priced figures assumed about the host, as the report prints it. */
export interface HostTimingUsed {
  readonly source: string;
  readonly fsyncP50Ms: number;
  readonly fsyncP99Ms: number;
  readonly requestCostMs: number;
  readonly applyCostMs: number;
  readonly arbiterCostMsPerCall: number;
  /** The lock.v1 hop's CPU per call; null when the profile does not carry it (the hop unpriced). */
  readonly servedHop: ServedHopCost | null;
  readonly fromConcurrency: number | null;
  readonly rigLinkCost: MessageCost | null;
  /** The CPU share on the grant's path and the scheduling delay, as fitted to the bench (host-fit.ts); null: not fitted. */
  readonly fit: HostFit | null;
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
  /** Which member led each run. */
  readonly leaders: readonly string[];
  /** Every run's samples together: each leader placement weighed equally (the leader is not pinned). */
  readonly simulated: SimulatedLatency;
  /** Analytic: best leader, median links and disks; nothing simulated is consistently faster. */
  readonly floorMs: number;
  /** Analytic: the fastest majority alone, whoever leads. */
  readonly quorumFloorMs: number;
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
  /** Analytic: the CPU model (request and apply cost per write); the leader's raft loop batches proposals, so fsync does not bound it. */
  readonly throughputPerSecond: number;
  /** The host's timing every figure used: the simulator's defaults or a bench profile's, and the rig's link cost. */
  readonly timing: HostTimingUsed;
  readonly byLeader: readonly LeaderPricing[];
}

/** What is wrong with a request, field by field (each front end names its own flag or form field). */
export function quorumRequestProblems(request: Omit<QuorumPriceRequest, 'seed'>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (request.runs !== undefined && !(Number.isInteger(request.runs) && request.runs >= 1 && request.runs <= MAX_QUORUM_RUNS)) problems.push({ field: 'runs', message: `must be a whole number from 1 to ${MAX_QUORUM_RUNS}`, fix: 'ask for fewer runs, or leave it out for one per member' });
  const samples = request.samplesPerRun;
  if (!(Number.isInteger(samples) && samples >= MIN_SAMPLES_PER_RUN && samples <= MAX_SAMPLES_PER_RUN)) problems.push({ field: 'samplesPerRun', message: `must be a whole number from ${MIN_SAMPLES_PER_RUN} to ${MAX_SAMPLES_PER_RUN}`, fix: 'ask for a few hundred acquisitions per run' });
  return problems;
}

/** One topology priced: its runs simulated under seed `SEED-NAME`, its bounds computed. */
export async function priceQuorum(topology: Topology, request: QuorumPriceRequest, yieldToHost: () => Promise<void>): Promise<TopologyPricing> {
  const problems = quorumRequestProblems(request);
  if (problems.length > 0) throw new RangeError(problems.map((p) => `${p.field} ${p.message}`).join('; '));
  const runs = request.runs ?? topology.members.length;
  const sim = await simulateAcquisitions(topology, { runs, samplesPerRun: request.samplesPerRun, seed: `${request.seed}-${topology.name}`, yieldToHost, ...(request.host === undefined ? {} : { host: request.host }) });
  return pricedTopology(topology, sim.byRun, request.samplesPerRun, request.host);
}

/** The figures of one topology from its simulated runs and its analytic bounds. */
function pricedTopology(topology: Topology, byRun: readonly QuorumRun[], samplesPerRun: number, host: HostTiming | undefined): TopologyPricing {
  const bounds = quorumBounds(timedTopology(topology, host));
  const setting = settingOf(topology);
  const hallOf = (member: string): string => topology.members.find((m) => m.name === member)?.hall ?? '?';
  return {
    name: topology.name,
    description: topology.description ?? '',
    members: topology.members.length,
    runs: byRun.length,
    samplesPerRun,
    setting,
    leaders: byRun.map((r) => r.leader),
    simulated: latency(byRun.flatMap((r) => r.latenciesMs)) ?? noAcquisitions(topology, byRun.length),
    floorMs: roundTo(bounds.floorMs, 2),
    quorumFloorMs: roundTo(bounds.quorumFloorMs, 2),
    upperBoundMs: roundTo(bounds.upperMs, 2),
    loadedUpperBoundMs: roundTo(bounds.loadedUpperMs, 2),
    failoverUpperBoundMs: roundTo(bounds.failoverUpperMs, 2),
    throughputPerSecond: Math.round(1000 / leaderCostMsPerCycle(host)),
    timing: hostTimingUsed(topology, host),
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
        failoverP99BoundMs: roundTo(path.failoverP99BoundMs, 2),
      };
    }),
  };
}

/** The host's timing as the figures used it: the fsync the simulated cluster ran (the slowest member's), the CPU costs, the rig's. */
function hostTimingUsed(topology: Topology, host: HostTiming | undefined): HostTimingUsed {
  const fsync = clusterFsync(timedTopology(topology, host));
  return {
    source: host?.source ?? SIMULATOR_DEFAULTS_SOURCE,
    fsyncP50Ms: roundTo(specAt(fsync, 0.5), 3),
    fsyncP99Ms: roundTo(specAt(fsync, 0.99), 3),
    requestCostMs: host?.requestCostMs ?? DEFAULT_REQUEST_COST_MS,
    applyCostMs: host?.applyCostMs ?? 0,
    arbiterCostMsPerCall: host?.arbiterCostMsPerCall ?? 0,
    servedHop: host?.servedHop ?? null,
    fromConcurrency: host?.fromConcurrency ?? null,
    rigLinkCost: host?.rigLinkCost ?? null,
    fit: host?.fit ?? null,
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
