// Running async code that lives outside the simulation (a vitest test, the LockLog conformance suite)
// against a simulated world: virtual time advances exactly while that code is waiting on the world.
//
// The code under test awaits promises the simulation settles (a LockLog answer, a sleep on a simulated
// clock). Wrap each such promise in `driver.wait(...)` (or wrap the LockLog and Clock once with
// `driver.lockLog()` / `driver.clock()`): while at least one wrapped promise is pending, the driver runs
// the kernel; when the last one settles, the kernel stops at that event's time. The awaiting code's
// continuation runs inside the kernel's drain of that event (the kernel yields to the host after every
// event that settled a promise), so it sees the world at exactly that virtual time and anything it
// starts is scheduled from there. Between waits, virtual time stands still: the suite's own bookkeeping
// (vitest moving to the next test) costs no simulated time, and a run is as deterministic as its seed.
//
// Use the driver as the kernel's only runner while it is in use (a second run call would be refused).
import type { CancelSignal } from '../../core/cancel.js';
import type { Clock } from '../../core/ports/clock.js';
import type {
  LeaseGrantResponse, LeaseKeepAliveResponse, LeaseTimeToLiveResponse, LockLog, RangeRequest, RangeResponse, ResponseHeader,
  StatusResponse, TxnRequest, TxnResponse, Watch, WatchHandlers, WatchRequest,
} from '../../core/ports/lock-log.js';
import type { LeaseId, Revision } from '../../core/units.js';
import type { Kernel } from '../kernel/kernel.js';

export interface SimDriverOptions {
  /**
   * Bound on virtual time spent on one stretch of waiting; past it every pending wait fails (a promise
   * the world never settles would otherwise run virtual time forever). Default 10 minutes.
   */
  readonly maxWaitMs?: number;
}

/** Not the arbiter's longest wait in line (core/limits.ts DEFAULT_MAX_WAIT_MS): how much virtual time a test may wait. */
export const DRIVER_WAIT_BOUND_MS = 10 * 60 * 1_000;

export class SimDriver {
  private readonly maxWaitMs: number;
  private waiting = 0;
  private running = false;
  private stopped = false;
  private readonly failers = new Set<(error: unknown) => void>();

  constructor(
    readonly kernel: Kernel,
    options: SimDriverOptions = {},
  ) {
    this.maxWaitMs = options.maxWaitMs ?? DRIVER_WAIT_BOUND_MS;
  }

  /** Resolves or rejects as `promise` does, running the kernel while it is pending. */
  async wait<T>(promise: Promise<T>): Promise<T> {
    if (this.stopped) throw new Error('SimDriver: stopped; make a new world');
    let fail!: (error: unknown) => void;
    const failed = new Promise<never>((_, reject) => {
      fail = reject;
    });
    this.failers.add(fail);
    this.waiting++;
    this.pump();
    try {
      return await Promise.race([promise, failed]);
    } finally {
      this.waiting--;
      this.failers.delete(fail);
    }
  }

  /** Lets `ms` of true (kernel) time pass. */
  runFor(ms: number): Promise<void> {
    return this.wait(this.kernel.sleep(ms));
  }

  /** Runs until `condition()` holds (checked every `stepMs` of true time) or `withinMs` passes; returns whether it held. */
  async runUntil(condition: () => boolean, withinMs: number, stepMs = 10): Promise<boolean> {
    const deadline = this.kernel.now() + withinMs;
    while (!condition()) {
      if (this.kernel.now() >= deadline) return false;
      await this.runFor(Math.min(stepMs, deadline - this.kernel.now()));
    }
    return true;
  }

  /** A Clock whose sleeps run the world. */
  clock(clock: Clock): Clock {
    return {
      now: () => clock.now(),
      sleep: (ms: number, signal?: CancelSignal) => this.wait(clock.sleep(ms, signal)),
    };
  }

  /** A LockLog whose calls run the world while they are pending. */
  lockLog(log: LockLog): LockLog {
    return new DrivenLockLog(this, log);
  }

  /** No more waits; a wait in progress fails. */
  stop(): void {
    this.stopped = true;
    for (const fail of [...this.failers]) fail(new Error('SimDriver: stopped while waiting'));
  }

  private pump(): void {
    if (this.running) return;
    this.running = true;
    void this.loop();
  }

  private async loop(): Promise<void> {
    try {
      while (this.waiting > 0 && !this.stopped) {
        const untilMs = this.kernel.now() + this.maxWaitMs;
        const result = await this.kernel.runUntilCondition(() => this.waiting === 0 || this.stopped, { untilMs });
        if (result.reason === 'condition') continue;
        const dry = result.reason === 'quiescent' || this.kernel.pendingEvents === 0;
        const why = dry ? 'the world ran out of events' : `nothing settled within ${this.maxWaitMs} ms of virtual time`;
        this.failAll(new Error(`SimDriver: ${why} while ${this.waiting} wait(s) were pending (at ${this.kernel.now()} ms)`));
        return;
      }
    } catch (error) {
      this.failAll(error);
    } finally {
      this.running = false;
    }
  }

  private failAll(error: unknown): void {
    for (const fail of [...this.failers]) fail(error);
  }
}

class DrivenLockLog implements LockLog {
  constructor(
    private readonly driver: SimDriver,
    private readonly log: LockLog,
  ) {}

  txn(request: TxnRequest): Promise<TxnResponse> {
    return this.driver.wait(this.log.txn(request));
  }

  range(request: RangeRequest): Promise<RangeResponse> {
    return this.driver.wait(this.log.range(request));
  }

  leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    return this.driver.wait(this.log.leaseGrant(ttlSeconds));
  }

  leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    return this.driver.wait(this.log.leaseKeepAlive(id));
  }

  leaseRevoke(id: LeaseId): Promise<{ readonly header: ResponseHeader }> {
    return this.driver.wait(this.log.leaseRevoke(id));
  }

  leaseTimeToLive(id: LeaseId, options?: { readonly keys?: boolean }): Promise<LeaseTimeToLiveResponse> {
    return this.driver.wait(this.log.leaseTimeToLive(id, options));
  }

  async watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    const watch = await this.driver.wait(this.log.watch(request, handlers));
    return { header: watch.header, cancel: () => this.driver.wait(watch.cancel()) };
  }

  compact(revision: Revision): Promise<{ readonly header: ResponseHeader }> {
    return this.driver.wait(this.log.compact(revision));
  }

  status(): Promise<StatusResponse> {
    return this.driver.wait(this.log.status());
  }

  close(): Promise<void> {
    return this.driver.wait(this.log.close());
  }
}
