import { describe, expect, it } from 'vitest';
import { checkBelief } from './belief.js';
import type { BeliefInterval, GrantRecord } from './run-history.js';

const grants: GrantRecord[] = [
  { key: 'k', token: 5n, holder: 'a', revision: 5n, grantedAtMs: 1000, endedAtRevision: 8n, endedAtMs: 16000, endReason: 'expiry' },
  { key: 'k', token: 9n, holder: 'b', revision: 9n, grantedAtMs: 16100 },
  { key: 'other', token: 7n, holder: 'c', revision: 7n, grantedAtMs: 2000 },
];
const belief = (holder: string, token: bigint, fromMs: number, toMs?: number): BeliefInterval => ({ holder, key: 'k', token, fromMs, ...(toMs === undefined ? {} : { toMs }) });

describe('belief: no holder can start work after another was granted the key (ADR-12)', () => {
  it('passes a holder that stopped before the next grant, and a last holder still believing', () => {
    const result = checkBelief(grants, [belief('a', 5n, 1010, 15000), belief('b', 9n, 16110)]);
    expect(result).toMatchObject({ name: 'belief', ok: true, detail: 'ok: 2 belief spans of 2 holders checked against 3 grants' });
  });

  it('allows a belief that ends exactly when the next grant is applied: spans exclude their end', () => {
    expect(checkBelief(grants, [belief('a', 5n, 1010, 16100)]).ok).toBe(true);
  });

  it('names both holders and the overrun of a holder in the dark', () => {
    const result = checkBelief(grants, [belief('a', 5n, 1010, 17300)]);
    expect(result.violations).toEqual([
      {
        kind: 'belief-after-later-grant',
        key: 'k',
        message: 'key k: holder a (token 5) could still start work (canStart() true) until 17300 ms, but holder b (token 9) was granted the key at 16100 ms (revision 9): a believed it held the key for 1200 ms after it had lost it (ADR-12)',
        involved: [
          { holder: 'a', token: '5' },
          { holder: 'b', token: '9' },
        ],
        atMs: 16100,
        revisions: ['5', '9'],
      },
    ]);
  });

  it('finds a belief that never ended, a belief before its grant, and one with no grant at all', () => {
    const result = checkBelief(grants, [belief('a', 5n, 1010), belief('a', 5n, 900, 950), belief('z', 11n, 20000, 21000)]);
    expect(result.violations.map((v) => v.kind)).toEqual(['belief-after-later-grant', 'belief-before-grant', 'belief-without-grant']);
    expect(result.violations[0]?.message).toMatch(/until the end of the run, .* to the end of the run after it had lost it/);
  });
});
