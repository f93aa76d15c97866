// The run's trace (ARCHITECTURE.md, "Trace"): one record per message, fsync, fault and component event,
// stamped with true time and the process it concerns. Its 64-bit FNV-1a hash over a canonical text is
// the determinism check: one seed, one hash, on any machine. The hash is computed as records arrive, so
// a long run keeps no records unless asked (`keepRecords`, for the visualiser), and then only up to a
// named bound. A run whose hash nobody reads (an explorer run that passes, issue 16) can leave the
// hashing out (`hash: false`, about 30% of such a run's CPU); its records still reach listeners and the
// kept list, and hash() refuses rather than answer. A listener may ask for some kinds only
// (subscribe's `kinds`): a trace that neither hashes nor keeps then tells hot callers, through
// includes(), which records nobody would see, and they skip building them (issue 16: the explorer's
// unhashed runs build no per-message records for listeners that want a handful of kinds).
import { writeCanonicalFields, type KeyPlan } from './canonical.js';
import { Fnv1a64 } from './fnv64.js';

export interface TraceRecord {
  /** Position in the trace, from 0. */
  readonly index: number;
  /** True (simulator) time, ms. */
  readonly timeMs: number;
  /** The process the record concerns; '' for the world itself (kernel, network-wide faults). */
  readonly process: string;
  /** Dotted kind, component first: 'net.send', 'disk.fsync.done', 'process.crash', 'raft.commit'. */
  readonly kind: string;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface TraceOptions {
  /** Keep every record in memory (for viz and debugging). Default false: only the hash is kept. */
  readonly keepRecords?: boolean;
  /** Bound on kept records; exceeding it is an error naming this option. Default 1,000,000. */
  readonly maxKeptRecords?: number;
  /**
   * Kinds neither hashed nor kept (nor counted). Default none. A long capacity run can leave out the
   * per-message records ('net.send', 'net.deliver', 'raft.send'), about 60% of a busy cluster's trace,
   * and keep a determinism check over everything else; the hash then depends on this list too.
   */
  readonly omitKinds?: readonly string[];
  /**
   * Told of every record from the first on, as subscribe() would be had it been called before the kernel
   * made its first record (the timeline capture, scenarios/timeline-capture.ts). Listeners never change the hash.
   */
  readonly listener?: TraceListener;
  /**
   * Hash the records (default true). False: records are counted, kept and told to listeners as ever,
   * but not hashed, and hash() throws: for a run whose hash nobody reads (the explorer's passing runs,
   * issue 16); a run that needs its hash (an artifact) is run again with hashing.
   */
  readonly hash?: boolean;
}

export type TraceListener = (record: TraceRecord) => void;

export interface SubscribeOptions {
  /** Only these kinds reach the listener. Default: every kind. */
  readonly kinds?: readonly string[];
}

interface Subscription {
  readonly listener: TraceListener;
  /** Undefined: every kind. */
  readonly kinds: ReadonlySet<string> | undefined;
}

interface KindEntry {
  readonly quoted: string;
  plan: KeyPlan | undefined;
}

export const DEFAULT_MAX_KEPT_RECORDS = 1_000_000;
/** Bound on cached quoted kinds and process names (they are few; the cache only saves work). */
const MAX_QUOTED_NAMES = 4096;
const BAR = 0x7c; // '|'
const NEWLINE = 0x0a;
const NO_FIELDS: Readonly<Record<string, unknown>> = Object.freeze({});

export class Trace {
  /** Undefined when the trace was made with `hash: false`. */
  private readonly hasher: Fnv1a64 | undefined;
  private readonly kept: TraceRecord[] | undefined;
  private readonly maxKeptRecords: number;
  private readonly subscriptions: Subscription[] = [];
  /** Subscriptions that take every kind. */
  private allKindsListeners = 0;
  /** Per kind, the subscriptions that asked for it by name. */
  private readonly kindListeners = new Map<string, number>();
  private recordCount = 0;
  private readonly quotedNames = new Map<string, string>();
  /** Per kind: its quoted text and the key plan of its last record (canonical.ts writeCanonicalFields). */
  private readonly kinds = new Map<string, KindEntry>();
  private readonly omitted: ReadonlySet<string> | undefined;
  private lastTimeMs = Number.NaN;
  private lastTimeText = '';

  /** `nowMs` reads true time; the kernel passes its own. */
  constructor(private readonly nowMs: () => number, options: TraceOptions = {}) {
    this.hasher = options.hash === false ? undefined : new Fnv1a64();
    this.kept = options.keepRecords === true ? [] : undefined;
    this.maxKeptRecords = options.maxKeptRecords ?? DEFAULT_MAX_KEPT_RECORDS;
    this.omitted = options.omitKinds === undefined || options.omitKinds.length === 0 ? undefined : new Set(options.omitKinds);
    if (options.listener !== undefined) this.subscribe(options.listener);
  }

