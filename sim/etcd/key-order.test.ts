import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys, sortKeys } from './key-order.js';

describe('compareKeys (bytes.Compare on UTF-8, as etcd orders keys)', () => {
  it('agrees with Buffer.compare of the UTF-8 encodings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        expect(compareKeys(a, b)).toBe(Math.sign(Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))));
      }),
      { numRuns: 2000 },
    );
  });

  it('puts a character above U+FFFF after U+FFFD, unlike JavaScript string order', () => {
    expect('\u{1F600}' < '\uFFFD').toBe(true);
    expect(sortKeys(['\u{1F600}', '\uFFFD', 'a'])).toEqual(['a', '\uFFFD', '\u{1F600}']);
  });
});
