// The simulation kernel (ARCHITECTURE.md, "sim/"): virtual true time in ms (fractional allowed), an
// event queue ordered by (time, sequence), the run's seeded RNG and its trace.
//
// ## Promise continuations run at their event's time (the drain)
//
// core/ is async/await and sleeps on a Clock; simulator callbacks are synchronous. When an event
// resolves a promise (a sleep ends, a reply arrives), the awaiting code continues in *microtasks*, and
// those only run once the JavaScript stack is empty. If the kernel popped the next event straight away,
// the continuation would run later, at another event's time, and the simulated program would see a
// world that had moved on without it.
//
// So the run loop is async, and after such an event it awaits the host's `yieldToHost()` port: a
// *macrotask* (browser: a MessageChannel round trip) or, in node, a tick queued from a microtask, which
// node runs only once the microtask queue is empty, with an immediate every 256th yield so the host's
// timers get a turn (src/host-yield.ts). A host runs every queued microtask, including the ones those
// microtasks queue, before either; so when the port resolves, every continuation started by the event,
// however many awaits deep, has run, at the event's time, and time has not moved. Awaiting
// `Promise.resolve()` a fixed number of times would not do: each `await` in the chain costs one or more
// microtask hops, so no fixed count drains an arbitrary chain.
//
// A macrotask costs microseconds, so the kernel yields only after events it knows resolved promises:
// - its own promise APIs mark the current event: `sleep()` and `deferred()` (resolve and reject), which
//   process clocks, the network and disks build on;
// - an event callback (or a message handler) that returns a thenable is async work in flight;
// - anything else may call `requestDrain()`.
// Events that only run synchronous callbacks go on without yielding, which is what lets the kernel
// alone run millions of events a second. A component that resolves a promise of its own making without
// telling the kernel would see its continuation delayed to the next drain: still deterministic, but at
// the wrong simulated time. `drain: 'always'` yields after every event; running a scenario both ways and
// comparing trace hashes finds such a component.
//
// Each run also yields once at its start, so that code started synchronously just before the run
// (an async `main()` that awaits before its first sleep) has scheduled its events, and once more
// before it reports that no events are left or that its time is reached.
import { assert } from '../../core/assert.js';
import { CancelledError, onCancel, type CancelSignal } from '../../core/cancel.js';
import type { Clock } from '../../core/ports/clock.js';
import { Trace, type TraceOptions } from '../trace/trace.js';
import { EventHeap, SLOT_SPACE, type EventCallback, type EventId } from './event-heap.js';
import { Rng } from './rng.js';

export type { EventCallback, EventId } from './event-heap.js';

export interface KernelOptions {
  /** The run's seed; every random choice in the world derives from it. */
  readonly seed: string;
  /**
   * Resolves after the host has run every pending microtask. Node: src/host-yield.ts (the tick queue,
   * an immediate now and then); browser: a MessageChannel round trip. Wired by src/ or tests; needed
   * as soon as any event resolves a promise.
   */
  readonly yieldToHost?: () => Promise<void>;
  /** 'auto' (default): yield only after events that resolved promises; 'always': after every event. */
  readonly drain?: 'auto' | 'always';
  /** Bound on events per run call, unless the call passes its own. Default 50,000,000. */
  readonly maxEvents?: number;
  /** Bound on events pending at once. Default and maximum 4,194,304. */
  readonly maxPendingEvents?: number;
  readonly trace?: TraceOptions;
}

export interface RunOptions {
  /** Bound on events this run may execute; exceeding it throws MaxEventsExceededError. */
  readonly maxEvents?: number;
}

export interface RunResult {
  /** Why the run stopped: reached its time, its condition held, or no events were left. */
  readonly reason: 'time' | 'condition' | 'quiescent';
  /** Events executed by this run. */
  readonly events: number;
  readonly nowMs: number;
}

/** A promise the kernel knows about: settling it makes the current event drain microtasks. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

export class MaxEventsExceededError extends Error {
  override readonly name = 'MaxEventsExceededError';
}

export const DEFAULT_MAX_EVENTS = 50_000_000;

const ignore = (): void => {};


interface StopRule {
  readonly untilMs: number;
  readonly condition: (() => boolean) | undefined;
}

/** Also a Clock in true time, for world-level components (fault schedules, checkers). */
export class Kernel implements Clock {
  readonly seed: string;
  readonly rng: Rng;
  readonly trace: Trace;
  private readonly heap: EventHeap;
  private readonly yieldToHost: (() => Promise<void>) | undefined;
  private readonly drainAlways: boolean;
  private readonly defaultMaxEvents: number;
  private nowMs = 0;
  private nextSeq = 0;
  private executed = 0;
  private drainNeeded = false;
  private running = false;
  private failure: { readonly error: unknown } | undefined;

