import { describe, expect, it } from 'vitest';
import { StateHash, hashOf } from './state-hash.js';

describe('StateHash', () => {
  it('fold(a).fold(b).separate() is update(a + b), for any split of the text', () => {
    const parts = ['put', '|', '/l/bench/key-7', '|', '{"identity":"é🙂"}', '|', String(5551812440640987139n)];
    const joined = new StateHash().update('2').update(parts.join('')).hex();
    const folded = new StateHash().update('2');
    for (const part of parts) folded.fold(part);
    expect(folded.separate().hex()).toBe(joined);
  });

  it('tells texts apart by where the separators fall', () => {
    expect(hashOf('ab', 'c')).not.toBe(hashOf('a', 'bc'));
    expect(new StateHash().fold('ab').separate().fold('c').separate().hex()).toBe(hashOf('ab', 'c'));
  });
});
