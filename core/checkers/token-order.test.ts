import { describe, expect, it } from 'vitest';
import type { GrantRecord } from './run-history.js';
import { checkTokenOrder } from './token-order.js';

const grant = (holder: string, token: number, atMs: number, extra: Partial<GrantRecord> = {}): GrantRecord => ({
  key: 'k',
  token: BigInt(token),
  holder,
  revision: BigInt(token),
  grantedAtMs: atMs,
  ...extra,
});

describe('token order: strictly increasing in real time, never reused (ADR-02)', () => {
  it('passes tokens that rise with true time, across keys', () => {
    const result = checkTokenOrder([grant('a', 5, 10), grant('b', 9, 20, { key: 'x' }), grant('c', 12, 30)]);
    expect(result).toMatchObject({ name: 'token-order', ok: true, detail: 'ok: 3 grants in 1 cluster checked in true-time order' });
  });

  it('finds a token below one granted earlier in the cluster, e.g. after a restore without an epoch advance (ADR-03)', () => {
    const result = checkTokenOrder([grant('a', 9, 10, { key: 'x' }), grant('b', 5, 20, { key: 'y' })]);
    expect(result.violations).toEqual([
      {
        kind: 'token-not-increasing',
        key: 'y',
        message: 'key y: tokens went backwards in real time: holder a (token 9) was granted key x at 10 ms, then holder b (token 5) was granted key y at 20 ms; tokens strictly increase (ADR-02)',
        involved: [
          { holder: 'a', token: '9' },
          { holder: 'b', token: '5' },
        ],
        atMs: 20,
        revisions: ['9', '5'],
      },
    ]);
  });

  it('finds a reused token once, not also as a token that failed to increase', () => {
    const result = checkTokenOrder([grant('a', 9, 10, { key: 'x' }), grant('b', 9, 20, { key: 'y' })]);
    expect(result.violations.map((v) => v.kind)).toEqual(['token-reused']);
    expect(result.violations[0]?.message).toBe('token 9 was granted twice: to holder a (token 9) on key x at 10 ms and to holder b (token 9) on key y at 20 ms; a token is never reused (ADR-02)');
  });

  it('puts no order between grants at the same instant', () => {
    expect(checkTokenOrder([grant('a', 9, 10, { key: 'x' }), grant('b', 5, 10, { key: 'y' }), grant('c', 12, 11)]).ok).toBe(true);
    expect(checkTokenOrder([grant('a', 9, 10, { key: 'x' }), grant('b', 5, 10, { key: 'y' }), grant('c', 7, 11)]).violations.map((v) => v.involved[1]?.holder)).toEqual(['c']);
  });

  it('compares clusters apart, but a key that moved between clusters must keep rising (ADR-09)', () => {
    expect(checkTokenOrder([grant('a', 9, 10, { key: 'x', cluster: 'east' }), grant('b', 5, 20, { key: 'y', cluster: 'west' })]).ok).toBe(true);
    const moved = checkTokenOrder([grant('a', 9, 10, { cluster: 'east' }), grant('b', 5, 20, { cluster: 'west' })]);
    expect(moved.violations.map((v) => [v.kind, v.key])).toEqual([['token-not-increasing', 'k']]);
    expect(moved.violations[0]?.message).toMatch(/in cluster west/);
  });
});
