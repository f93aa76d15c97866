// A run's seed, as every way in gives it (`lockstep run --seed`, an artifact to replay, the web runner's
// field): a whole number from 0 to 2^53 - 1 in plain decimal. Every random choice of the run derives from
// the seed's text, so two spellings of one number ("7", "007", "7.0") would be two different runs behind
// one replay command; the rule keeps one spelling per run. The explorer's seeds are such numbers too.
export const MAX_SEED = Number.MAX_SAFE_INTEGER;

export class SeedError extends RangeError {
  constructor(label: string, text: unknown) {
    super(`${label} ${JSON.stringify(text) ?? String(text)} is not a seed; give a whole number from 0 to ${MAX_SEED} without sign, point or leading zeros, e.g. 7`);
    this.name = 'SeedError';
  }
}

/** The seed `text` names (trimmed), or a SeedError naming the rule; `label` names where it came from ("--seed"). */
export function checkSeed(text: unknown, label = 'seed'): string {
  const seed = typeof text === 'string' ? text.trim() : '';
  if (!/^(0|[1-9]\d*)$/.test(seed) || Number(seed) > MAX_SEED) throw new SeedError(label, text);
  return seed;
}
