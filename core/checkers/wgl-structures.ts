// The data structures of the WGL search (wgl-search.ts): the entry list walked in time order, the set
// of operations that have taken effect, and the cache of (set, state) pairs already explored.
import type { Operation } from './model.js';

/** Adds the taken set under `key` unless an equal set is there; false when it was already there. */
export function remember(cache: Map<string, Snapshot[]>, key: string, taken: TakenSet): boolean {
  const snapshot = taken.snapshot();
  const seen = cache.get(key);
  if (seen === undefined) {
    cache.set(key, [snapshot]);
    return true;
  }
  if (seen.some((other) => sameSnapshot(other, snapshot))) return false;
  seen.push(snapshot);
  return true;
}

/**
 * A taken set as the cache keeps it: the number of leading words with every bit set, and the words
 * after them. The search takes operations roughly in time order, so the leading words fill up and a
 * snapshot stays small even on a key with tens of thousands of operations.
 */
export type Snapshot = { readonly fullWords: number; readonly tail: Uint32Array };

function sameSnapshot(a: Snapshot, b: Snapshot): boolean {
  if (a.fullWords !== b.fullWords || a.tail.length !== b.tail.length) return false;
  for (let i = 0; i < a.tail.length; i += 1) if (a.tail[i] !== b.tail[i]) return false;
  return true;
}

const FULL_WORD = 0xffffffff;

/** The set of operations that have taken effect, with a Zobrist hash kept as bits flip. */
export class TakenSet {
  readonly bits: Uint32Array;
  hash = 0;
  /** Every word below this one is full; the words from it on may or may not be. */
  #fullWords = 0;

  constructor(size: number) {
    this.bits = new Uint32Array((size + 31) >>> 5);
  }

  toggle(op: number): void {
    const word = op >>> 5;
    this.bits[word] = (this.bits[word] as number) ^ (1 << (op & 31));
    this.hash = (this.hash ^ mix32(op)) >>> 0;
    if (word < this.#fullWords && this.bits[word] !== FULL_WORD) this.#fullWords = word;
  }

  snapshot(): Snapshot {
    while (this.#fullWords < this.bits.length && this.bits[this.#fullWords] === FULL_WORD) this.#fullWords += 1;
    return { fullWords: this.#fullWords, tail: this.bits.slice(this.#fullWords) };
  }
}

function compareNumbers(a: number, b: number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** murmur3's finaliser: a well-spread 32-bit value per operation index. */
function mix32(value: number): number {
  let h = (value + 0x9e3779b9) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Entries 0..n-1 are calls, n..2n-1 returns, 2n the head and 2n+1 the tail. Only the operations
 * `linked` names are in the list. Lifting an operation unlinks both its entries; unlifting in reverse
 * order relinks them (dancing links).
 */
export class EntryList {
  readonly #n: number;
  readonly #next: Int32Array;
  readonly #prev: Int32Array;

  constructor(ops: readonly Operation<unknown, unknown>[], linked: (op: number) => boolean) {
    const n = ops.length;
    this.#n = n;
    const time = (entry: number): number => (entry < n ? (ops[entry] as Operation<unknown, unknown>).callTime : (ops[entry - n] as Operation<unknown, unknown>).returnTime);
    const order = Array.from({ length: 2 * n }, (_, entry) => entry).filter((entry) => linked(entry % n));
    // A call before a return at equal times: ties count as concurrent.
    order.sort((a, b) => compareNumbers(time(a), time(b)) || Number(a >= n) - Number(b >= n) || (a % n) - (b % n));
    this.#next = new Int32Array(2 * n + 2);
    this.#prev = new Int32Array(2 * n + 2);
    let previous = 2 * n;
    for (const entry of [...order, 2 * n + 1]) {
      this.#next[previous] = entry;
      this.#prev[entry] = previous;
      previous = entry;
    }
  }

  first(): number {
    return this.#next[2 * this.#n] as number;
  }

  next(entry: number): number {
    return this.#next[entry] as number;
  }

  isCall(entry: number): boolean {
    return entry < this.#n;
  }

  operationOf(entry: number): number {
    if (entry >= 2 * this.#n) throw new Error('wgl: walked off the end of the entry list');
    return entry < this.#n ? entry : entry - this.#n;
  }

  lift(op: number): void {
    this.#unlink(op);
    this.#unlink(op + this.#n);
  }

  unlift(op: number): void {
    this.#relink(op + this.#n);
    this.#relink(op);
  }

  #unlink(entry: number): void {
    const before = this.#prev[entry] as number;
    const after = this.#next[entry] as number;
    this.#next[before] = after;
    this.#prev[after] = before;
  }

  #relink(entry: number): void {
    this.#next[this.#prev[entry] as number] = entry;
    this.#prev[this.#next[entry] as number] = entry;
  }
}
