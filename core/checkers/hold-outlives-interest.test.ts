import { describe, expect, it } from 'vitest';
import { checkHoldOutlivesInterest } from './hold-outlives-interest.js';
import { disturbance, hold, interest, livenessRun } from './liveness-fixtures.js';

const owned = (releasedMs: number, release: 'released' | 'not-released' | 'in-doubt' = 'released') => interest('a', { fromMs: 1_000, answeredMs: 1_100, outcome: 'granted', token: 5n, releasedMs, release, releaseAnsweredMs: releasedMs + 50 });

describe('hold-outlives-interest: a hold ends within a TTL and the bound of its holder giving it up', () => {
  it('passes a hold released at once, or expiring within a TTL after a crash', () => {
    expect(checkHoldOutlivesInterest([hold('a', 5n, 1_050, 4_020)], livenessRun([owned(4_000)])).ok).toBe(true);
    const crashed = interest('a', { fromMs: 1_000, answeredMs: 1_100, outcome: 'granted', token: 5n });
    expect(checkHoldOutlivesInterest([hold('a', 5n, 1_050, 9_500)], livenessRun([crashed]), [{ holder: 'a', kind: 'crash', fromMs: 4_000 }]).ok).toBe(true);
  });

  it('finds a hold left in the log after a release answered released:false (S2), and one still there at the end (negative control)', () => {
    const result = checkHoldOutlivesInterest([hold('a', 5n, 1_050, 30_000)], livenessRun([owned(4_000, 'not-released')]));
    expect(result.ok).toBe(false);
    expect(result.violations[0]).toMatchObject({ kind: 'hold-outlived-interest', key: 'k', atMs: 10_000, involved: [{ holder: 'a', token: '5' }] });
    expect(result.violations[0]?.message).toMatch(/^key k: holder a \(token 5\) gave the hold up at 4000 ms .* stayed in the log until 30000 ms/);
    expect(checkHoldOutlivesInterest([hold('a', 5n, 1_050)], livenessRun([owned(4_000)])).violations.map((v) => v.kind)).toEqual(['hold-outlived-interest']);
  });

  it('waits for every task handed the hold, excuses a disturbance, and leaves holds in doubt or nobody was handed to in-doubt-resolved', () => {
    const second = interest('a', { task: 'a/task-2', fromMs: 2_000, answeredMs: 2_001, outcome: 'granted', token: 5n });
    expect(checkHoldOutlivesInterest([hold('a', 5n, 1_050)], livenessRun([owned(4_000), second])).ok).toBe(true);
    expect(checkHoldOutlivesInterest([hold('a', 5n, 1_050, 14_000)], livenessRun([owned(4_000)], [disturbance(5_000, 9_000)])).ok).toBe(true);
    expect(checkHoldOutlivesInterest([hold('a', 5n, 1_050)], livenessRun([owned(4_000, 'in-doubt')])).ok).toBe(true);
    expect(checkHoldOutlivesInterest([hold('a', 5n, 1_050)], livenessRun([])).ok).toBe(true);
  });
});
