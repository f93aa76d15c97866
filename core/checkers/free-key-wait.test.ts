import { describe, expect, it } from 'vitest';
import { checkFreeKeyWait, freeStretches } from './free-key-wait.js';
import { disturbance, hold, interest, livenessRun } from './liveness-fixtures.js';

describe('free-key-wait: a waiter is granted a free key within a poll interval and the bound (ADR-15)', () => {
  it('finds the free stretches of a key in a window', () => {
    expect(freeStretches([hold('b', 5n, 2_000, 3_000), hold('c', 7n, 3_010, 4_000)], 1_000, 6_000)).toEqual([[1_000, 2_000], [3_000, 3_010], [4_000, 6_000]]);
    expect(freeStretches([hold('b', 5n, 0)], 1_000, 6_000)).toEqual([]);
  });

  it('passes a waiter granted soon after the holder released, and a try-lock that is refused', () => {
    const grants = [hold('b', 5n, 500, 3_000), hold('a', 7n, 3_040, 4_000)];
    expect(checkFreeKeyWait(grants, livenessRun([interest('a', { fromMs: 1_000, answeredMs: 3_050, outcome: 'granted', token: 7n })])).ok).toBe(true);
    expect(checkFreeKeyWait([], livenessRun([interest('a', { fromMs: 1_000, answeredMs: 1_001, outcome: 'refused', code: 'contended', waitMs: 0 })])).ok).toBe(true);
  });

  it('finds a waiter timed out on a key free for seconds (L3), and one still waiting at the end (negative controls)', () => {
    const grants = [hold('b', 5n, 500, 3_000)];
    const result = checkFreeKeyWait(grants, livenessRun([interest('a', { fromMs: 1_000, answeredMs: 9_000, outcome: 'refused', code: 'wait-timeout' })]));
    expect(result.violations.map((v) => [v.kind, v.atMs])).toEqual([['waited-on-free-key', 5_200]]);
    expect(result.violations[0]?.message).toMatch(/^key k: a\/task-1 waited in line from 1000 ms \(wait 8000 ms, answered wait-timeout at 9000 ms\) while the log held nothing on the key from 3000 ms to 9000 ms/);
    expect(checkFreeKeyWait(grants, livenessRun([interest('a', { fromMs: 1_000, outcome: 'pending' })], [], 6_000)).ok).toBe(false);
  });

  it('excuses a free stretch inside a disturbance, and the wait after the waiter crashed', () => {
    const grants = [hold('b', 5n, 500, 3_000)];
    const timedOut = interest('a', { fromMs: 1_000, answeredMs: 9_000, outcome: 'refused', code: 'wait-timeout' });
    expect(checkFreeKeyWait(grants, livenessRun([timedOut], [disturbance(2_500, 8_000)])).ok).toBe(true);
    // Sent during a cut, the request may never have reached a line: the wait is not judged (its control: sent after the cut, it is).
    expect(checkFreeKeyWait(grants, livenessRun([timedOut], [disturbance(500, 1_500)])).ok).toBe(true);
    expect(checkFreeKeyWait(grants, livenessRun([timedOut], [disturbance(200, 900)])).ok).toBe(false);
    expect(checkFreeKeyWait(grants, livenessRun([interest('a', { fromMs: 1_000, outcome: 'pending' })]), [{ holder: 'a', kind: 'crash', fromMs: 3_500 }]).ok).toBe(true);
  });
});
