import { describe, expect, it } from 'vitest';
import type { CancelSignal } from '../cancel.js';
import type { Clock } from '../ports/clock.js';
import { WaitExpired, within } from './within.js';

/** A clock whose sleeps end only when the test says so, recording whether each was cancelled. */
function manualClock(): { clock: Clock; fire(): void; cancelled(): number } {
  const sleeps: Array<{ resolve: () => void; cancelled: boolean }> = [];
  const clock: Clock = {
    now: () => 0,
    sleep: (_ms: number, signal?: CancelSignal) =>
      new Promise<void>((resolve, reject) => {
        const sleep = { resolve, cancelled: false };
        sleeps.push(sleep);
        signal?.addEventListener('abort', () => {
          sleep.cancelled = true;
          reject(new Error('cancelled'));
        });
      }),
  };
  return { clock, fire: () => sleeps.forEach((s) => s.resolve()), cancelled: () => sleeps.filter((s) => s.cancelled).length };
}

describe('within: a bound on every wait', () => {
  it('answers with the promise when it settles first, and cancels its timer', async () => {
    const { clock, cancelled } = manualClock();
    await expect(within(clock, 1000, 'the answer', Promise.resolve(7))).resolves.toBe(7);
    expect(cancelled()).toBe(1);
  });

  it('rejects naming what did not happen when the time runs out first', async () => {
    const { clock, fire } = manualClock();
    const waiting = within(clock, 2500, 'the first holder reaching its pause point', new Promise(() => {}));
    fire();
    await expect(waiting).rejects.toThrow(new WaitExpired('the first holder reaching its pause point did not happen within 2.5 s'));
  });
});
