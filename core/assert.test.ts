import { describe, expect, it } from 'vitest';
import { AssertionError, assert } from './assert.js';
import { LockError } from './lock-error.js';

describe('assert', () => {
  it('passes a true condition without building its message', () => {
    let built = 0;
    expect(() => assert(true, () => `built ${(built += 1)}`)).not.toThrow();
    expect(built).toBe(0);
  });

  it('throws an AssertionError, not a LockError a caller could mistake for an outcome', () => {
    let thrown: unknown;
    try {
      assert(1 + 1 === 3, () => 'arithmetic broke');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AssertionError);
    expect(thrown).not.toBeInstanceOf(LockError);
    expect((thrown as Error).message).toBe('arithmetic broke');
    expect(() => assert(false, 'plain text')).toThrow(new AssertionError('plain text'));
  });
});
