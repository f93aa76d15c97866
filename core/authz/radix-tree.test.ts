import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RadixTree } from './radix-tree.js';

/** The specification: the longest stored prefix of the key, found by looking at every prefix. */
function linearLongestPrefix(prefixes: readonly string[], key: string): string | undefined {
  let best: string | undefined;
  for (const prefix of prefixes) {
    if (key.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best;
}

// A small alphabet makes shared prefixes, edge splits and near misses common.
const keyText = fc.string({ unit: fc.constantFrom('a', 'b', '/', '-'), maxLength: 8 });

describe('RadixTree', () => {
  it('agrees with a linear scan on every key, for any set of prefixes inserted in any order', () => {
    fc.assert(
      fc.property(fc.array(keyText, { maxLength: 12 }), fc.array(keyText, { maxLength: 20 }), (prefixes, keys) => {
        const tree = new RadixTree<number>();
        prefixes.forEach((prefix, i) => tree.insert(prefix, i));
        for (const key of [...keys, ...prefixes]) {
          const expected = linearLongestPrefix(prefixes, key);
          const match = tree.longestPrefixOf(key);
          expect(match?.prefix).toBe(expected);
          if (expected !== undefined) expect(match?.value).toBe(prefixes.indexOf(expected)); // the first insert wins
        }
        expect(tree.size).toBe(new Set(prefixes).size);
      }),
      { numRuns: 500 },
    );
  });

  it('matches plain string prefixes: ns/a covers ns/a/b and ns/ab, not ns/ or ns/b', () => {
    const tree = new RadixTree<string>();
    tree.insert('ns/a', 'a');
    expect(tree.longestPrefixOf('ns/a/b')?.prefix).toBe('ns/a');
    expect(tree.longestPrefixOf('ns/ab')?.prefix).toBe('ns/a');
    expect(tree.longestPrefixOf('ns/a')?.prefix).toBe('ns/a');
    expect(tree.longestPrefixOf('ns/')).toBeUndefined();
    expect(tree.longestPrefixOf('ns/b')).toBeUndefined();
  });

  it('prefers the longest of nested prefixes and falls back past a split edge', () => {
    const tree = new RadixTree<string>();
    for (const prefix of ['ns/', 'ns/ledger/', 'ns/ledger/2026/', 'ns/legal/']) tree.insert(prefix, prefix);
    expect(tree.longestPrefixOf('ns/ledger/2026/11')?.value).toBe('ns/ledger/2026/');
    expect(tree.longestPrefixOf('ns/ledger/2025/11')?.value).toBe('ns/ledger/');
    expect(tree.longestPrefixOf('ns/leg')?.value).toBe('ns/');
    expect(tree.longestPrefixOf('ns/legal/x')?.value).toBe('ns/legal/');
    expect(tree.longestPrefixOf('other/ledger/')).toBeUndefined();
  });

  it('keeps the first value for a prefix inserted twice', () => {
    const tree = new RadixTree<string>();
    expect(tree.insert('ns/', 'first')).toBe(true);
    expect(tree.insert('ns/', 'second')).toBe(false);
    expect(tree.longestPrefixOf('ns/x')?.value).toBe('first');
  });

  it('lists its entries in lexicographic order, whatever the insert order', () => {
    fc.assert(
      fc.property(fc.uniqueArray(keyText, { maxLength: 12 }), (prefixes) => {
        const tree = new RadixTree<null>();
        for (const prefix of prefixes) tree.insert(prefix, null);
        expect(tree.entries().map((e) => e.prefix)).toEqual([...prefixes].sort());
      }),
    );
  });
});
