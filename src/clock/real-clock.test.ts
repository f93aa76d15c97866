import { describe, expect, it } from 'vitest';
import { CancelSource, CancelledError } from '../../core/cancel.js';
import { type ClockSources, SLEEP_SLICE_MS, createRealClock, sleepMs } from './real-clock.js';

/** A host whose clocks the test moves: `suspend` stops the monotonic clock while boot and wall time go on. */
function fakeHost(options: { readonly bootReadable?: boolean } = {}) {
  let mono = 1_000;
  let boot = 50_000;
  let wall = 1_700_000_000_000;
  const sources: ClockSources = { monotonicMs: () => mono, sinceBootMs: () => (options.bootReadable === false ? undefined : boot), wallMs: () => wall };
  return {
    sources,
    run(ms: number): void {
      mono += ms;
      boot += ms;
      wall += ms;
    },
    suspend(ms: number): void {
      boot += ms;
      wall += ms; // the kernel sets the wall clock forward at the resume
    },
    stepWall(ms: number): void {
      wall += ms; // an NTP step: no time passed
    },
  };
}

describe('the real clock', () => {
  it('is monotonic and sleeps at least as long as asked', async () => {
    const clock = createRealClock();
    const before = clock.now();
    await clock.sleep(30);
    expect(clock.now() - before).toBeGreaterThanOrEqual(30);
  });

  it('counts the time the host was suspended, which CLOCK_MONOTONIC (performance.now) does not (issue 11)', () => {
    const host = fakeHost();
    const clock = createRealClock(host.sources);
    const start = clock.now();
    host.run(100);
    host.suspend(60_000);
    host.run(5);
    // Before the fix now() was performance.now(): 105 ms had passed, while the etcd leader on another host
    // had counted a minute, and expired the lease.
    expect(clock.now() - start).toBe(60_105);
    host.run(10);
    expect(clock.now() - start).toBe(60_115);
  });

  it('its negative control: a wall-clock step with no suspend moves nothing (the boot clock says no time passed)', () => {
    const host = fakeHost();
    const clock = createRealClock(host.sources);
    const start = clock.now();
    host.run(100);
    host.stepWall(60_000);
    host.run(5);
    expect(clock.now() - start).toBe(105);
    host.stepWall(-120_000); // and never backwards
    host.run(5);
    expect(clock.now() - start).toBe(110);
  });

  it('without a boot clock, counts a forward wall-clock jump as suspended time: early, never late', () => {
    const host = fakeHost({ bootReadable: false });
    const clock = createRealClock(host.sources);
    const start = clock.now();
    host.suspend(30_000);
    host.run(1);
    expect(clock.now() - start).toBe(30_001);
  });

  it('ends a sleep within a slice of a resume that carried it past its end', async () => {
    const host = fakeHost();
    const clock = createRealClock(host.sources);
    let woke = false;
    const sleeping = clock.sleep(60_000).then(() => (woke = true));
    await sleepMs(SLEEP_SLICE_MS * 2);
    expect(woke).toBe(false); // the fake monotonic clock has not moved: a minute is still to go
    host.suspend(61_000);
    await sleeping; // one slice later (a plain timer would have waited the whole minute)
    expect(woke).toBe(true);
  });

  it('rejects with CancelledError when the signal fires during the sleep, or had fired before it', async () => {
    const source = new CancelSource();
    const clock = createRealClock();
    const sleeping = clock.sleep(10_000, source.signal);
    source.cancel();
    await expect(sleeping).rejects.toBeInstanceOf(CancelledError);
    await expect(clock.sleep(10_000, source.signal)).rejects.toBeInstanceOf(CancelledError);
    const controller = new AbortController();
    const aborted = sleepMs(10_000, controller.signal);
    controller.abort();
    await expect(aborted).rejects.toBeInstanceOf(CancelledError);
  });

  it('detaches from the signal after a normal wake-up', async () => {
    const source = new CancelSource();
    await createRealClock().sleep(1, source.signal);
    expect(() => source.cancel()).not.toThrow();
  });
});
