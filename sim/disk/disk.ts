// A process's disk (ARCHITECTURE.md, "Disks"): an append-only log of entries and fsyncs that make
// them durable. fsyncs on one disk serialise: each waits for the one before it, then takes a latency
// drawn (one draw per fsync) from the disk's own stream 'disk/<process>/<name>'. A stall holds the
// device until a true time: an fsync in flight completes no earlier than the stall's end, and queued
// ones start after it. This is how a slow disk leaves an etcd leader's raft loop stuck while it still
// answers keepalives.
//
// An fsync makes durable every entry written before it was issued; its callback then runs in the
// process (held while it is paused, dropped if it crashed). The device works on during a pause: data
// becomes durable on time, only the callback waits. At a crash, queued and in-flight fsyncs are
// dropped with the process's memory, and unsynced entries survive a process crash (the operating
// system still holds them in its page cache and writes them back) but are lost on `powerLoss`.
import type { Kernel } from '../kernel/kernel.js';
import { compileDistribution, type DistributionSpec, type Quantile } from '../kernel/distribution.js';
import type { RandomStream } from '../kernel/rng.js';
import type { SimProcess } from '../process/process.js';

export interface DiskOptions {
  /** fsync latency. */
  readonly fsyncLatency: DistributionSpec;
  /** Name within the process, for traces and the RNG stream. Default 'disk'. */
  readonly name?: string;
  /** Bound on fsyncs queued or in flight; exceeding it is an error naming it. Default 100,000. */
  readonly maxQueuedFsyncs?: number;
}

interface FsyncRequest {
  readonly id: number;
  /** Entries [0, coversUpTo) become durable when it completes. */
  readonly coversUpTo: number;
  readonly onDurable: (() => unknown) | undefined;
  readonly incarnation: number;
}

interface InFlight {
  readonly request: FsyncRequest;
  readonly startedAtMs: number;
  completeAtMs: number;
  eventId: number;
}

export const DEFAULT_MAX_QUEUED_FSYNCS = 100_000;

export class Disk<E = unknown> {
  readonly name: string;
  private readonly kernel: Kernel;
  private readonly latency: Quantile;
  private readonly stream: RandomStream;
  private readonly maxQueuedFsyncs: number;
  private entries: E[] = [];
  /**
   * Entries before this position were replaced by the entry now at entries[0] (replacePrefix): positions
   * (durableCount, fsync coverage, the trace's `durable`) count every entry ever written, so a
   * compaction of the log leaves them as they were.
   */
  private base = 0;
  private durableCount = 0;
  private queue: FsyncRequest[] = [];
  private inFlight: InFlight | undefined;
  /** The kernel event that starts the next fsync when a stall ends, or -1. */
  private startEventId = -1;
  private stalledUntil = 0;
  private nextFsyncId = 0;

  constructor(readonly process: SimProcess, options: DiskOptions) {
    this.kernel = process.kernel;
    this.name = options.name ?? 'disk';
    this.latency = compileDistribution(options.fsyncLatency, `disk ${process.name}/${this.name}: fsyncLatency`);
    this.stream = this.kernel.rng.stream(`disk/${process.name}/${this.name}`);
    this.maxQueuedFsyncs = options.maxQueuedFsyncs ?? DEFAULT_MAX_QUEUED_FSYNCS;
    process.onCrash((_, { powerLoss }) => this.onProcessCrash(powerLoss));
  }

  /** Appends an entry; it is durable once an fsync issued after this write completes. */
  write(entry: E): void {
    if (this.process.state === 'crashed') throw new Error(`disk ${this.process.name}/${this.name}: write while the process is crashed`);
    this.entries.push(entry);
  }

  /** Issues an fsync; `onDurable` runs in the process when every entry written so far is durable. Returns its id. */
  fsync(onDurable?: () => unknown): number {
    if (this.process.state === 'crashed') throw new Error(`disk ${this.process.name}/${this.name}: fsync while the process is crashed`);
    if (this.queuedFsyncs >= this.maxQueuedFsyncs) {
      throw new Error(`disk ${this.process.name}/${this.name}: more than maxQueuedFsyncs (${this.maxQueuedFsyncs}) fsyncs queued; raise DiskOptions.maxQueuedFsyncs or batch writes per fsync`);
    }
    const id = this.nextFsyncId++;
    this.queue.push({ id, coversUpTo: this.base + this.entries.length, onDurable, incarnation: this.process.incarnation });
    const trace = this.kernel.trace;
    if (trace.includes('disk.fsync.issue')) trace.record('disk.fsync.issue', { disk: this.name, id, queued: this.queuedFsyncs }, this.process.name);
    this.startNext();
    return id;
  }

  /** fsync as a promise for async code; it never settles if the process crashes first. */
  sync(): Promise<void> {
    const deferred = this.kernel.deferred<void>();
    this.fsync(() => deferred.resolve());
    return deferred.promise;
  }

