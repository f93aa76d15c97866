import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareKeys } from './key-order.js';
import { SortedKeySet } from './sorted-key-set.js';

describe('SortedKeySet (the B-tree of mvcc/index.go)', () => {
  it('agrees with a sorted array under random adds, deletes and scans', () => {
    const ops = fc.array(fc.tuple(fc.boolean(), fc.string({ maxLength: 4, unit: 'grapheme' })), { maxLength: 3000 });
    fc.assert(
      fc.property(ops, fc.string({ maxLength: 2 }), (steps, start) => {
        const set = new SortedKeySet();
        const model = new Set<string>();
        for (const [add, key] of steps) {
          if (add && !model.has(key)) {
            set.add(key);
            model.add(key);
          } else if (!add) {
            expect(set.delete(key)).toBe(model.delete(key));
          }
        }
        const sorted = [...model].sort(compareKeys);
        expect([...set.all()]).toEqual(sorted);
        expect([...set.from(start)]).toEqual(sorted.filter((key) => compareKeys(key, start) >= 0));
        expect(set.size).toBe(model.size);
      }),
      { numRuns: 60 },
    );
  });

  it('splits into chunks and still iterates in order past many thousands of keys', () => {
    const set = new SortedKeySet();
    for (let i = 0; i < 20_000; i++) set.add(`k${(i * 7919) % 20_000}`);
    const keys = [...set.all()];
    expect(keys).toHaveLength(20_000);
    expect(keys).toEqual([...keys].sort(compareKeys));
    for (let i = 0; i < 20_000; i += 2) set.delete(`k${i}`);
    expect([...set.from('k1')][0]).toBe('k1');
    expect(set.size).toBe(10_000);
  });
});
