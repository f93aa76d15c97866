import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isLockError } from './lock-error.js';
import { EPOCH_LIMIT, REVISION_LIMIT, formatToken, packToken, parseToken, unpackToken } from './token.js';
import { revision } from './units.js';

const epochs = fc.integer({ min: 0, max: EPOCH_LIMIT - 1 });
const revisions = fc.bigInt({ min: 0n, max: REVISION_LIMIT - 1n }).map(revision);

describe('fencing token (ADR-02)', () => {
  it('round-trips epoch and revision, through the decimal wire form too', () => {
    fc.assert(
      fc.property(epochs, revisions, (epoch, rev) => {
        const token = packToken(epoch, rev);
        expect(unpackToken(token)).toEqual({ epoch, revision: rev });
        expect(parseToken(formatToken(token))).toBe(token);
      }),
    );
  });

  it('orders strictly by (epoch, revision): a later epoch beats any revision of an earlier one', () => {
    fc.assert(
      fc.property(epochs, revisions, epochs, revisions, (e1, r1, e2, r2) => {
        const t1 = packToken(e1, r1);
        const t2 = packToken(e2, r2);
        const lexicographic = e1 !== e2 ? (e1 < e2 ? -1 : 1) : r1 === r2 ? 0 : r1 < r2 ? -1 : 1;
        const numeric = t1 === t2 ? 0 : t1 < t2 ? -1 : 1;
        expect(numeric).toBe(lexicographic);
      }),
    );
  });

  it('stays positive in a signed 64-bit column', () => {
    const largest = packToken(EPOCH_LIMIT - 1, REVISION_LIMIT - 1n);
    expect(largest).toBe((1n << 63n) - 1n);
  });

  it('refuses an epoch of 2^15 or more, and a revision of 2^48 or more', () => {
    expect(() => packToken(EPOCH_LIMIT, revision(1n))).toThrow(/epoch 32768/);
    expect(() => packToken(-1, revision(1n))).toThrow(/epoch -1/);
    expect(() => packToken(1, revision(REVISION_LIMIT))).toThrow(/revision/);
    expect(() => packToken(1.5, revision(1n))).toThrow(/epoch/);
  });

  it.each(['', ' 12', '12 ', '-1', '+1', '012', '1e3', '0x10', 'abc', '9223372036854775808', '99999999999999999999'])(
    'refuses the malformed token %j with invalid-argument',
    (text) => {
      let caught: unknown;
      try {
        parseToken(text);
      } catch (error) {
        caught = error;
      }
      expect(isLockError(caught, 'invalid-argument')).toBe(true);
    },
  );
});
