import type { CancelSignal } from '../cancel.js';

/**
 * The time of *this process* (ARCHITECTURE.md, ports). A holder's fence deadline is measured on it
 * (ADR-12), so it must count every second that passes for the etcd leader, which is on another host:
 * monotonic (never stepped back) AND counting the time this host spends suspended. On Linux that is
 * CLOCK_BOOTTIME, not CLOCK_MONOTONIC: CLOCK_MONOTONIC (what node's high-resolution time and timers read) stops while the
 * host sleeps, and after a resume the library believed its lease had all the time left that it had
 * before, while the leader had expired it (issue 11). Counting a suspend only ever fences early.
 * Real: src/clock/real-clock.ts. Simulated: the process's own clock, which may drift in rate and step,
 * and keeps running while the process is paused (as both clocks do under SIGSTOP).
 */
export interface Clock {
  /** Milliseconds since an arbitrary origin: monotonic, and counting host suspend. */
  now(): number;
  /** Resolves after `ms` of this clock; rejects with CancelledError if the signal fires first. */
  sleep(ms: number, signal?: CancelSignal): Promise<void>;
}
