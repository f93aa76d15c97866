// The run's randomness: one seed, split into named child streams, one per component
// (ARCHITECTURE.md, "Kernel"). A stream's generator is seeded from FNV-1a 64 of (seed, name), so a
// stream's draws depend only on the run seed and its own name: adding a component, or drawing more in
// one, never shifts another's draws. Generator: seedrandom's alea (fast, passes BigCrush), one draw per
// next(); its resolution is 2^-32, plenty for jitter, latencies and fault coin-flips.
import seedrandom from 'seedrandom';
import type { Random } from '../../core/ports/random.js';
import { fnv1a64Hex } from '../trace/fnv64.js';

/** A named, independent stream of uniform floats; implements core's Random port. */
export class RandomStream implements Random {
  private readonly generator: () => number;
  private drawCount = 0;

  constructor(readonly name: string, derivedSeed: string) {
    this.generator = seedrandom.alea(derivedSeed);
  }

  /** A float in [0, 1). */
  next(): number {
    this.drawCount++;
    return this.generator();
  }

  /** An integer in [min, max], inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p` (always draws once, so the stream's position never depends on p). */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A uniformly chosen element; the array must not be empty. */
  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError(`RandomStream ${this.name}: pick from an empty array`);
    return items[this.int(0, items.length - 1)] as T;
  }

  /** How many draws this stream has made (for diagnostics and tests). */
  get draws(): number {
    return this.drawCount;
  }
}

/** The root of a run's randomness. */
export class Rng {
  private readonly streams = new Map<string, RandomStream>();

  constructor(readonly seed: string) {}

  /**
   * The stream named `name` (e.g. 'net/link/a->b', 'disk/etcd-1', 'raft/etcd-1/election'). The same
   * name returns the same stream object; use one name per component, so components never share draws.
   */
  stream(name: string): RandomStream {
    let stream = this.streams.get(name);
    if (stream === undefined) {
      stream = new RandomStream(name, deriveSeed(this.seed, name));
      this.streams.set(name, stream);
    }
    return stream;
  }

  /** Names of the streams made so far, in creation order. */
  streamNames(): readonly string[] {
    return [...this.streams.keys()];
  }
}

/** The seed of a child stream: FNV-1a 64 over the length-prefixed seed and name (so no two pairs collide by concatenation). */
export function deriveSeed(seed: string, name: string): string {
  return fnv1a64Hex(`${seed.length}:${seed}|${name}`);
}
