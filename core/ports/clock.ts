import type { CancelSignal } from '../cancel.js';

/**
 * The time of *this process* (ARCHITECTURE.md, ports). Real: the platform's monotonic clock and timers, wired in src/.
 * Simulated: the process's own clock, which may drift in rate, step, and stops while the process is
 * paused. Monotonic: a holder's fence deadline is measured on it (ADR-12).
 */
export interface Clock {
  /** Monotonic milliseconds since an arbitrary origin. */
  now(): number;
  /** Resolves after `ms` of this clock; rejects with CancelledError if the signal fires first. */
  sleep(ms: number, signal?: CancelSignal): Promise<void>;
}
