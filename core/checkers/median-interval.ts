// A distribution-free confidence interval for a median, from order statistics (issue 32: the gate's
// `--compare-sim` compares distributions, not a median of a few draws). For n draws sorted x(1) <= ..
// <= x(n), the interval [x(k), x(n-k+1)] holds the true median with probability 1 - 2 P(B < k), B ~
// Binomial(n, 1/2), whatever the distribution: k is the largest rank with 2 P(B < k) <= 1 - confidence.
// With too few draws no k >= 1 qualifies (5 draws at 95%: even [min, max] misses with probability 1/16),
// and the interval is undefined: "too few draws", never a guess. Deterministic: no resampling.
import { percentile } from '../planner/percentiles.js';

export interface MedianInterval {
  readonly draws: number;
  /** The nearest-rank median (core/planner/percentiles.ts), as the gate's rows have always shown. */
  readonly median: number;
  readonly low: number;
  readonly high: number;
  /** The interval's own coverage, at least the confidence asked for (ranks are whole). */
  readonly coverage: number;
}

export const DEFAULT_CONFIDENCE = 0.95;
/** Put a limit on everything; also the most draws whose 0.5^n stays a normal float (the sums are exact products, no Math.log). */
export const MAX_DRAWS = 1_000;

/** The interval of the median of `samples` at `confidence` (0.5..0.999); undefined when there are too few draws. */
export function medianInterval(samples: readonly number[], confidence = DEFAULT_CONFIDENCE): MedianInterval | undefined {
  if (!(confidence >= 0.5 && confidence <= 0.999)) throw new RangeError(`confidence ${confidence} must be from 0.5 to 0.999`);
  const n = samples.length;
  if (n > MAX_DRAWS) throw new RangeError(`${n} draws: at most ${MAX_DRAWS}`);
  const rank = lowerRank(n, 1 - confidence);
  if (rank === undefined) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  return { draws: n, median: percentile(sorted, 0.5), low: sorted[rank.k - 1] as number, high: sorted[n - rank.k] as number, coverage: 1 - 2 * rank.tail };
}

/** The fewest draws whose median has an interval at `confidence`: 6 at 95%. */
export function fewestDraws(confidence = DEFAULT_CONFIDENCE): number {
  for (let n = 1; n <= MAX_DRAWS; n++) if (lowerRank(n, 1 - confidence) !== undefined) return n;
  throw new RangeError(`no interval at ${confidence} within ${MAX_DRAWS} draws`);
}

/** The largest k >= 1 with 2 P(B < k) <= alpha, B ~ Binomial(n, 1/2), and that tail P(B < k). */
function lowerRank(n: number, alpha: number): { readonly k: number; readonly tail: number } | undefined {
  let found: { k: number; tail: number } | undefined;
  let pmf = 1;
  for (let i = 0; i < n; i++) pmf *= 0.5; // P(B = 0), exact: halving is
  let below = 0; // P(B < k)
  for (let k = 1; k <= Math.ceil(n / 2); k++) {
    below += pmf; // now P(B <= k - 1) = P(B < k)
    if (2 * below > alpha) break;
    found = { k, tail: below };
    pmf *= (n - k + 1) / k; // P(B = k) from P(B = k - 1)
  }
  return found;
}
