// Closed-loop load: `concurrency` workers, each starting its next operation as soon as the last one
// ends, for a fixed time. A warm-up runs first and is not recorded; an operation's latency counts when it
// ends inside the measured window. Throughput counts every operation that ends after the warm-up, the
// slice's tail included, over the time from the warm-up's end until the last worker stops (issue 30): a
// window shorter than the latency would otherwise see at most one operation per worker and show a slow
// path near zero. Results accumulate in a LoopTally, so
// one workload's measurement can be taken in several slices interleaved with other workloads'.
import { sleepMs } from '../src/clock/index.js';
import { LatencyHistogram, type LatencySummary, round3 } from './histogram.js';

/** One operation of worker `worker`; it reports each phase's latency through `record(phase, ms)`. */
export type Operation = (worker: number, iteration: number, record: (phase: number, ms: number) => void) => Promise<void>;

export interface ClosedLoopResult {
  readonly concurrency: number;
  readonly measuredMs: number;
  /** Operations that completed in the measured windows (their latencies are the phases'). */
  readonly operations: number;
  /** Operations that ended after each slice's warm-up, tail included, per second of those slices' elapsed time. */
  readonly throughputPerS: number;
  /** Latency per phase, by phase name. */
  readonly phases: Readonly<Record<string, LatencySummary>>;
  readonly errors: number;
  readonly firstError?: string;
}

/**
 * `operation` started at most once every `periodMs` per worker: after it ends, the worker sleeps out the rest
 * of the period (none when it took longer). For CPU per operation at a chosen rate (issue 30: the same code
 * costs more per operation as the rate falls). `operation` itself for a period of 0 or less.
 */
export function paced(operation: Operation, periodMs: number): Operation {
  if (!(periodMs > 0)) return operation;
  return async (worker, iteration, record) => {
    const startMs = performance.now();
    await operation(worker, iteration, record);
    const restMs = periodMs - (performance.now() - startMs);
    if (restMs > 0) await sleepMs(restMs);
  };
}

/** TigerStyle: a limit on everything. A workload that fails this often is broken, not slow. */
export const MAX_ERRORS_PER_RUN = 50;

/** What one workload at one concurrency has measured so far, over all its slices. */
export class LoopTally {
  readonly histograms: LatencyHistogram[];
  operations = 0;
  measuredMs = 0;
  /** Throughput's count and time: operations ended after each slice's warm-up, and the time from then to the slice's end. */
  completedAfterWarmup = 0;
  elapsedAfterWarmupMs = 0;
  errors = 0;
  firstError: string | undefined;

  constructor(
    readonly concurrency: number,
    readonly phases: readonly string[],
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`concurrency must be a whole number >= 1, got ${concurrency}`);
    this.histograms = phases.map(() => new LatencyHistogram());
  }

  get failing(): boolean {
    return this.errors >= MAX_ERRORS_PER_RUN;
  }

  result(): ClosedLoopResult {
    const measuredMs = Math.max(1, this.measuredMs);
    return {
      concurrency: this.concurrency,
      measuredMs: round3(measuredMs),
      operations: this.operations,
      throughputPerS: round3((this.completedAfterWarmup * 1000) / Math.max(1, this.elapsedAfterWarmupMs)),
      phases: Object.fromEntries(this.phases.map((name, i) => [name, (this.histograms[i] as LatencyHistogram).summary()])),
      errors: this.errors,
      ...(this.firstError === undefined ? {} : { firstError: this.firstError }),
    };
  }
}

export interface SliceOptions {
  readonly tally: LoopTally;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly operation: Operation;
  readonly signal?: AbortSignal;
  /** Called about every `progressEveryMs` with the tally's measured time (negative while warming up) and operations. */
  readonly onProgress?: (measuredMs: number, operations: number) => void;
  readonly progressEveryMs?: number;
}

/**
 * Runs the tally's workers for one slice: `warmupMs` unrecorded, then `durationMs` recorded. Returns
 * every operation that completed in the slice, warm-up included (what the slice's CPU time paid for).
 */
export async function runSlice(options: SliceOptions): Promise<number> {
  const { tally } = options;
  const startMs = performance.now();
  const measureFromMs = startMs + options.warmupMs;
  const endMs = measureFromMs + options.durationMs;
  const measuredBeforeMs = tally.measuredMs;
  const stopped = () => options.signal?.aborted === true || tally.failing;
  let completed = 0;

  const worker = async (index: number): Promise<void> => {
    for (let iteration = 0; ; iteration++) {
      const beganMs = performance.now();
      if (beganMs >= endMs || stopped()) return;
      const pending: Array<readonly [number, number]> = [];
      try {
        await options.operation(index, iteration, (phase, ms) => pending.push([phase, ms]));
      } catch (error) {
        tally.errors += 1;
        tally.firstError ??= error instanceof Error ? error.message : String(error);
        continue;
      }
      completed += 1;
      // Counted by completion time: in steady state, completions per window are throughput x window,
      // whatever the latency, so slower workloads are not penalised at the window's edges.
      const endedMs = performance.now();
      if (endedMs >= measureFromMs) tally.completedAfterWarmup += 1;
      if (endedMs < measureFromMs || endedMs > endMs) continue;
      tally.operations += 1;
      for (const [phase, ms] of pending) tally.histograms[phase]?.record(ms);
    }
  };

  const report = () => {
    const nowMs = performance.now();
    options.onProgress?.(nowMs < measureFromMs && measuredBeforeMs === 0 ? -1 : measuredBeforeMs + Math.max(0, nowMs - measureFromMs), tally.operations);
  };
  const ticker = options.onProgress === undefined ? undefined : setInterval(report, options.progressEveryMs ?? 1000);
  try {
    await Promise.all(Array.from({ length: tally.concurrency }, (_, i) => worker(i)));
  } finally {
    if (ticker !== undefined) clearInterval(ticker);
  }
  const stoppedMs = performance.now();
  tally.measuredMs += Math.max(0, Math.min(stoppedMs, endMs) - measureFromMs);
  tally.elapsedAfterWarmupMs += Math.max(0, stoppedMs - measureFromMs);
  return completed;
}
