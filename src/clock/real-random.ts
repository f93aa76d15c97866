// Real Random sources (ARCHITECTURE.md, ports): a seeded one, so a real run's jitter can be replayed, and
// a crypto one for production, where nothing should be guessable. core/ only sees the Random port.
import { webcrypto } from 'node:crypto';
import seedrandom from 'seedrandom';
import type { Random } from '../../core/ports/random.js';

/** A deterministic stream for `seed` (seedrandom's ARC4 generator): the same seed gives the same floats. */
export function createSeededRandom(seed: string): Random {
  const generator = seedrandom(seed);
  return { next: () => generator.double() };
}

const TWO_POW_21 = 2 ** 21;
const TWO_POW_53 = 2 ** 53;

/** Floats in [0, 1) with 53 random bits each, from the OS's CSPRNG. */
export function createCryptoRandom(): Random {
  const words = new Uint32Array(2);
  return {
    next: () => {
      webcrypto.getRandomValues(words);
      const high = words[0] ?? 0; // 32 bits
      const low = (words[1] ?? 0) >>> 11; // 21 bits
      return (high * TWO_POW_21 + low) / TWO_POW_53;
    },
  };
}
