// The real Clock (ARCHITECTURE.md, ports): performance.now for a monotonic "now" of this process, and
// timers for sleep. core/ never reads time itself; src/ hands it this.
import { type CancelSignal, CancelledError, onCancel } from '../../core/cancel.js';
import type { Clock } from '../../core/ports/clock.js';

/** Resolves after `ms` of real time; rejects with CancelledError if `signal` fires first (or already has). */
export function sleepMs(ms: number, signal?: CancelSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new CancelledError('sleep cancelled before it started'));
      return;
    }
    let detach = () => {};
    const timer = setTimeout(() => {
      detach();
      resolve();
    }, Math.max(0, ms));
    detach = onCancel(signal, () => {
      clearTimeout(timer);
      reject(new CancelledError('sleep cancelled'));
    });
  });
}

export function createRealClock(): Clock {
  return { now: () => performance.now(), sleep: sleepMs };
}
