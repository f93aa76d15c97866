// The retry policy (issue 12): what may be sent again, and that every loop ends at the caller's deadline.
import { describe, expect, it } from 'vitest';
import { LockError } from '../lock-error.js';
import type { Clock } from '../ports/clock.js';
import { LockLogError } from '../ports/lock-log-error.js';
import { toLockError } from './log-gateway.js';
import { RETRY_FIRST_PAUSE_MS, mayRetry, retryWithin } from './log-retry.js';

const refused = toLockError(new LockLogError('not-leader', 'range: etcdserver: leader changed'));
const timedOutWrite = toLockError(new LockLogError('timeout', 'txn: request timed out', { outcome: 'indeterminate' }));
const compacted = toLockError(new LockLogError('compacted', 'range: compacted'));

class StepClock implements Clock {
  nowMs = 0;
  now(): number {
    return this.nowMs;
  }
  async sleep(ms: number): Promise<void> {
    this.nowMs += ms;
  }
}

describe('mayRetry', () => {
  it('sends again a refusal that wrote nothing; a write in doubt only when it is idempotent', () => {
    expect(refused.code).toBe('unavailable');
    expect(mayRetry(refused, 'nothing-written')).toBe(true);
    expect(timedOutWrite.code).toBe('indeterminate');
    expect(mayRetry(timedOutWrite, 'nothing-written')).toBe(false);
    expect(mayRetry(timedOutWrite, 'idempotent')).toBe(true);
  });

  it('never sends again a definite answer, nor an unavailable that core raised itself', () => {
    expect(mayRetry(compacted, 'idempotent')).toBe(false);
    expect(mayRetry(new LockError('unavailable', 'the epoch kept changing during the release; retry'), 'idempotent')).toBe(false);
    expect(mayRetry(new LockError('sealed', 'restored'), 'idempotent')).toBe(false);
    expect(mayRetry(new Error('boom'), 'idempotent')).toBe(false);
  });
});

describe('retryWithin', () => {
  it('answers once a send succeeds, pausing between sends', async () => {
    const clock = new StepClock();
    let sends = 0;
    const answer = await retryWithin({ clock, kind: 'nothing-written', deadlineMs: 5_000 }, async () => {
      sends += 1;
      if (sends < 3) throw refused;
      return 'ok';
    });
    expect(answer).toBe('ok');
    expect(sends).toBe(3);
    expect(clock.nowMs).toBe(RETRY_FIRST_PAUSE_MS * 3); // 50 then 100
  });

  it('gives up with the last error at the deadline, and sends once when the deadline has passed', async () => {
    const clock = new StepClock();
    let sends = 0;
    const failing = () => {
      sends += 1;
      return Promise.reject(refused);
    };
    await expect(retryWithin({ clock, kind: 'nothing-written', deadlineMs: 1_000 }, failing)).rejects.toBe(refused);
    expect(clock.nowMs).toBeLessThan(1_000);
    expect(sends).toBeGreaterThan(2);
    sends = 0;
    await expect(retryWithin({ clock, kind: 'nothing-written', deadlineMs: clock.nowMs }, failing)).rejects.toBe(refused);
    expect(sends).toBe(1);
  });

  it('the control: an error the policy does not retry is thrown at the first send', async () => {
    const clock = new StepClock();
    let sends = 0;
    await expect(
      retryWithin({ clock, kind: 'nothing-written', deadlineMs: 60_000 }, () => {
        sends += 1;
        return Promise.reject(timedOutWrite);
      }),
    ).rejects.toBe(timedOutWrite);
    expect(sends).toBe(1);
  });
});
