// A binomial proportion's interval (issue 32): the share of injected keepalive delays that fenced a
// holder, measured on real processes, beside the share `lockstep ttl` predicts. Wilson's score interval
// rather than the normal approximation: it stays inside 0..1 and is honest at 0 or n successes and at
// the few dozen trials a measurement on a shared machine affords.

/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

export interface ProportionInterval {
  readonly successes: number;
  readonly trials: number;
  /** successes / trials; NaN with no trials. */
  readonly share: number;
  readonly low: number;
  readonly high: number;
}

/** Wilson's score interval for `successes` of `trials` at confidence z (default 95%); 0..1 with no trials. */
export function wilsonInterval(successes: number, trials: number, z = Z_95): ProportionInterval {
  if (!(Number.isInteger(trials) && trials >= 0 && Number.isInteger(successes) && successes >= 0 && successes <= trials)) {
    throw new RangeError(`wilsonInterval: ${successes} successes of ${trials} trials is not a count`);
  }
  if (trials === 0) return { successes, trials, share: Number.NaN, low: 0, high: 1 };
  const p = successes / trials;
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials));
  // At 0 or n successes the score interval touches the edge exactly; rounding must not move it inside.
  return { successes, trials, share: p, low: successes === 0 ? 0 : Math.max(0, centre - half), high: successes === trials ? 1 : Math.min(1, centre + half) };
}

/** Whether `share` lies within the interval (ends included). */
export function withinInterval(interval: ProportionInterval, share: number): boolean {
  return share >= interval.low && share <= interval.high;
}
