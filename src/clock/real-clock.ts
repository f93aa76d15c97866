// The real Clock (ARCHITECTURE.md, ports). core/ never reads time itself; src/ hands it this.
//
// Which clock: one that counts every second the host is suspended, Linux's CLOCK_BOOTTIME, not
// CLOCK_MONOTONIC. A holder's fence deadline (ADR-12) must come before the etcd leader's expiry of its
// lease, and the leader, on another host, keeps counting while this host sleeps (a laptop lid, a VM
// suspended or migrated). performance.now(), process.hrtime and Node's timers all read CLOCK_MONOTONIC
// (libuv's uv_hrtime), which stops during suspend: after a resume the library believed its deadline
// was still ahead by the whole time asleep, canStart() said yes, and its timers fired that much late,
// while another holder had the key (issue 11). A leader on this same host stops too; counting the
// suspend then only fences early, which is safe. Unlike SIGSTOP (CLOCK_MONOTONIC runs on, so the fence
// fires at the resume), a suspend must be measured.
//
// How: now() is performance.now() plus the time the host has spent suspended since this clock was made.
// Node has no CLOCK_BOOTTIME, but Linux's /proc/uptime is boot time (fs/proc/uptime.c reads
// ktime_get_boottime), at 10 ms resolution, and costs a file read (tens of microseconds), so it is read
// only when the wall clock has jumped ahead of the monotonic one (a resume moves CLOCK_REALTIME forward by
// the time asleep; so does an NTP step, which /proc/uptime then tells apart) and at most once a second
// otherwise. Without /proc/uptime a forward jump of the wall clock counts as suspended time: an NTP step
// then fences early, never late. Sleeps are slices of at most SLEEP_SLICE_MS re-checked against now(), so a
// deadline that a suspend brought forward fires within a slice of the resume.
import { readFileSync } from 'node:fs';
import { type CancelSignal, CancelledError, onCancel } from '../../core/cancel.js';
import type { Clock } from '../../core/ports/clock.js';

/** Longest single timer of a sleep: how late, at most, a sleep ends after the host resumes. */
export const SLEEP_SLICE_MS = 250;
/** A wall-clock jump ahead of the monotonic clock above this makes now() read the boot clock at once. */
const WALL_JUMP_MS = 50;
/** Otherwise the boot clock is read at most this often (monotonic ms). */
const BOOT_READ_INTERVAL_MS = 1_000;
/** Suspended time below this is rounding (/proc/uptime has 10 ms resolution), not a suspend. */
const SUSPEND_THRESHOLD_MS = 30;

/** What the real clock reads: injectable, so a test can suspend a host. */
export interface ClockSources {
  /** CLOCK_MONOTONIC in ms (performance.now): fine-grained, stops while the host is suspended. */
  monotonicMs(): number;
  /** CLOCK_BOOTTIME in ms (counts suspend), or undefined where it cannot be read. */
  sinceBootMs(): number | undefined;
  /** The wall clock in ms (Date.now): jumps forward at a resume, and at NTP steps. */
  wallMs(): number;
}

export function systemClockSources(): ClockSources {
  let bootReadable = true;
  return {
    monotonicMs: () => performance.now(),
    wallMs: () => Date.now(),
    sinceBootMs: () => {
      if (!bootReadable) return undefined;
      try {
        const seconds = Number.parseFloat(readFileSync('/proc/uptime', 'latin1'));
        if (Number.isFinite(seconds)) return seconds * 1_000;
      } catch {
        // not Linux, or /proc hidden: fall back to the wall clock's jumps
      }
      bootReadable = false;
      return undefined;
    },
  };
}

/** Resolves after `ms` of real time by a plain timer; rejects with CancelledError if `signal` fires first (or already has). */
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

export function createRealClock(sources: ClockSources = systemClockSources()): Clock {
  const suspended = new SuspendedTime(sources);
  const now = (): number => suspended.now();
  const sleep = async (ms: number, signal?: CancelSignal): Promise<void> => {
    const untilMs = now() + ms;
    // At least one timer, as a plain sleep has (and it rejects at once on a signal that already fired).
    let remainingMs = ms;
    do {
      await sleepMs(Math.min(Math.max(remainingMs, 0), SLEEP_SLICE_MS), signal);
      remainingMs = untilMs - now();
    } while (remainingMs > 0);
  };
  return { now, sleep };
}

/** now() = monotonic + suspended time, never going back. */
class SuspendedTime {
  private readonly bootMinusMonoAtStart: number | undefined;
  private readonly wallMinusMonoAtStart: number;
  private lastWallMinusMono: number;
  private lastBootReadMono: number;
  private suspendedMs = 0;
  private lastNowMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly sources: ClockSources) {
    const mono = sources.monotonicMs();
    const boot = sources.sinceBootMs();
    this.bootMinusMonoAtStart = boot === undefined ? undefined : boot - mono;
    this.wallMinusMonoAtStart = sources.wallMs() - mono;
    this.lastWallMinusMono = this.wallMinusMonoAtStart;
    this.lastBootReadMono = mono;
  }

  now(): number {
    const mono = this.sources.monotonicMs();
    const wallMinusMono = this.sources.wallMs() - mono;
    if (wallMinusMono - this.lastWallMinusMono > WALL_JUMP_MS || mono - this.lastBootReadMono >= BOOT_READ_INTERVAL_MS) this.measure(mono, wallMinusMono);
    this.lastWallMinusMono = wallMinusMono;
    const nowMs = Math.max(this.lastNowMs, mono + this.suspendedMs);
    this.lastNowMs = nowMs;
    return nowMs;
  }

  private measure(mono: number, wallMinusMono: number): void {
    this.lastBootReadMono = mono;
    const boot = this.bootMinusMonoAtStart === undefined ? undefined : this.sources.sinceBootMs();
    const sinceStartMs = boot === undefined || this.bootMinusMonoAtStart === undefined ? wallMinusMono - this.wallMinusMonoAtStart : boot - mono - this.bootMinusMonoAtStart;
    if (sinceStartMs - this.suspendedMs > SUSPEND_THRESHOLD_MS) this.suspendedMs = sinceStartMs;
  }
}
