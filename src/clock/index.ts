// Real implementations of core's Clock and Random ports.
import type { Random } from '../../core/ports/random.js';
import { createRealClock } from './real-clock.js';
import { createCryptoRandom, createSeededRandom } from './real-random.js';

export { createCryptoRandom, createRealClock, createSeededRandom };
export { sleepMs } from './real-clock.js';

/** The process's real clock (the same as createRealClock). */
export const realClock = createRealClock;

/** Production randomness: the crypto source, or a seeded one when a real run must be replayable. */
export function realRandom(seed?: string): Random {
  return seed === undefined ? createCryptoRandom() : createSeededRandom(seed);
}