  constructor(options: KernelOptions) {
    this.seed = options.seed;
    this.rng = new Rng(options.seed);
    this.trace = new Trace(() => this.nowMs, options.trace);
    this.heap = new EventHeap(options.maxPendingEvents ?? SLOT_SPACE);
    this.yieldToHost = options.yieldToHost;
    this.drainAlways = options.drain === 'always';
    if (this.drainAlways && this.yieldToHost === undefined) {
      throw new Error("kernel: drain: 'always' needs KernelOptions.yieldToHost (in node, resolve it from an immediate)");
    }
    this.defaultMaxEvents = options.maxEvents ?? DEFAULT_MAX_EVENTS;
  }

  /** True time, ms. */
  now(): number {
    return this.nowMs;
  }

  /** Events executed over the kernel's life. */
  get eventsExecuted(): number {
    return this.executed;
  }

  get pendingEvents(): number {
    return this.heap.size;
  }

  /** Time of the next pending event, or undefined when none is pending. */
  nextEventTimeMs(): number | undefined {
    return this.heap.size > 0 ? this.heap.peekTime() : undefined;
  }

  /**
   * Runs `callback` at true time `atMs` (>= now). Events at one time run in scheduling order. A callback
   * that returns a thenable makes the kernel drain microtasks after it, and a rejection fails the run.
   */
  schedule(atMs: number, callback: EventCallback): EventId {
    if (!(atMs >= this.nowMs) || atMs === Infinity) {
      throw new RangeError(`kernel: cannot schedule at ${atMs} ms: it must be a finite time >= now (${this.nowMs} ms)`);
    }
    return this.heap.push(atMs, this.nextSeq++, callback);
  }

  /** Runs `callback` after `delayMs` (>= 0) of true time. */
  scheduleAfter(delayMs: number, callback: EventCallback): EventId {
    return this.schedule(this.nowMs + delayMs, callback);
  }

  /** Cancels a pending event; false if it already ran or was cancelled. */
  cancel(id: EventId): boolean {
    return this.heap.cancel(id);
  }

  /** Resolves after `delayMs` of true time; rejects with CancelledError if `signal` fires first. */
  sleep(delayMs: number, signal?: CancelSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(new CancelledError());
    const deferred = this.deferred<void>();
    let detach = (): void => {};
    const id = this.scheduleAfter(Math.max(0, delayMs), () => {
      detach();
      deferred.resolve();
    });
    detach = onCancel(signal, () => {
      this.cancel(id);
      deferred.reject(new CancelledError());
    });
    return deferred.promise;
  }

  /** A promise whose resolve/reject make the current event drain microtasks before time moves. */
  deferred<T>(): Deferred<T> {
    // The settlers are assigned as properties rather than written in an object literal: a named
    // function expression costs a defineProperty per call under the keep-names transform tsx applies,
    // and this runs for every call, answer and sleep. They stay own properties, safe to destructure.
    const deferred = {} as { promise: Promise<T>; resolve: (value: T) => void; reject: (reason: unknown) => void };
    deferred.promise = new Promise<T>((resolve, reject) => {
      deferred.resolve = (value) => {
        this.drainNeeded = true;
        resolve(value);
      };
      deferred.reject = (reason) => {
        this.drainNeeded = true;
        reject(reason);
      };
    });
    return deferred;
  }

  /** Marks the current event as having started async work whose microtasks must run before time moves. */
  requestDrain(): void {
    this.drainNeeded = true;
  }

  /**
   * Treats `result` as possibly async work of the current event: a thenable requests a drain, and its
   * rejection fails the run. Components call it with what a handler returned.
   */
  adopt(result: unknown): void {
    if (result === undefined || result === null) return;
    const then = (result as { then?: unknown }).then;
    if (typeof then !== 'function') return;
    this.drainNeeded = true;
    (then as (onOk: () => void, onError: (error: unknown) => void) => void).call(result, ignore, this.failBound);
  }

  /** `fail`, bound once: every adopted thenable gets it as its rejection handler. */
  private readonly failBound = (error: unknown): void => this.fail(error);

