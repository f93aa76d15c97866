import fc from 'fast-check';
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
    expect(waiterPrefixOf(key)).toBe('/q/payments/invoices/42//');
  });

  it('gives every pair of keys disjoint durable lines: no waiter of one key lies under another key\'s prefix (L4)', () => {
    // Keys over a small alphabet with '/' in it, so parents, children and near-misses are drawn often.
    const keyText = fc.tuple(fc.constantFrom('ns', 'n'), fc.array(fc.stringMatching(/^[ab/]{1,4}$/), { minLength: 1, maxLength: 3 })).map(([ns, parts]) => `${ns}/${parts.join('/')}`);
    const validKey = keyText.filter((text) => {
      try {
        parseLockKey(text);
        return true;
      } catch {
        return false;
      }
    });
    const collides = (prefixOf: (text: string) => string, a: string, b: string, waiter: string): boolean => a !== b && `${prefixOf(b)}${waiter}`.startsWith(prefixOf(a));
    const current = (text: string): string => waiterPrefixOf(parseLockKey(text));
    fc.assert(fc.property(validKey, validKey, fc.bigInt({ min: 1n, max: 2n ** 63n - 1n }), (a, b, lease) => !collides(current, a, b, lease.toString(10))), { numRuns: 2_000 });
    // The shape the review found, and its negative control: with '/' as the separator the parent's line held the child's waiter.
    expect(collides(current, 'ns/a', 'ns/a/b', '7')).toBe(false);
    expect(collides((text) => `/q/${text}/`, 'ns/a', 'ns/a/b', '7')).toBe(true);
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

  it('refuses a look-alike key, naming the code point, with the key escaped in the message (issue 18)', () => {
    const message = refusal('orders/\u202Eabc');
    expect(message).toBe('invalid-argument: key "orders/\\u202eabc": U+202E RIGHT-TO-LEFT OVERRIDE at position 7 is a bidirectional control: it reorders how a terminal or a page shows the rest of the key; remove it');
    expect(message).not.toContain('\u202E');
    for (const [text, named] of [['payments/ledger\u200B-1', 'U+200B ZERO WIDTH SPACE'], ['payments/a\u2028b', 'U+2028 LINE SEPARATOR'], ['payments/\u{E0041}', 'U+E0041 TAG LATIN CAPITAL LETTER A'], ['payments/x\uDBFF', 'U+DBFF'], ['payments/cafe\u0301', 'U+0065 U+0301 is U+00E9 in NFC']] as const) {
      expect(refusal(text)).toContain(named);
    }
    // Its negative control: the same keys without the refused code points are keys.
    for (const text of ['orders/abc', 'payments/ledger-1', 'payments/caf\u00E9']) expect(parseLockKey(text).text).toBe(text);
  });

  it('refuses a key that is not a string', () => {
    expect(refusal(42)).toMatch(/empty/);
  });
});
