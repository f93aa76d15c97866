import { describe, expect, it } from 'vitest';
import { isLockError } from './lock-error.js';
import { MAX_KEY_LENGTH, holderKeyOf, parseLockKey, waiterPrefixOf } from './lock-key.js';

function refusal(text: unknown): string {
  try {
    parseLockKey(text);
  } catch (error) {
    if (isLockError(error, 'invalid-argument')) return error.message;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(text)} to be refused`);
}

describe('lock keys', () => {
  it('splits namespace and path and places the hold under /l/', () => {
    const key = parseLockKey('payments/invoices/42');
    expect(key).toEqual({ namespace: 'payments', path: 'invoices/42', text: 'payments/invoices/42' });
    expect(holderKeyOf(key)).toBe('/l/payments/invoices/42');
    expect(waiterPrefixOf(key)).toBe('/q/payments/invoices/42/');
  });

  it('accepts a key of exactly the maximum length', () => {
    const text = `ns/${'a'.repeat(MAX_KEY_LENGTH - 3)}`;
    expect(parseLockKey(text).text).toBe(text);
  });

  it.each([
    ['', /empty/],
    [`ns/${'a'.repeat(MAX_KEY_LENGTH)}`, /over the limit/],
    ['ns/a\u0000b', /control character/],
    ['ns/a\nb', /control character/],
    ['ns/a\u009bb', /control character/],
    ['noslash', /namespace\/path/],
    ['/leading', /namespace\/path/],
    ['ns/', /namespace\/path/],
    ['Payments/x', /DNS label/],
    ['pay_ments/x', /DNS label/],
    ['ns/a//b', /empty segment/],
    ['ns/a/', /empty segment/],
  ])('refuses %j', (text, why) => {
    expect(refusal(text)).toMatch(why);
  });

  it('refuses a key that is not a string', () => {
    expect(refusal(42)).toMatch(/empty/);
  });
});
