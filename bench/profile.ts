// A measured hardware profile: this machine's fdatasync and loopback round-trip distributions, as the
// simulator's timing model takes them (sim/kernel/distribution.ts, DistributionSpec `empirical`), so
// `lockstep quorum` and `lockstep ttl` can plan with the operator's own disk instead of a guess.
// Defined here structurally rather than imported: bench/ does not import sim/ (ARCHITECTURE.md, Layers).
import type { BenchEnvironment } from './environment.js';
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
  readonly cpuByConcurrency?: ReadonlyArray<Pick<SimCalibration, 'requestCostMs' | 'applyCostMs' | 'clientCostMsPerCall' | 'fromConcurrency'>>;
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
