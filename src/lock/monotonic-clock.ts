// The clock the fence supervisor and the renewing process share: CLOCK_MONOTONIC, which process.hrtime
// reads on Linux. It is one clock for every process on the host, and it keeps running while a process is
// stopped (SIGSTOP), which is exactly when the supervisor must still act (issue 11 S4). performance.now()
// reads the same clock but from each process's own origin, so a deadline crosses between processes in
// this frame. It does not advance while the host is suspended; neither does etcd's lease clock on the
// same host, but a leader on another host does, so a host that suspends mid-hold relies on the token at
// the resource (ADR-12: a pause that swallows the deadline is what the token is for).
import type { Clock } from '../../core/ports/clock.js';

/** Milliseconds on CLOCK_MONOTONIC, to the microsecond. */
export function monotonicNowMs(): number {
  return Number(process.hrtime.bigint() / 1_000n) / 1_000;
}

/**
 * Converts instants of `clock` (the real Clock: performance.now) to the monotonic frame. The offset is
 * taken once, reading the monotonic clock first: were this process stopped between the two reads, the
 * offset would come out smaller and every converted deadline earlier, never later.
 */
export function monotonicFrameOf(clock: Clock): (clockMs: number) => number {
  const monotonicMs = monotonicNowMs();
  const offsetMs = monotonicMs - clock.now();
  return (clockMs) => clockMs + offsetMs;
}
