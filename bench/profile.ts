// A measured hardware profile: this machine's fdatasync and loopback round-trip distributions, as the
// simulator's timing model takes them (sim/kernel/distribution.ts, DistributionSpec `empirical`), so
// `lockstep quorum` and `lockstep ttl` can plan with the operator's own disk instead of a guess.
// Defined here structurally rather than imported: bench/ does not import sim/ (ARCHITECTURE.md, Layers).
import type { BenchEnvironment } from './environment.js';
import type { WorkloadRun } from './report.js';
import type { FitTarget } from './fit-target.js';
import type { SimCalibration } from './sim-compare/calibration.js';

export interface EmpiricalDistribution {
  readonly kind: 'empirical';
  readonly samplesMs: readonly number[];
}

export interface HardwareProfile {
  readonly kind: 'lockstep-hardware-profile';
  readonly version: 1;
  readonly measuredAt: string;
  readonly env: Pick<BenchEnvironment, 'etcdVersion' | 'members' | 'cores' | 'cpuModel' | 'disk' | 'platform'>;
  /** WAL fsync latency of the data dir's disk: EtcdTiming.walFsync. */
  readonly walFsync: EmpiricalDistribution;
  /** Loopback TCP round trip; a simulated link's one-way latency is half of it. */
  readonly loopbackRtt: EmpiricalDistribution;
  /** CPU costs per write measured in the grant workload, per concurrency (EtcdTiming.requestCostMs/applyCostMs, client per call). */
  readonly cpuByConcurrency?: ReadonlyArray<Pick<SimCalibration, 'requestCostMs' | 'applyCostMs' | 'clientCostMsPerCall' | 'fromConcurrency'> & Partial<ServedHopCosts>>;
}

/**
 * The served lock.v1 hop's CPU per call (issue 32, the quorum model's unpriced hop), at one concurrency:
 * what going through `lockstep serve` (plaintext, as `quorum --measure` runs it) costs beyond the
 * in-process arbiter. Absent in profiles written before it: the quorum model then leaves the hop unpriced.
 */
export interface ServedHopCosts {
  /** The bench process's CPU per call on the service path: the network client and its gRPC (and the bench loop). */
  readonly hopClientCostMsPerCall: number;
  /** `lockstep serve`'s CPU per call less the in-process arbiter's (already clientCostMsPerCall): its gRPC server. */
  readonly hopServeCostMsPerCall: number;
  /**
   * The service path's measured acquire latency, p50 and p99 ms: what the quorum model, priced for the
   * bench's own shape, is fitted to (sim/planner/host-fit.ts). Absent in profiles before it: not fitted.
   */
  readonly serviceAcquireP50Ms: number;
  readonly serviceAcquireP99Ms: number;
  /**
   * How many acquisitions those two rest on, when they are the fit target's (bench/fit-target.ts: one
   * client, thinking 1-5 ms, measured alone); absent: the interleaved run's, no pause between cycles.
   */
  readonly serviceAcquireSamples?: number;
}

/** A grant cycle is two lock.v1 calls (acquire, release), as it is two LockLog calls. */
const SERVED_CALLS_PER_CYCLE = 2;

/**
 * The served hop's costs and latency from the in-process and the service runs at one concurrency;
 * undefined without serve's CPU. The latency is the fit target's when one was measured at this concurrency.
 */
export function servedHopCosts(inProcess: WorkloadRun, served: WorkloadRun | undefined, fitTarget?: FitTarget): ServedHopCosts | undefined {
  const serveUs = served?.cpu?.serveUs;
  const arbiterUs = inProcess.cpu?.clientUs;
  if (served?.cpu === undefined || serveUs === undefined || arbiterUs === undefined) return undefined;
  const perCallMs = (us: number): number => round(Math.max(0, us) / SERVED_CALLS_PER_CYCLE / 1000);
  const costs = { hopClientCostMsPerCall: perCallMs(served.cpu.clientUs), hopServeCostMsPerCall: perCallMs(serveUs - arbiterUs) };
  if (fitTarget !== undefined && fitTarget.concurrency === served.concurrency && fitTarget.samples > 0) {
    return { ...costs, serviceAcquireP50Ms: round(fitTarget.p50Ms), serviceAcquireP99Ms: round(fitTarget.p99Ms), serviceAcquireSamples: fitTarget.samples };
  }
  return { ...costs, serviceAcquireP50Ms: round(served.latency.p50Ms), serviceAcquireP99Ms: round(served.latency.p99Ms) };
}

/** At most this many points per distribution: its quantiles, so the file stays small whatever the run. */
export const MAX_PROFILE_POINTS = 1000;

/** `samples` reduced to evenly spaced quantiles (keeping min and max), rounded to microseconds. */
export function quantilePoints(samples: readonly number[], maxPoints = MAX_PROFILE_POINTS): number[] {
  const sorted = Float64Array.from(samples).sort();
  const count = Math.min(sorted.length, maxPoints);
  if (count === 0) return [];
  if (count === 1) return [round(sorted[0] as number)];
  const last = sorted.length - 1;
  return Array.from({ length: count }, (_, i) => round(sorted[Math.round((i * last) / (count - 1))] as number));
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

export function buildProfile(env: BenchEnvironment, fsyncSamplesMs: readonly number[], rttSamplesMs: readonly number[]): HardwareProfile {
  return {
    kind: 'lockstep-hardware-profile',
    version: 1,
    measuredAt: env.startedAt,
    env: { etcdVersion: env.etcdVersion, members: env.members, cores: env.cores, cpuModel: env.cpuModel, disk: env.disk, platform: env.platform },
    walFsync: { kind: 'empirical', samplesMs: quantilePoints(fsyncSamplesMs) },
    loopbackRtt: { kind: 'empirical', samplesMs: quantilePoints(rttSamplesMs) },
  };
}
