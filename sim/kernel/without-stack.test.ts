import { describe, expect, it } from 'vitest';
import { LockError } from '../../core/lock-error.js';
import { withoutStack } from './without-stack.js';

describe('withoutStack', () => {
  it('makes a real error of its class, with name and message, and no frames in its stack', () => {
    const error = withoutStack(() => new LockError('contended', 'held'));
    expect(error).toBeInstanceOf(LockError);
    expect(error.name).toBe('LockError');
    expect(error.message).toBe('contended: held');
    expect(error.stack).not.toMatch(/\n\s+at /);
  });

  it('leaves errors made after it with their stacks (negative control)', () => {
    withoutStack(() => new Error('inner'));
    expect(new Error('outer').stack).toMatch(/\n\s+at /);
  });
});
