// A simulated process: an arbiter, a client or an etcd member (ARCHITECTURE.md, "Processes"). It has
// its own clocks (drift and steps against true time: a wall clock, and the monotonic one its Clock port
// and timers read) and a lifecycle of faults:
// - pause (a stop-the-world GC or VM pause): its timers and arriving deliveries are held, and fire at
//   resume in the order they fell due; local time keeps running, which is what makes a pause
//   dangerous for a lock holder (ADR-12);
// - crash: memory is lost: pending timers and held deliveries are dropped, sleeps of the dead
//   incarnation never settle, and crash hooks tell the owner (disks keep what was durable);
// - restart: a new incarnation; restart hooks let the owner rebuild its state from disk.
import type { CancelSignal } from '../../core/cancel.js';
import { CancelledError, onCancel } from '../../core/cancel.js';
import type { Clock } from '../../core/ports/clock.js';
import type { Kernel } from '../kernel/kernel.js';
import type { RandomStream } from '../kernel/rng.js';
import { LocalClock, type ClockSpec } from './local-clock.js';

export interface ProcessOptions {
  /** Unique within the kernel; used in traces, RNG stream names and partitions. */
  readonly name: string;
  /** For region-pair network latencies. Default 'default'. */
  readonly region?: string;
  readonly clock?: ClockSpec;
}

export type ProcessState = 'running' | 'paused' | 'crashed';

/** Which clock a step moves (SimProcess.stepClock). */
export type SteppedClock = 'wall' | 'monotonic';

export interface CrashOptions {
  /** The machine lost power (true) or only the process died (false, default): see Disk. */
  readonly powerLoss?: boolean;
}

export type CrashHook = (process: SimProcess, options: { readonly powerLoss: boolean }) => void;
export type RestartHook = (process: SimProcess) => void;
export type TimerId = number;

interface Timer {
  readonly dueLocalMs: number;
  readonly callback: () => unknown;
  /** The kernel event that fires it, or -1 while it is held by a pause. */
  eventId: number;
}

/** A held item: a timer id, or a delivery callback. */
type Held = TimerId | (() => unknown);

const NO_DETACH = (): void => {};

const namesByKernel = new WeakMap<Kernel, Set<string>>();

export class SimProcess {
  readonly name: string;
  readonly region: string;
  private readonly localClock: LocalClock;
  private stateValue: ProcessState = 'running';
  private poweredOffValue = false;
  private incarnationValue = 0;
  private readonly timers = new Map<TimerId, Timer>();
  private nextTimerId = 0;
  private held: Held[] = [];
  private readonly crashHooks: CrashHook[] = [];
  private readonly restartHooks: RestartHook[] = [];
  private clockOf: { readonly incarnation: number; readonly clock: Clock } | undefined;

  constructor(readonly kernel: Kernel, options: ProcessOptions) {
    let names = namesByKernel.get(kernel);
    if (names === undefined) namesByKernel.set(kernel, (names = new Set()));
    if (options.name === '' || names.has(options.name)) {
      throw new Error(`SimProcess: name ${JSON.stringify(options.name)} is empty or already used in this kernel; process names must be unique`);
    }
    names.add(options.name);
    this.name = options.name;
    this.region = options.region ?? 'default';
    this.localClock = new LocalClock(kernel.now(), options.clock);
  }

  get state(): ProcessState {
    return this.stateValue;
  }

  /** Crashed by a power loss, until its restart: its machine's TCP stack answers nothing either. */
  get poweredOff(): boolean {
    return this.poweredOffValue;
  }

  /** 0 at creation; +1 at each crash. */
  get incarnation(): number {
    return this.incarnationValue;
  }

  get driftPpm(): number {
    return this.localClock.driftPpm;
  }

  /** This process's local (monotonic) time, ms: what its Clock port and timers read. */
  localNow(): number {
    return this.localClock.localAt(this.kernel.now());
  }

  /** This process's wall clock, ms: its monotonic time plus every wall step. */
  wallNow(): number {
    return this.localClock.wallAt(this.kernel.now());
  }

