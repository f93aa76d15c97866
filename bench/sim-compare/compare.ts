// --compare-sim: the simulator, calibrated with this run's measurements, predicts the grant workload at
// each concurrency; the report puts predicted and measured percentiles side by side. The goal: within
// ±25% of the measured p50 and p99 on a local 3-member cluster.
import { round3 } from '../histogram.js';
import type { HardwareProfile } from '../profile.js';
import type { WorkloadReport } from '../report.js';
import { calibrate, type SimCalibration } from './calibration.js';
import { predictGrant, type SimPrediction } from './predict.js';

export interface Figures {
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly throughputPerS: number;
}

export interface ComparisonRow {
  readonly concurrency: number;
  readonly measured: Figures;
  readonly predicted: Figures;
  /** predicted / measured - 1: +0.10 means the simulator said 10% more. */
  readonly deviation: Figures;
  readonly simulated: Pick<SimPrediction, 'virtualMs' | 'wallMs' | 'events'>;
  /** The CPU costs this concurrency was simulated with (the disk and link distributions are the profile's). */
  readonly cpu: Pick<SimCalibration, 'requestCostMs' | 'applyCostMs' | 'clientCostMsPerCall'>;
}

export interface SimComparison {
  readonly status: 'not-requested' | 'compared' | 'failed';
  readonly note?: string;
  readonly seed?: string;
  /** What every row shares: members, fdatasync and one-way link distributions (as quantile counts). */
  readonly calibration?: { readonly members: number; readonly fsyncQuantiles: number; readonly linkQuantiles: number };
  readonly notes?: readonly string[];
  /** Grant acquire latency and cycle throughput. */
  readonly rows?: readonly ComparisonRow[];
  /** The largest |deviation| of p50 and p99 over all rows. */
  readonly worstLatencyDeviation?: number;
}

export const PREDICTION_TOLERANCE = 0.25;
/** Simulated time per concurrency: enough samples for a p99, cheap to simulate. */
const MAX_SIMULATED_MS = 4_000;
const SIMULATED_WARMUP_MS = 500;

export interface CompareOptions {
  readonly profile: HardwareProfile;
  readonly grant: WorkloadReport;
  readonly members: number;
  readonly durationMs: number;
  readonly seed: string;
  readonly signal?: AbortSignal;
  readonly onRow?: (row: ComparisonRow) => void;
}

export async function compareWithSimulator(options: CompareOptions): Promise<SimComparison> {
  const notes = new Set<string>();
  const rows: ComparisonRow[] = [];
  for (const run of options.grant.runs) {
    if (options.signal?.aborted === true) break;
    const { calibration, notes: runNotes } = calibrate(options.profile, run, options.members);
    for (const note of runNotes) notes.add(note);
    const prediction = await predictGrant({
      calibration,
      concurrency: run.concurrency,
      durationMs: Math.min(MAX_SIMULATED_MS, options.durationMs),
      warmupMs: SIMULATED_WARMUP_MS,
      seed: options.seed,
    });
    const measured = { p50Ms: run.latency.p50Ms, p99Ms: run.latency.p99Ms, throughputPerS: run.throughputPerS };
    const predicted = { p50Ms: prediction.acquire.p50Ms, p99Ms: prediction.acquire.p99Ms, throughputPerS: prediction.throughputPerS };
    const row: ComparisonRow = {
      concurrency: run.concurrency,
      measured,
      predicted,
      deviation: { p50Ms: deviation(predicted.p50Ms, measured.p50Ms), p99Ms: deviation(predicted.p99Ms, measured.p99Ms), throughputPerS: deviation(predicted.throughputPerS, measured.throughputPerS) },
      simulated: { virtualMs: prediction.virtualMs, wallMs: prediction.wallMs, events: prediction.events },
      cpu: { requestCostMs: calibration.requestCostMs, applyCostMs: calibration.applyCostMs, clientCostMsPerCall: calibration.clientCostMsPerCall },
    };
    rows.push(row);
    options.onRow?.(row);
  }
  const worst = Math.max(0, ...rows.flatMap((r) => [Math.abs(r.deviation.p50Ms), Math.abs(r.deviation.p99Ms)]));
  const calibration = { members: options.members, fsyncQuantiles: options.profile.walFsync.samplesMs.length, linkQuantiles: options.profile.loopbackRtt.samplesMs.length };
  return { status: 'compared', seed: options.seed, calibration, notes: [...notes], rows, worstLatencyDeviation: round3(worst) };
}

function deviation(predicted: number, measured: number): number {
  return measured > 0 ? round3(predicted / measured - 1) : 0;
}
