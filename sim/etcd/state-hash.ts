// A small deterministic 64-bit hash (two FNV-1a lanes with different offsets and primes, then a murmur
// finaliser each) for state digests. Not cryptographic: it tells two members' states apart in tests and in
// the Raft-safety checks, the way etcd's HashKV is used to spot diverging members (mvcc/kvstore.go HashByRev).

export class StateHash {
  private low = 0x811c9dc5;
  private high = 0x01000193 ^ 0x5bd1e995;

  /** A hash that goes on from this one's state. */
  copy(): StateHash {
    const copy = new StateHash();
    copy.low = this.low;
    copy.high = this.high;
    return copy;
  }

  /** Folds a string in, then a separator, so ("ab","c") and ("a","bc") differ. */
  update(text: string): this {
    return this.fold(text).separate();
  }

  /**
   * Folds `text` in with no separator: fold(a).fold(b).separate() is update(a + b), without building
   * the joined string (the store folds every committed event in this way).
   */
  fold(text: string): this {
    let low = this.low;
    let high = this.high;
    for (let i = 0; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      low = Math.imul(low ^ unit, 0x01000193);
      high = Math.imul(high ^ unit, 0x5bd1e995) ^ (high >>> 15);
    }
    this.low = low;
    this.high = high;
    return this;
  }

  /** Ends what fold() began, as update() ends its text: the separator. */
  separate(): this {
    this.low = Math.imul(this.low ^ 0x1f, 0x01000193);
    this.high = Math.imul(this.high ^ 0x1f, 0x5bd1e995) ^ (this.high >>> 15);
    return this;
  }

  /** 16 hex digits; does not change the running state. */
  hex(): string {
    return finalise(this.high).toString(16).padStart(8, '0') + finalise(this.low).toString(16).padStart(8, '0');
  }
}

function finalise(value: number): number {
  let h = value;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export const hashOf = (...parts: readonly string[]): string => {
  const hash = new StateHash();
  for (const part of parts) hash.update(part);
  return hash.hex();
};