  /** The core Clock port for the current incarnation; after a crash its sleeps never settle (memory is gone). */
  clock(): Clock {
    const incarnation = this.incarnationValue;
    // One Clock per incarnation, built on first use: callers that ask per operation get the same one.
    if (this.clockOf?.incarnation === incarnation) return this.clockOf.clock;
    const clock: Clock = {
      now: () => this.localNow(),
      sleep: (ms, signal) => this.sleepAs(incarnation, ms, signal),
    };
    this.clockOf = { incarnation, clock };
    return clock;
  }

  /** A random stream of this process: 'process/<name>/<purpose>'. */
  random(purpose: string): RandomStream {
    return this.kernel.rng.stream(`process/${this.name}/${purpose}`);
  }

  /** Runs `callback` after `delayMs` of local time (held while paused, dropped on crash). */
  setTimer(delayMs: number, callback: () => unknown): TimerId {
    return this.setTimerAt(this.localNow() + Math.max(0, delayMs), callback);
  }

  /** Runs `callback` when local time reaches `dueLocalMs` (at once, as a new event, if it has). */
  setTimerAt(dueLocalMs: number, callback: () => unknown): TimerId {
    if (this.stateValue === 'crashed') throw new Error(`process ${this.name}: cannot set a timer while crashed; restart it first`);
    const id = this.nextTimerId++;
    const timer: Timer = { dueLocalMs, callback, eventId: -1 };
    this.timers.set(id, timer);
    this.arm(id, timer);
    return id;
  }

  /** Cancels a pending or held timer; false if it already fired or was cancelled. */
  cancelTimer(id: TimerId): boolean {
    const timer = this.timers.get(id);
    if (timer === undefined) return false;
    this.timers.delete(id);
    if (timer.eventId >= 0) this.kernel.cancel(timer.eventId);
    return true;
  }

  /** Timers pending or held. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /**
   * Runs `callback` in this process now (a message or an I/O completion arriving): at once if running,
   * held until resume if paused, dropped if crashed. A returned thenable is adopted by the kernel.
   */
  deliver(callback: () => unknown): 'ran' | 'held' | 'dropped' {
    if (this.stateValue === 'crashed') return 'dropped';
    if (this.stateValue === 'paused') {
      this.held.push(callback);
      return 'held';
    }
    this.kernel.adopt(callback());
    return 'ran';
  }

  /** Changes the clock's rate from now on; pending timers are re-placed on the new time line. */
  setDriftPpm(driftPpm: number): void {
    this.localClock.setDriftPpm(driftPpm, this.kernel.now());
    this.kernel.trace.record('clock.drift', { driftPpm }, this.name);
    this.rearmTimers();
  }

  /**
   * Steps a clock by `deltaMs`. 'wall' (default): an NTP step, as libfaketime makes one, moves the wall
   * clock only, and no timer or deadline of the lock service (they run on the monotonic clock, ADR-12).
   * 'monotonic': a clock the Clock port trusts jumps, a fault no real kernel makes, kept to test what
   * such a jump would break; timers it made due fire at once.
   */
  stepClock(deltaMs: number, clock: SteppedClock = 'wall'): void {
    if (clock === 'wall') this.localClock.stepWall(deltaMs);
    else this.localClock.stepMonotonic(deltaMs, this.kernel.now());
    this.kernel.trace.record('clock.step', { clock, deltaMs, localMs: this.localNow() }, this.name);
    if (clock === 'monotonic') this.rearmTimers();
  }

  /** Stops the world: timers and deliveries are held until resume; local time keeps running. */
  pause(): void {
    if (this.stateValue !== 'running') throw new Error(`process ${this.name}: cannot pause while ${this.stateValue}`);
    this.stateValue = 'paused';
    this.kernel.trace.record('process.pause', { localMs: this.localNow() }, this.name);
  }

  /** Ends a pause; what fell due during it runs now, one event each, in the order it fell due. */
  resume(): void {
    if (this.stateValue !== 'paused') throw new Error(`process ${this.name}: cannot resume while ${this.stateValue}`);
    this.stateValue = 'running';
    const held = this.held;
    this.held = [];
    this.kernel.trace.record('process.resume', { held: held.length, localMs: this.localNow() }, this.name);
    const incarnation = this.incarnationValue;
    for (const item of held) this.kernel.scheduleAfter(0, () => this.runReleased(incarnation, item));
  }

