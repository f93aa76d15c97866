// Latency distributions as plain data (JSON-serialisable), so a measured profile can replace a guessed
// one without code: network links and disks take a DistributionSpec. Every distribution is sampled by
// its quantile function applied to exactly one uniform draw. One draw per sample, whatever the kind,
// keeps a stream's position independent of which distribution a run configures.
// ln and exp are the portable ones: the same seed gives the same draws in node and in a browser.
import { exp, ln } from './portable-math.js';

export type DistributionSpec =
  /** Always `ms`. */
  | { readonly kind: 'constant'; readonly ms: number }
  /** Uniform on [minMs, maxMs]. */
  | { readonly kind: 'uniform'; readonly minMs: number; readonly maxMs: number }
  /** Lognormal fitted by two quantiles: 50% of draws below medianMs, 99% below p99Ms. */
  | { readonly kind: 'lognormal'; readonly medianMs: number; readonly p99Ms: number }
  /** Measured samples: the empirical quantile function, linearly interpolated between sorted samples. */
  | { readonly kind: 'empirical'; readonly samplesMs: readonly number[] };

/** A quantile function: maps a uniform u in [0, 1) to a duration in ms. */
export type Quantile = (u: number) => number;

/** z such that P(Z < z) = 0.99 for a standard normal Z. */
const Z_P99 = 2.3263478740408408;

/**
 * Validates a spec and returns its quantile function. `where` names the spec in errors
 * (e.g. "link a->b latency"), so a bad profile says which field to fix.
 */
export function compileDistribution(spec: DistributionSpec, where = 'distribution'): Quantile {
  switch (spec.kind) {
    case 'constant': {
      requireNonNegative(spec.ms, `${where}: constant.ms`);
      const ms = spec.ms;
      return () => ms;
    }
    case 'uniform': {
      requireNonNegative(spec.minMs, `${where}: uniform.minMs`);
      requireNonNegative(spec.maxMs, `${where}: uniform.maxMs`);
      if (spec.maxMs < spec.minMs) throw new RangeError(`${where}: uniform.maxMs (${spec.maxMs}) must be >= minMs (${spec.minMs})`);
      const { minMs } = spec;
      const spanMs = spec.maxMs - spec.minMs;
      return (u) => minMs + u * spanMs;
    }
    case 'lognormal':
      return compileLognormal(spec.medianMs, spec.p99Ms, where);
    case 'empirical':
      return compileEmpirical(spec.samplesMs, where);
    default: {
      const unknown: { kind?: unknown } = spec;
      throw new RangeError(`${where}: unknown distribution kind ${JSON.stringify(unknown.kind)}; use constant, uniform, lognormal or empirical`);
    }
  }
}

function compileLognormal(medianMs: number, p99Ms: number, where: string): Quantile {
  if (!(medianMs > 0 && Number.isFinite(medianMs))) throw new RangeError(`${where}: lognormal.medianMs must be a positive number, got ${medianMs}`);
  if (!(p99Ms >= medianMs && Number.isFinite(p99Ms))) throw new RangeError(`${where}: lognormal.p99Ms (${p99Ms}) must be >= medianMs (${medianMs})`);
  const mu = ln(medianMs);
  const sigma = (ln(p99Ms) - mu) / Z_P99;
  return (u) => exp(mu + sigma * standardNormalQuantile(u));
}

function compileEmpirical(samplesMs: readonly number[], where: string): Quantile {
  if (samplesMs.length === 0) throw new RangeError(`${where}: empirical.samplesMs must hold at least one sample`);
  samplesMs.forEach((sample, i) => requireNonNegative(sample, `${where}: empirical.samplesMs[${i}]`));
  const sorted = Float64Array.from(samplesMs).sort();
  const last = sorted.length - 1;
  return (u) => {
    const position = u * last;
    const below = Math.floor(position);
    const low = sorted[below]!;
    if (below >= last) return low;
    return low + (position - below) * (sorted[below + 1]! - low);
  };
}

function requireNonNegative(value: number, what: string): void {
  if (!(value >= 0 && Number.isFinite(value))) throw new RangeError(`${what} must be a finite number >= 0, got ${value}`);
}

// Acklam's rational approximation of the standard normal quantile (relative error < 1.2e-9), which
// needs only one uniform per draw, unlike Box-Muller's two.
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239] as const;
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1] as const;
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783] as const;
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416] as const;
const P_LOW = 0.02425;
/** Draws of exactly 0 (probability 2^-32) are nudged in, so the quantile stays finite. */
const U_MIN = 2 ** -53;

/** The standard normal quantile of u in (0, 1); u outside is clamped to the nearest finite value. */
export function standardNormalQuantile(u: number): number {
  const p = Math.min(Math.max(u, U_MIN), 1 - U_MIN);
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * ln(p));
    return (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
  }
  if (p <= 1 - P_LOW) {
    const q = p - 0.5;
    const r = q * q;
    return ((((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q) / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1);
  }
  const q = Math.sqrt(-2 * ln(1 - p));
  return -(((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
}
