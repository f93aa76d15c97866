// An ordered set of keys for range scans: etcd keeps its key index in a B-tree (mvcc/index.go). This is a
// list of sorted chunks, which gives the same O(log n) search and cheap inserts without a tree's code: a
// simulation creates millions of unique keys (`/q/<key>/<leaseId>`), so a single sorted array, whose
// inserts move every later key, would grow quadratic.
import { compareKeys } from './key-order.js';

/** Chunks split above twice this size and are dropped when empty. */
const CHUNK_TARGET_SIZE = 512;

export class SortedKeySet {
  private chunks: string[][] = [];
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** Adds a key that is not in the set (the caller's Map knows). */
  add(key: string): void {
    this.count++;
    const chunkIndex = this.chunkFor(key);
    const chunk = this.chunks[chunkIndex];
    if (chunk === undefined) {
      this.chunks.push([key]);
      return;
    }
    chunk.splice(lowerBound(chunk, key), 0, key);
    if (chunk.length > 2 * CHUNK_TARGET_SIZE) {
      this.chunks.splice(chunkIndex + 1, 0, chunk.splice(CHUNK_TARGET_SIZE));
    }
  }

  delete(key: string): boolean {
    const chunkIndex = this.chunkFor(key);
    const chunk = this.chunks[chunkIndex];
    if (chunk === undefined) return false;
    const at = lowerBound(chunk, key);
    if (chunk[at] !== key) return false;
    chunk.splice(at, 1);
    if (chunk.length === 0) this.chunks.splice(chunkIndex, 1);
    this.count--;
    return true;
  }

  /** Keys >= start in byte order; the set must not change while the iterator is in use. */
  *from(start: string): Generator<string, void, undefined> {
    let chunkIndex = this.chunkFor(start);
    const first = this.chunks[chunkIndex];
    if (first === undefined) return;
    for (let i = lowerBound(first, start); i < first.length; i++) yield first[i] as string;
    for (chunkIndex++; chunkIndex < this.chunks.length; chunkIndex++) {
      yield* this.chunks[chunkIndex] as string[];
    }
  }

  /** Every key in byte order. */
  all(): Generator<string, void, undefined> {
    return this.from('');
  }

  /** The last chunk whose first key is <= key (0 when key precedes them all). */
  /** An independent copy (the chunks are copied; the keys are immutable strings). */
  copy(): SortedKeySet {
    const copy = new SortedKeySet();
    copy.chunks = this.chunks.map((chunk) => chunk.slice());
    copy.count = this.count;
    return copy;
  }

  private chunkFor(key: string): number {
    let low = 0;
    let high = this.chunks.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      const head = (this.chunks[mid] as string[])[0] as string;
      if (compareKeys(head, key) <= 0) low = mid;
      else high = mid - 1;
    }
    return low;
  }
}

/** The first index whose key is >= key. */
function lowerBound(sorted: readonly string[], key: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareKeys(sorted[mid] as string, key) < 0) low = mid + 1;
    else high = mid;
  }
  return low;
}