  /** Kills the process: memory (timers, held deliveries, the incarnation's sleeps) is lost. */
  crash(options: CrashOptions = {}): void {
    if (this.stateValue === 'crashed') throw new Error(`process ${this.name}: already crashed`);
    const powerLoss = options.powerLoss ?? false;
    for (const timer of this.timers.values()) if (timer.eventId >= 0) this.kernel.cancel(timer.eventId);
    const droppedTimers = this.timers.size;
    const droppedDeliveries = this.held.filter((item) => typeof item !== 'number').length;
    this.timers.clear();
    this.held = [];
    this.stateValue = 'crashed';
    this.poweredOffValue = powerLoss;
    this.incarnationValue++;
    this.kernel.trace.record('process.crash', { droppedDeliveries, droppedTimers, incarnation: this.incarnationValue, powerLoss }, this.name);
    for (const hook of this.crashHooks) hook(this, { powerLoss });
  }

  /** Starts a new incarnation of a crashed process; restart hooks rebuild it. */
  restart(): void {
    if (this.stateValue !== 'crashed') throw new Error(`process ${this.name}: cannot restart while ${this.stateValue}; crash it first`);
    this.stateValue = 'running';
    this.poweredOffValue = false;
    this.kernel.trace.record('process.restart', { incarnation: this.incarnationValue, localMs: this.localNow() }, this.name);
    for (const hook of this.restartHooks) hook(this);
  }

  /** Called at each crash, after memory is dropped; returns a function that removes the hook. */
  onCrash(hook: CrashHook): () => void {
    return addHook(this.crashHooks, hook);
  }

  /** Called at each restart; returns a function that removes the hook. */
  onRestart(hook: RestartHook): () => void {
    return addHook(this.restartHooks, hook);
  }

  private sleepAs(incarnation: number, ms: number, signal: CancelSignal | undefined): Promise<void> {
    if (incarnation !== this.incarnationValue) return new Promise<void>(() => {});
    if (signal?.aborted === true) return Promise.reject(new CancelledError());
    const deferred = this.kernel.deferred<void>();
    if (signal === undefined) {
      this.setTimer(ms, () => deferred.resolve());
      return deferred.promise;
    }
    const detach = { run: NO_DETACH };
    const id = this.setTimer(ms, () => {
      detach.run();
      deferred.resolve();
    });
    detach.run = onCancel(signal, () => {
      if (incarnation !== this.incarnationValue) return;
      this.cancelTimer(id);
      deferred.reject(new CancelledError());
    });
    return deferred.promise;
  }

  private arm(id: TimerId, timer: Timer): void {
    const atMs = this.localClock.trueTimeOf(timer.dueLocalMs, this.kernel.now());
    timer.eventId = this.kernel.schedule(atMs, () => this.fireTimer(id));
  }

  private fireTimer(id: TimerId): unknown {
    const timer = this.timers.get(id);
    if (timer === undefined) return undefined;
    if (this.stateValue === 'paused') {
      timer.eventId = -1;
      this.held.push(id);
      return undefined;
    }
    this.timers.delete(id);
    return timer.callback();
  }

  private runReleased(incarnation: number, item: Held): unknown {
    if (incarnation !== this.incarnationValue) return undefined;
    if (this.stateValue === 'paused') {
      this.held.push(item);
      return undefined;
    }
    if (typeof item !== 'number') return item();
    const timer = this.timers.get(item);
    if (timer === undefined) return undefined;
    this.timers.delete(item);
    return timer.callback();
  }

  // After a drift change or a step, every armed timer is placed again on the new time line, in order
  // of local due time, so timers a forward step made due fire in the order they were due.
  private rearmTimers(): void {
    const armed = [...this.timers.entries()].filter(([, timer]) => timer.eventId >= 0);
    armed.sort(([idA, a], [idB, b]) => a.dueLocalMs - b.dueLocalMs || idA - idB);
    for (const [id, timer] of armed) {
      this.kernel.cancel(timer.eventId);
      this.arm(id, timer);
    }
  }
}

function addHook<H>(hooks: H[], hook: H): () => void {
  hooks.push(hook);
  return () => {
    const at = hooks.indexOf(hook);
    if (at >= 0) hooks.splice(at, 1);
  };
}
