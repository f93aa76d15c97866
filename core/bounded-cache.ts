// A bounded memo for pure functions on hot paths (issue 16): every grant parses its key and formats and
// parses holder values, and a workload reuses a few thousand keys and sessions. At most `capacity`
// entries; when full, the oldest insertion goes first. Only for functions whose result depends on the
// key alone, so a hit is the value a fresh call would return. An object result is frozen as it is
// cached: one caller mutating it would change what every later caller (another simulated world in the
// same process, say) is handed, so that programmer error throws instead.
export class BoundedCache<K, V> {
  private readonly entries = new Map<K, V>();

  constructor(private readonly capacity: number) {
    if (!(Number.isInteger(capacity) && capacity > 0)) throw new RangeError(`BoundedCache: capacity must be a positive integer, got ${capacity}`);
  }

  get size(): number {
    return this.entries.size;
  }

  /** The cached value of `key`, or `compute(key)` (cached; the oldest entry goes if the cache is full). */
  get(key: K, compute: (key: K) => V): V {
    const known = this.entries.get(key);
    if (known !== undefined || this.entries.has(key)) return known as V;
    const value = compute(key);
    if (typeof value === 'object' && value !== null) Object.freeze(value);
    if (this.entries.size >= this.capacity) this.entries.delete(this.entries.keys().next().value as K);
    this.entries.set(key, value);
    return value;
  }
}
