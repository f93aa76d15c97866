import { describe, expect, it } from 'vitest';
import { CancelSource, CancelledError } from '../../core/cancel.js';
import { createRealClock, sleepMs } from './real-clock.js';

describe('the real clock', () => {
  it('is monotonic and sleeps at least as long as asked', async () => {
    const clock = createRealClock();
    const before = clock.now();
    await clock.sleep(30);
    expect(clock.now() - before).toBeGreaterThanOrEqual(29); // timers may fire up to 1 ms early
  });

  it('rejects with CancelledError when the signal fires during the sleep', async () => {
    const source = new CancelSource();
    const sleeping = sleepMs(10_000, source.signal);
    source.cancel();
    await expect(sleeping).rejects.toBeInstanceOf(CancelledError);
  });

  it('rejects at once when the signal has already fired, and accepts an AbortSignal', async () => {
    const source = new CancelSource();
    source.cancel();
    await expect(sleepMs(10_000, source.signal)).rejects.toBeInstanceOf(CancelledError);
    const controller = new AbortController();
    const sleeping = sleepMs(10_000, controller.signal);
    controller.abort();
    await expect(sleeping).rejects.toBeInstanceOf(CancelledError);
  });

  it('detaches from the signal after a normal wake-up', async () => {
    const source = new CancelSource();
    await sleepMs(1, source.signal);
    expect(() => source.cancel()).not.toThrow();
  });
});
