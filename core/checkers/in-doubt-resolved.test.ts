import { describe, expect, it } from 'vitest';
import { checkInDoubtResolved } from './in-doubt-resolved.js';
import { disturbance, hold, interest, livenessRun } from './liveness-fixtures.js';

describe('in-doubt-resolved: a grant or release in doubt is resolved, never misreported', () => {
  it('passes an in-doubt acquire whose hold the library gave back, and an in-doubt release settled later', () => {
    const lost = interest('a', { fromMs: 1_000, answeredMs: 9_000, outcome: 'in-doubt', code: 'indeterminate' });
    expect(checkInDoubtResolved([hold('a', 5n, 1_050, 9_400)], livenessRun([lost])).ok).toBe(true);
    const release = interest('a', { fromMs: 1_000, answeredMs: 1_100, outcome: 'granted', token: 5n, releasedMs: 3_000, release: 'in-doubt', releaseAnsweredMs: 11_000 });
    expect(checkInDoubtResolved([hold('a', 5n, 1_050, 12_000)], livenessRun([release])).ok).toBe(true);
  });

  it('finds a grant the arbiter answered wait-timeout while the hold was in the log (L2)', () => {
    const told = interest('a', { fromMs: 1_000, answeredMs: 9_000, outcome: 'refused', code: 'wait-timeout' });
    const result = checkInDoubtResolved([hold('a', 5n, 2_000)], livenessRun([told]));
    expect(result.violations.map((v) => [v.kind, v.atMs])).toEqual([['in-doubt-misreported', 2_000]]);
    expect(result.violations[0]?.message).toMatch(/^key k: the log granted holder a \(token 5\) at 2000 ms \(revision 5\), but a\/task-1's acquire, sent at 1000 ms, was answered wait-timeout at 9000 ms/);
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 9_500)], livenessRun([told])).violations.map((v) => v.kind)).toEqual(['in-doubt-misreported']);
  });

  it('gives a grant to the task of the holder still waiting when it was made, not to one refused before it', () => {
    // Seeds 128 and 147 of the swarm: one task waits (its answer lost), another's try-lock was told
    // `contended` truthfully while someone else held the key; the grant that follows is the waiter's.
    const waiting = interest('a', { task: 'a/task-1', fromMs: 1_000, answeredMs: 9_000, outcome: 'in-doubt', code: 'indeterminate' });
    const tried = interest('a', { task: 'a/task-2', fromMs: 1_500, answeredMs: 1_510, outcome: 'refused', code: 'contended' });
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 7_000)], livenessRun([waiting, tried])).ok).toBe(true);
    // Negative control: with nobody waiting at the grant, the refused try-lock is the only asker: misreported.
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 7_000)], livenessRun([tried])).violations.map((v) => v.kind)).toEqual(['in-doubt-misreported']);
    // Seed 481: the waiter's answer (indeterminate) came before the grant, the request still at the
    // arbiter; a later try-lock was told `draining`. The grant is the in-doubt one's, and it went at once.
    const lostEarly = interest('a', { task: 'a/task-1', fromMs: 1_000, answeredMs: 1_900, outcome: 'in-doubt', code: 'indeterminate' });
    const drained = interest('a', { task: 'a/task-2', fromMs: 1_500, answeredMs: 1_510, outcome: 'refused', code: 'draining' });
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 2_050)], livenessRun([lostEarly, drained])).ok).toBe(true);
    expect(checkInDoubtResolved([hold('a', 5n, 2_000)], livenessRun([lostEarly, drained])).violations.map((v) => v.kind)).toEqual(['in-doubt-unresolved']);
    // Seed 520: a try-lock told `contended` (its answer slowed on the way back) and a wait of the same
    // session both open at the grant: the grant is the wait's; its session expired, the hold with it.
    const waitedOn = interest('a', { task: 'a/task-1', fromMs: 1_000, answeredMs: 3_000, outcome: 'refused', code: 'session-expired', waitMs: 2_000 });
    const slowTry = interest('a', { task: 'a/task-2', fromMs: 1_010, answeredMs: 2_500, outcome: 'refused', code: 'contended', waitMs: 0 });
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 3_100)], livenessRun([waitedOn, slowTry])).ok).toBe(true);
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 3_100)], livenessRun([slowTry])).violations.map((v) => v.kind)).toEqual(['in-doubt-misreported']);
    // Two tasks open at the grant, one in doubt and one told wait-timeout: the grant is taken for the one
    // in doubt's (it could be either; the checker picks the likelier). Alone, the wait-timeout is L2.
    const timedOut = interest('a', { task: 'a/task-2', fromMs: 1_500, answeredMs: 6_000, outcome: 'refused', code: 'wait-timeout' });
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 7_000)], livenessRun([waiting, timedOut])).ok).toBe(true);
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 7_000)], livenessRun([timedOut])).violations.map((v) => v.kind)).toEqual(['in-doubt-misreported']);
  });

  it('takes a refusal answered after the hold had ended (its session expired meanwhile) for the truth', () => {
    const expired = interest('a', { fromMs: 1_000, answeredMs: 12_000, outcome: 'refused', code: 'session-expired' });
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 8_000)], livenessRun([expired])).ok).toBe(true);
    expect(checkInDoubtResolved([hold('a', 5n, 2_000, 12_400)], livenessRun([expired])).ok).toBe(true); // the revoke landed soon after
    expect(checkInDoubtResolved([hold('a', 5n, 2_000)], livenessRun([expired])).violations.map((v) => v.kind)).toEqual(['in-doubt-unresolved']);
  });

  it('finds an unhanded hold and an in-doubt release left in the log (negative controls), excused only by a disturbance', () => {
    const lost = interest('a', { fromMs: 1_000, answeredMs: 9_000, outcome: 'in-doubt', code: 'indeterminate' });
    expect(checkInDoubtResolved([hold('a', 5n, 1_050)], livenessRun([lost])).violations.map((v) => [v.kind, v.atMs])).toEqual([['in-doubt-unresolved', 15_000]]);
    const release = interest('a', { fromMs: 1_000, answeredMs: 1_100, outcome: 'granted', token: 5n, releasedMs: 3_000, release: 'in-doubt', releaseAnsweredMs: 3_100 });
    expect(checkInDoubtResolved([hold('a', 5n, 1_050, 20_000)], livenessRun([release])).violations.map((v) => v.kind)).toEqual(['in-doubt-unresolved']);
    expect(checkInDoubtResolved([hold('a', 5n, 1_050, 20_000)], livenessRun([release], [disturbance(4_000, 16_000)])).ok).toBe(true);
  });

  it('leaves alone a hold whose acquire is still unanswered, and holds handed out and released definitely', () => {
    expect(checkInDoubtResolved([hold('a', 5n, 1_050)], livenessRun([interest('a', { fromMs: 1_000, outcome: 'pending' })])).ok).toBe(true);
    const fine = interest('a', { fromMs: 1_000, answeredMs: 1_100, outcome: 'granted', token: 5n, releasedMs: 3_000, release: 'released' });
    expect(checkInDoubtResolved([hold('a', 5n, 1_050)], livenessRun([fine]))).toMatchObject({ ok: true, detail: 'ok: 0 holds of in-doubt or unreported grants and releases checked (0 answers in doubt in the run)' });
  });
});
