// The capacity of one `lockstep serve` (issue 30): the most acquire+release cycles a second it sustains
// with the cycle's p99 under 50 ms. Closed-loop steps of rising concurrency (1, 2, 4, ... up to the
// workload's sessions) through the mTLS service; the answer is the best throughput of a step that kept
// the p99 bound, and every step is reported, so a bound missed even at c=1 (a loaded machine) says so.
import { LoopTally, runSlice } from './closed-loop.js';
import { round3 } from './histogram.js';
import type { Workload } from './workloads/workload.js';

export const CAPACITY_P99_BOUND_MS = 50;
const STEP_MS = 2_000;
const STEP_WARMUP_MS = 300;

export interface CapacityStep {
  readonly concurrency: number;
  /** Failed cycles: a step with any does not count as sustained. */
  readonly errors: number;
  readonly cyclesPerS: number;
  readonly cycleP99Ms: number;
}

export interface ServeCapacity {
  readonly p99BoundMs: number;
  readonly steps: readonly CapacityStep[];
  /** The best cycles/s of a step whose p99 kept the bound; null when none did. */
  readonly sustainedCyclesPerS: number | null;
  readonly atConcurrency: number | null;
}

export function capacityOf(steps: readonly CapacityStep[], boundMs = CAPACITY_P99_BOUND_MS): ServeCapacity {
  const kept = steps.filter((s) => s.errors === 0 && s.cyclesPerS > 0 && s.cycleP99Ms < boundMs).sort((a, b) => b.cyclesPerS - a.cyclesPerS)[0];
  return { p99BoundMs: boundMs, steps, sustainedCyclesPerS: kept?.cyclesPerS ?? null, atConcurrency: kept?.concurrency ?? null };
}

export async function measureServeCapacity(workload: Workload, maxConcurrency: number, say: (line: string) => void, signal?: AbortSignal): Promise<ServeCapacity> {
  const steps: CapacityStep[] = [];
  for (let concurrency = 1; concurrency <= maxConcurrency && signal?.aborted !== true; concurrency *= 2) {
    const tally = new LoopTally(concurrency, workload.phases);
    await runSlice({ tally, warmupMs: STEP_WARMUP_MS, durationMs: STEP_MS, operation: workload.operation, ...(signal === undefined ? {} : { signal }) });
    const result = tally.result();
    const step = { concurrency, errors: result.errors, cyclesPerS: result.throughputPerS, cycleP99Ms: round3(result.phases.cycle?.p99Ms ?? Infinity) };
    steps.push(step);
    say(`serve capacity (mTLS) c=${concurrency}: ${Math.round(step.cyclesPerS)} cycles/s, cycle p99 ${step.cycleP99Ms} ms${step.errors === 0 ? '' : `, ${step.errors} error(s)`}`);
  }
  return capacityOf(steps);
}
