import { describe, expect, it } from 'vitest';
import { bigintAsDecimal, toJson } from './json-text.js';

describe('toJson', () => {
  it('writes bigints as decimal strings, past 2^53 without rounding', () => {
    expect(toJson({ token: 9_007_199_254_740_993n, revision: 12n, name: 'k', n: 1 })).toBe('{"token":"9007199254740993","revision":"12","name":"k","n":1}');
  });

  it('indents when asked, and the replacer works on its own in JSON.stringify', () => {
    expect(toJson({ a: [1n] }, 2)).toBe('{\n  "a": [\n    "1"\n  ]\n}');
    expect(JSON.stringify([-5n], bigintAsDecimal)).toBe('["-5"]');
  });

  it('fails without it: JSON.stringify alone refuses a bigint (negative control)', () => {
    expect(() => JSON.stringify({ token: 1n })).toThrow(TypeError);
  });
});