  /**
   * Appends a record at the current true time. `fields` must be plain data (see canonical.ts);
   * key order does not matter to the hash.
   */
  record(kind: string, fields: Readonly<Record<string, unknown>> = NO_FIELDS, process = ''): void {
    if (this.omitted?.has(kind) === true) return;
    const index = this.recordCount++;
    const hasher = this.hasher;
    const listened = this.listenedTo(kind);
    if (hasher === undefined && this.kept === undefined && !listened) return;
    const timeMs = this.nowMs();
    if (hasher !== undefined) this.hashLine(hasher, index, timeMs, process, kind, fields);
    if (this.kept === undefined && !listened) return;
    const entry: TraceRecord = { index, timeMs, process, kind, fields };
    if (this.kept !== undefined) {
      if (this.kept.length >= this.maxKeptRecords) {
        throw new Error(`trace: more than maxKeptRecords (${this.maxKeptRecords}) records kept; raise TraceOptions.maxKeptRecords or run with keepRecords: false (the hash needs no records)`);
      }
      this.kept.push(entry);
    }
    if (!listened) return;
    for (const { listener, kinds } of this.subscriptions) if (kinds === undefined || kinds.has(kind)) listener(entry);
  }

  // The canonical line: index, time, process and kind, then the fields; JSON-quoted strings keep the
  // separators unambiguous. It is fed to the hash in fragments (the hash of the fragments in order is
  // the hash of the line), so no line is ever built; quoted kinds and process names are cached.
  private hashLine(hasher: Fnv1a64, index: number, timeMs: number, process: string, kind: string, fields: Readonly<Record<string, unknown>>): void {
    hasher.updateUint(index);
    hasher.updateByte(BAR);
    this.hashTime(hasher, timeMs);
    hasher.updateByte(BAR);
    hasher.updateString(this.quoted(process));
    hasher.updateByte(BAR);
    let kindEntry = this.kinds.get(kind);
    if (kindEntry === undefined) {
      kindEntry = { quoted: JSON.stringify(kind), plan: undefined };
      if (this.kinds.size < MAX_QUOTED_NAMES) this.kinds.set(kind, kindEntry);
    }
    hasher.updateString(kindEntry.quoted);
    hasher.updateByte(BAR);
    kindEntry.plan = writeCanonicalFields(fields, hasher, kindEntry.plan);
    hasher.updateByte(NEWLINE);
  }

  // Many records share a time (one event writes several), and a fractional time is costly to spell,
  // so the last time's text is kept.
  private hashTime(hasher: Fnv1a64, timeMs: number): void {
    if (timeMs >= 0 && timeMs <= Number.MAX_SAFE_INTEGER && Math.floor(timeMs) === timeMs) {
      hasher.updateUint(timeMs);
      return;
    }
    if (timeMs !== this.lastTimeMs) {
      this.lastTimeMs = timeMs;
      this.lastTimeText = Number.isFinite(timeMs) ? String(timeMs) : JSON.stringify(timeMs);
    }
    hasher.updateString(this.lastTimeText);
  }

  private quoted(text: string): string {
    let quoted = this.quotedNames.get(text);
    if (quoted === undefined) {
      quoted = JSON.stringify(text);
      if (this.quotedNames.size < MAX_QUOTED_NAMES) this.quotedNames.set(text, quoted);
    }
    return quoted;
  }

  /**
   * False when a record of `kind` would reach nothing: the kind is omitted, or the trace neither hashes
   * nor keeps and no listener takes it. A hot caller checks it before building the fields of a record
   * that would be thrown away. A record so left out is not counted (`count`, `index`), though record()
   * counts every record it is given.
   */
  includes(kind: string): boolean {
    if (this.omitted !== undefined && this.omitted.has(kind)) return false;
    return this.hasher !== undefined || this.kept !== undefined || this.listenedTo(kind);
  }

  /** Some subscription takes records of `kind` (record() and includes() ask this one rule). */
  private listenedTo(kind: string): boolean {
    return this.allKindsListeners > 0 || this.kindListeners.has(kind);
  }

  /** The hash of every record so far: 16 hex digits of FNV-1a 64 over the canonical lines; an error if the trace was made with `hash: false`. */
  hash(): string {
    if (this.hasher === undefined) {
      throw new Error('trace: this trace was made with hash: false and has no hash; run again with hashing on (TraceOptions.hash, the default) to get one');
    }
    return this.hasher.hex();
  }

  /** False when the trace was made with `hash: false` (hash() would throw). */
  get hashing(): boolean {
    return this.hasher !== undefined;
  }

  /** How many records have been appended. */
  get count(): number {
    return this.recordCount;
  }

  /** The kept records; an error if the trace was made without `keepRecords`. */
  records(): readonly TraceRecord[] {
    if (this.kept === undefined) {
      throw new Error('trace: records were not kept; construct the kernel with trace: { keepRecords: true }');
    }
    return this.kept;
  }

  /**
   * Calls `listener` for every later record (e.g. to stream them to a viewer), or only for those of
   * `options.kinds`; returns an unsubscribe. A listener that wants a few kinds should name them: hot
   * callers then skip the others in a trace that neither hashes nor keeps (includes()).
   */
  subscribe(listener: TraceListener, options: SubscribeOptions = {}): () => void {
    const subscription: Subscription = { listener, kinds: options.kinds === undefined ? undefined : new Set(options.kinds) };
    this.subscriptions.push(subscription);
    this.tally(subscription, 1);
    return () => {
      const at = this.subscriptions.indexOf(subscription);
      if (at < 0) return;
      this.subscriptions.splice(at, 1);
      this.tally(subscription, -1);
    };
  }

  private tally(subscription: Subscription, by: 1 | -1): void {
    if (subscription.kinds === undefined) {
      this.allKindsListeners += by;
      return;
    }
    for (const kind of subscription.kinds) {
      const listeners = (this.kindListeners.get(kind) ?? 0) + by;
      if (listeners === 0) this.kindListeners.delete(kind);
      else this.kindListeners.set(kind, listeners);
    }
  }
}
