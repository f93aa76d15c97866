import { describe, expect, it } from 'vitest';
import { checkFalseFence } from './false-fence.js';
import { disturbance, hold, interest, livenessRun } from './liveness-fixtures.js';

const wanted = interest('a', { fromMs: 1_000, answeredMs: 1_100, outcome: 'granted', token: 5n, releasedMs: 9_000, release: 'released' });
const fence = (atMs: number) => ({ holder: 'a', key: 'k', token: 5n, atMs });

describe('false-fence: no fence of a wanted hold while a quorum is healthy and reachable (ADR-12, L6)', () => {
  it('finds a fence with nothing but a stuck member in the TTL before it (negative control: the same fence after a partition passes)', () => {
    const result = checkFalseFence([hold('a', 5n, 1_050, 9_050)], [fence(7_000)], livenessRun([wanted], [disturbance(3_000, 20_000, true)]));
    expect(result.violations.map((v) => [v.kind, v.atMs, v.involved])).toEqual([['false-fence', 7_000, [{ holder: 'a', token: '5' }]]]);
    expect(result.violations[0]?.message).toMatch(/^key k: the library of holder a \(token 5\) fenced the hold at 7000 ms while its holder still wanted it/);
    expect(checkFalseFence([hold('a', 5n, 1_050, 9_050)], [fence(7_000)], livenessRun([wanted], [disturbance(3_000, 4_000)])).ok).toBe(true);
  });

  it('leaves alone fences of holds already over, or no longer wanted', () => {
    expect(checkFalseFence([hold('a', 5n, 1_050, 6_000)], [fence(7_000)], livenessRun([wanted])).ok).toBe(true);
    expect(checkFalseFence([hold('a', 5n, 1_050)], [fence(9_500)], livenessRun([wanted])).ok).toBe(true);
  });
});
