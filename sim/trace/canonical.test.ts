import { describe, expect, it } from 'vitest';
import { canonicalText } from './canonical.js';

describe('canonicalText', () => {
  it('sorts keys and skips undefined fields, so key order never changes the text', () => {
    expect(canonicalText({ b: 1, a: [true, null], c: undefined })).toBe('{"a":[true,null],"b":1}');
    expect(canonicalText({ a: [true, null], b: 1 })).toBe(canonicalText({ b: 1, a: [true, null] }));
  });

  it('writes bigints, non-finite numbers, maps and sets unambiguously', () => {
    expect(canonicalText({ revision: 12n, text: '12n' })).toBe('{"revision":12n,"text":"12n"}');
    expect(canonicalText([NaN, Infinity, -Infinity, -0, 0.5])).toBe('[NaN,Infinity,-Infinity,0,0.5]');
    expect(canonicalText(new Map([['k', 1]]))).toBe('[["k",1]]');
    expect(canonicalText(new Set(['x']))).toBe('["x"]');
  });

  it('rejects functions, naming the path', () => {
    expect(() => canonicalText({ nested: [{ handler: () => 1 }] })).toThrow('$.nested[0].handler is a function');
  });
});
