// Percentile summaries of simulated samples, for every planner figure labelled "simulated".
// Nearest-rank on the sorted samples: a p99 of 100 samples is the 99th smallest, never an interpolation
// that no run produced.
import { assert } from '../assert.js';

export interface Summary {
  readonly count: number;
  readonly minMs: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
}

/** The nearest-rank q-quantile (0 < q <= 1) of `samples`; NaN when there are none. */
export function percentile(samples: readonly number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return nearestRank(sorted, q);
}

export function summarise(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    minMs: sorted.length === 0 ? Number.NaN : sorted[0]!,
    p50Ms: nearestRank(sorted, 0.5),
    p99Ms: nearestRank(sorted, 0.99),
    p999Ms: nearestRank(sorted, 0.999),
    maxMs: sorted.length === 0 ? Number.NaN : sorted[sorted.length - 1]!,
  };
}

function nearestRank(sorted: readonly number[], q: number): number {
  assert(q > 0 && q <= 1, () => `percentile: q ${q} is not in (0, 1]`);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
}
