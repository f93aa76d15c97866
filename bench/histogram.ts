// Latency histograms for the bench (HdrHistogram, through hdr-histogram-js): values are recorded as
// whole microseconds with three significant digits, so a percentile is within 0.1% of the true sample
// whatever its size, and a run of millions of operations costs a fixed few kilobytes.
import { type Histogram, build } from 'hdr-histogram-js';

/** One histogram's headline figures, in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
}

/** 10 minutes: anything slower is recorded as this (etcd's own request timeout is 7 s). */
const HIGHEST_TRACKABLE_US = 600_000_000;
const US_PER_MS = 1000;

export class LatencyHistogram {
  private readonly histogram: Histogram = build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_US,
    numberOfSignificantValueDigits: 3,
    autoResize: false,
  });

  /** Records one latency given in (fractional) milliseconds. */
  record(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`a latency must be a finite number of ms >= 0, got ${ms}`);
    this.histogram.recordValue(Math.min(HIGHEST_TRACKABLE_US, Math.max(1, Math.round(ms * US_PER_MS))));
  }

  get count(): number {
    return this.histogram.totalCount;
  }

  /** p50/p99/p99.9/max/mean; all zero when nothing was recorded (count says so). */
  summary(): LatencySummary {
    const h = this.histogram;
    if (h.totalCount === 0) return { count: 0, p50Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0, meanMs: 0 };
    const ms = (us: number) => round3(us / US_PER_MS);
    return {
      count: h.totalCount,
      p50Ms: ms(h.getValueAtPercentile(50)),
      p99Ms: ms(h.getValueAtPercentile(99)),
      p999Ms: ms(h.getValueAtPercentile(99.9)),
      maxMs: ms(h.maxValue),
      meanMs: ms(h.mean),
    };
  }
}

/** Three decimals: microsecond resolution, which is what the histogram keeps. */
export function round3(value: number): number {
  return Math.round(value * 1000) / 1000;
}