  /** Fails the current run with `error` (thrown from the run call at the next event boundary). */
  fail(error: unknown): void {
    this.failure ??= { error };
  }

  /** Runs every event at or before `untilMs`, then sets now to `untilMs`. */
  runUntil(untilMs: number, options: RunOptions = {}): Promise<RunResult> {
    return this.run({ untilMs, condition: undefined }, options);
  }

  /** Runs for `durationMs` of true time. */
  runFor(durationMs: number, options: RunOptions = {}): Promise<RunResult> {
    return this.runUntil(this.nowMs + durationMs, options);
  }

  /**
   * Runs until `condition()` holds (checked before the first event and after each event's drain), or
   * no events are left, or `untilMs` passes (then now = untilMs).
   */
  runUntilCondition(condition: () => boolean, options: RunOptions & { readonly untilMs?: number } = {}): Promise<RunResult> {
    return this.run({ untilMs: options.untilMs ?? Infinity, condition }, options);
  }

  /** Runs until no events are left. */
  runUntilQuiescent(options: RunOptions = {}): Promise<RunResult> {
    return this.run({ untilMs: Infinity, condition: undefined }, options);
  }

  private async run(stop: StopRule, options: RunOptions): Promise<RunResult> {
    assert(!this.running, 'kernel: a run is already in progress; await it before starting another');
    if (!(stop.untilMs >= this.nowMs)) throw new RangeError(`kernel: cannot run until ${stop.untilMs} ms: it is before now (${this.nowMs} ms)`);
    this.running = true;
    try {
      if (this.yieldToHost !== undefined) await this.yieldToHost();
      this.drainNeeded = false;
      return await this.loop(stop, options.maxEvents ?? this.defaultMaxEvents);
    } finally {
      this.running = false;
    }
  }

  // The hot loop: synchronous except for drains, so a run of sync events is one JS turn. Before it
  // stops for lack of events it drains once more (if the last event was not drained), so microtasks
  // the kernel was not told about cannot schedule events behind a "quiescent" result.
  private async loop(stop: StopRule, maxEvents: number): Promise<RunResult> {
    const heap = this.heap;
    const condition = stop.condition;
    let events = 0;
    let settled = true;
    while (true) {
      this.throwIfFailed();
      if (condition !== undefined && condition()) return this.result('condition', events);
      if (heap.size === 0 || heap.peekTime() > stop.untilMs) {
        if (!settled && this.yieldToHost !== undefined) {
          await this.drain();
          settled = true;
          continue;
        }
        if (heap.size === 0 && stop.untilMs === Infinity) return this.result('quiescent', events);
        this.nowMs = stop.untilMs;
        return this.result('time', events);
      }
      if (events >= maxEvents) throw this.maxEventsError(maxEvents);
      const timeMs = heap.peekTime();
      const callback = heap.pop();
      this.nowMs = timeMs;
      events++;
      this.executed++;
      const returned = callback();
      if (returned !== undefined) this.adopt(returned);
      settled = false;
      if (this.drainNeeded || this.drainAlways) {
        // drain(), inlined: one promise fewer per drain on the hottest path.
        const yieldToHost = this.yieldToHost;
        if (yieldToHost === undefined) await this.drain();
        else {
          this.drainNeeded = false;
          await yieldToHost();
          this.drainNeeded = false;
        }
        settled = true;
      }
    }
  }

  private async drain(): Promise<void> {
    this.drainNeeded = false;
    if (this.yieldToHost === undefined) {
      throw new Error(`kernel: an event at ${this.nowMs} ms resolved a promise, but no yieldToHost port was given; pass KernelOptions.yieldToHost (in node, resolve it from an immediate)`);
    }
    await this.yieldToHost();
    // Every settlement made during the drain was itself drained by it.
    this.drainNeeded = false;
  }

  private throwIfFailed(): void {
    if (this.failure === undefined) return;
    const { error } = this.failure;
    this.failure = undefined;
    throw error;
  }

  private maxEventsError(maxEvents: number): MaxEventsExceededError {
    return new MaxEventsExceededError(
      `kernel: run exceeded maxEvents (${maxEvents}) at ${this.nowMs} ms with ${this.heap.size} events pending; ` +
        'pass a larger RunOptions.maxEvents (or KernelOptions.maxEvents) if the workload is this long, or look for an event that reschedules itself without time advancing',
    );
  }

  private result(reason: RunResult['reason'], events: number): RunResult {
    return { reason, events, nowMs: this.nowMs };
  }
}
