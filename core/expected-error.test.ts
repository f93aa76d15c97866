import { describe, expect, it } from 'vitest';
import { CancelledError } from './cancel.js';
import { LockError } from './lock-error.js';

const frames = (error: Error): string[] => (error.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));

describe('expected errors carry no stack', () => {
  it('LockError and CancelledError capture no frames, and keep name, code and message', () => {
    const refused = new LockError('contended', 'orders/o-1 is held by bob');
    const cancelled = new CancelledError('wait given up');
    expect(frames(refused)).toEqual([]);
    expect(frames(cancelled)).toEqual([]);
    expect([refused.name, refused.code, refused.message, refused instanceof Error]).toEqual(['LockError', 'contended', 'contended: orders/o-1 is held by bob', true]);
    expect([cancelled.name, cancelled.message]).toEqual(['CancelledError', 'wait given up']);
  });

  it('leaves every other error its stack (the limit is put back)', () => {
    const before = Error.stackTraceLimit;
    void new LockError('unavailable', 'no member answered');
    expect(Error.stackTraceLimit).toBe(before);
    // The control: an ordinary error made right after still has its frames.
    expect(frames(new Error('a bug')).length).toBeGreaterThan(0);
  });
});
