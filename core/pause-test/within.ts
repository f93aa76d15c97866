// A bound on a wait (STYLE.md: a limit on everything). The kit waits on other processes, which may
// never answer; each wait gets a named maximum, and the timer is cancelled when the wait ends first,
// so a real process is not kept alive by it.
import { CancelSource } from '../cancel.js';
import type { Clock } from '../ports/clock.js';

export class WaitExpired extends Error {
  override readonly name = 'WaitExpired';
}

/** `promise`, or a WaitExpired rejection naming `what` once `ms` of `clock` have passed. */
export async function within<T>(clock: Clock, ms: number, what: string, promise: Promise<T>): Promise<T> {
  const cancel = new CancelSource();
  const expired = clock.sleep(ms, cancel.signal).then(
    () => Promise.reject(new WaitExpired(`${what} did not happen within ${(ms / 1000).toFixed(1)} s`)),
    () => new Promise<never>(() => {}), // cancelled: the wait ended first
  );
  try {
    return await Promise.race([promise, expired]);
  } finally {
    cancel.cancel();
  }
}
