/**
 * Randomness for jitter (ARCHITECTURE.md, ports). Real: a seeded or crypto source chosen in src/.
 * Simulated: a named child stream of the run's seed, so one seed replays the same run.
 */
export interface Random {
  /** A float in [0, 1). */
  next(): number;
}

/** An integer in [min, max], inclusive. */
export function randomInt(random: Random, min: number, max: number): number {
  return min + Math.floor(random.next() * (max - min + 1));
}

/** `baseMs` spread uniformly by ±`fraction` of itself; used so waiters do not poll in lock step. */
export function jitteredMs(random: Random, baseMs: number, fraction: number): number {
  return baseMs * (1 - fraction + 2 * fraction * random.next());
}