  /** Holds the device until true time `untilMs`: no fsync completes or starts before it. */
  stall(untilMs: number): void {
    if (!(untilMs > this.stalledUntil)) return;
    this.stalledUntil = untilMs;
    this.kernel.trace.record('disk.stall', { disk: this.name, untilMs }, this.process.name);
    const inFlight = this.inFlight;
    if (inFlight !== undefined && inFlight.completeAtMs < untilMs) {
      this.kernel.cancel(inFlight.eventId);
      inFlight.completeAtMs = untilMs;
      inFlight.eventId = this.kernel.schedule(untilMs, this.completeNow);
    }
    if (this.startEventId >= 0) {
      this.kernel.cancel(this.startEventId);
      this.startEventId = this.kernel.schedule(untilMs, this.startFromStall);
    }
  }

  /** True time until which the device is stalled (0 if never). */
  get stalledUntilMs(): number {
    return this.stalledUntil;
  }

  /** Entries that survive any crash. */
  get durableEntries(): readonly E[] {
    return this.entries.slice(0, this.durableCount - this.base);
  }

  /**
   * Replaces the first `count` entries written (all durable) by one durable entry, as etcd's WAL purge
   * drops the files a snapshot made unnecessary (issue 16): the caller passes what stands for them (for
   * the WAL, a snapshot record carrying the entries it still needs). Positions do not move.
   */
  replacePrefix(count: number, replacement: E): void {
    if (!(Number.isInteger(count) && count > this.base && count <= this.durableCount)) {
      throw new RangeError(`disk ${this.process.name}/${this.name}: replacePrefix(${count}) must cover more than the ${this.base} entries already replaced and only durable ones (${this.durableCount})`);
    }
    this.entries = [replacement, ...this.entries.slice(count - this.base)];
    this.base = count - 1;
  }

  /** Every entry written and not lost (durable first, then unsynced). */
  get allEntries(): readonly E[] {
    return this.entries.slice();
  }

  get durableLength(): number {
    return this.durableCount;
  }

  /** How many of the first entries written stand replaced by entries[0] (replacePrefix); 0 before any. */
  get replacedCount(): number {
    return this.base === 0 ? 0 : this.base + 1;
  }

  /** fsyncs queued or in flight. */
  get queuedFsyncs(): number {
    return this.queue.length + (this.inFlight === undefined ? 0 : 1);
  }

  private startNext(): void {
    if (this.inFlight !== undefined || this.startEventId >= 0) return;
    const request = this.queue[0];
    if (request === undefined) return;
    const nowMs = this.kernel.now();
    if (nowMs < this.stalledUntil) {
      this.startEventId = this.kernel.schedule(this.stalledUntil, this.startFromStall);
      return;
    }
    this.queue.shift();
    const completeAtMs = Math.max(nowMs + this.latency(this.stream.next()), this.stalledUntil);
    const eventId = this.kernel.schedule(completeAtMs, this.completeNow);
    this.inFlight = { request, startedAtMs: nowMs, completeAtMs, eventId };
  }

  // The disk's two kinds of event, made once per disk rather than once per fsync (issue 16).
  private readonly startFromStall = (): void => {
    this.startEventId = -1;
    this.startNext();
  };

  private readonly completeNow = (): void => this.complete();

  private complete(): void {
    const inFlight = this.inFlight;
    if (inFlight === undefined) throw new Error(`disk ${this.process.name}/${this.name}: completion without an fsync in flight`);
    this.inFlight = undefined;
    const { request } = inFlight;
    this.durableCount = Math.max(this.durableCount, request.coversUpTo);
    const latencyMs = this.kernel.now() - inFlight.startedAtMs;
    const trace = this.kernel.trace;
    if (trace.includes('disk.fsync.done')) trace.record('disk.fsync.done', { disk: this.name, durable: this.durableCount, id: request.id, latencyMs }, this.process.name);
    if (request.onDurable !== undefined && request.incarnation === this.process.incarnation) this.process.deliver(request.onDurable);
    this.startNext();
  }

  private onProcessCrash(powerLoss: boolean): void {
    const droppedFsyncs = this.queuedFsyncs;
    if (this.inFlight !== undefined) this.kernel.cancel(this.inFlight.eventId);
    if (this.startEventId >= 0) this.kernel.cancel(this.startEventId);
    this.inFlight = undefined;
    this.startEventId = -1;
    this.queue = [];
    const lostEntries = powerLoss ? this.base + this.entries.length - this.durableCount : 0;
    if (powerLoss) this.entries.length = this.durableCount - this.base;
    else this.durableCount = this.base + this.entries.length;
    this.kernel.trace.record('disk.crash', { disk: this.name, droppedFsyncs, lostEntries, powerLoss }, this.process.name);
  }
}
