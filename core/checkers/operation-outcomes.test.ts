// How a lock client's errors go into a history (issue 15): `fail` only where nothing can have happened.
import { describe, expect, it } from 'vitest';
import { LockError } from '../lock-error.js';
import { acquireOutcome, releaseOutcome, writeOutcome } from './operation-outcomes.js';

describe('operation outcomes', () => {
  it('an acquire refused by the arbiter is a failure; one in doubt, unavailable or unknown is info', () => {
    expect(acquireOutcome(new LockError('wait-timeout', 'x')).type).toBe('fail');
    expect(acquireOutcome(new LockError('contended', 'x')).type).toBe('fail');
    for (const code of ['indeterminate', 'unavailable', 'session-expired'] as const) expect(acquireOutcome(new LockError(code, 'x')).type).toBe('info');
    expect(acquireOutcome(new Error('socket hang up'))).toEqual({ type: 'info', value: { error: 'Error' } });
  });

  it('a release after the session expired deleted nothing (fail); in doubt is info', () => {
    expect(releaseOutcome(new LockError('session-expired', 'x')).type).toBe('fail');
    expect(releaseOutcome(new LockError('indeterminate', 'x')).type).toBe('info');
    expect(releaseOutcome(new LockError('unavailable', 'x')).type).toBe('info');
  });

  it('a write that threw may have reached the resource: info', () => {
    expect(writeOutcome(new Error('EIO')).type).toBe('info');
  });
});
