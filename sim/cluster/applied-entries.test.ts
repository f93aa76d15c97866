import { describe, expect, it } from 'vitest';
import { AppliedEntries } from './applied-entries.js';

describe('AppliedEntries', () => {
  it('accepts the same entry at an index from every member', () => {
    const applied = new AppliedEntries();
    for (const member of ['a', 'b', 'c']) {
      expect(applied.note(member, 1, 1, 'conf-change')).toBeUndefined();
      expect(applied.note(member, 2, 2, 7n)).toBeUndefined();
    }
  });

  it('names a member that applied another request or another term at an index (negative controls)', () => {
    const applied = new AppliedEntries();
    applied.note('a', 5, 2, 41n);
    expect(applied.note('b', 5, 2, 42n)).toBe('index 5: b applied 2|42 where another member applied 2|41');
    expect(applied.note('c', 5, 3, 41n)).toBe('index 5: c applied 3|41 where another member applied 2|41');
    expect(applied.note('c', 5, 2, 'normal')).toBe('index 5: c applied 2|normal where another member applied 2|41');
  });

  it('forgets the indexes every snapshot covers, so its memory stays bounded', () => {
    const applied = new AppliedEntries();
    for (let index = 1; index <= 10; index += 1) applied.note('a', index, 1, BigInt(index));
    applied.forgetThrough(6);
    expect(applied.size).toBe(4);
    applied.forgetThrough(3); // never backwards
    expect(applied.size).toBe(4);
    // A forgotten index is taken afresh (no member applies it again; this only shows it is gone).
    expect(applied.note('b', 2, 9, 99n)).toBeUndefined();
  });
});
