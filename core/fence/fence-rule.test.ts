import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FENCE_MODE, type FenceMode, fenceAccepts, markAfter, sqlMarkComparison } from './fence-rule.js';

const tokens = fc.array(fc.bigInt({ min: 1n, max: 40n }), { maxLength: 12 });
const modes = fc.constantFrom<FenceMode>('above', 'at-or-above');

/** The tokens a resource that judges with `accepts` takes, in order, and its final mark. */
function replay(sequence: readonly bigint[], accepts: (mark: bigint | undefined, token: bigint) => boolean): { accepted: bigint[]; mark: bigint | undefined } {
  let mark: bigint | undefined;
  const accepted: bigint[] = [];
  for (const token of sequence) {
    if (!accepts(mark, token)) continue;
    accepted.push(token);
    mark = token;
  }
  return { accepted, mark };
}

describe('the fence rule (ADR-16)', () => {
  it("defaults to ADR-16's strict clause: an equal token is refused, a higher one accepted", () => {
    expect(DEFAULT_FENCE_MODE).toBe('above');
    expect([fenceAccepts(undefined, 5n), fenceAccepts(5n, 5n), fenceAccepts(5n, 6n), fenceAccepts(5n, 4n)]).toEqual([true, false, true, false]);
  });

  it('at-or-above differs only on an equal token', () => {
    expect([fenceAccepts(5n, 5n, 'at-or-above'), fenceAccepts(5n, 6n, 'at-or-above'), fenceAccepts(5n, 4n, 'at-or-above')]).toEqual([true, true, false]);
    fc.assert(fc.property(fc.option(fc.bigInt({ min: 0n, max: 50n }), { nil: undefined }), fc.bigInt({ min: 0n, max: 50n }), (mark, token) => {
      const differs = fenceAccepts(mark, token, 'above') !== fenceAccepts(mark, token, 'at-or-above');
      expect(differs).toBe(mark === token && token > 0n);
    }));
  });

  it('in either mode, the accepted tokens never go down, so successive grants land in token order (ADR-01)', () => {
    fc.assert(fc.property(tokens, modes, (sequence, mode) => {
      const { accepted, mark } = replay(sequence, (m, t) => fenceAccepts(m, t, mode));
      for (let i = 1; i < accepted.length; i++) expect(accepted[i]! >= accepted[i - 1]!).toBe(true);
      if (mode === 'above') expect(new Set(accepted).size).toBe(accepted.length);
      expect(mark).toBe(sequence.reduce<bigint | undefined>((m, t) => markAfter(m, t, mode), undefined));
    }));
  });

  it('refuses token 0, the token of every unprotected grant from memory (ADR-04), on a fresh record and after any mark, in both modes', () => {
    for (const mode of ['above', 'at-or-above'] as const) {
      expect([fenceAccepts(undefined, 0n, mode), fenceAccepts(0n, 0n, mode), fenceAccepts(5n, 0n, mode)]).toEqual([false, false, false]);
      expect(markAfter(undefined, 0n, mode)).toBeUndefined();
      expect(fenceAccepts(undefined, 1n, mode)).toBe(true); // the lowest token etcd mints still is
    }
  });

  it('negative control: a resource that accepts everything lets a lower token land after a higher one', () => {
    expect(replay([9n, 5n], () => true).accepted).toEqual([9n, 5n]);
    expect(replay([9n, 5n], (m, t) => fenceAccepts(m, t)).accepted).toEqual([9n]);
  });

  it('reads the same rule from the column side for SQL: fence < $token, or fence <= $token', () => {
    expect([sqlMarkComparison('above'), sqlMarkComparison('at-or-above')]).toEqual(['<', '<=']);
  });
});
