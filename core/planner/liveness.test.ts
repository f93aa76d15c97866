import { describe, expect, it } from 'vitest';
import { afterPromoteMs, DEFAULT_ETCD_TIMERS, electionWorstMs, livenessBound, poissonUpper95, quorumLossBound, writesPerSecond } from './liveness.js';

const timers = DEFAULT_ETCD_TIMERS;

describe('liveness bounds (ADR-10/12, etcd-behaviour.md 1.5, 1.7, 3.1)', () => {
  it('a crash with no leader change: TTL, one lessor scan, the revoke and grant commits, the reply', () => {
    expect(livenessBound(15).withoutLeaderChangeMs).toBe(15_000 + timers.lessorLoopMs + 2 * timers.commitMs + timers.rpcRoundTripMs);
  });

  it("a leader change adds the worst election and Promote's extension of the restarted lease", () => {
    const bound = livenessBound(15);
    expect(bound.withLeaderChangeMs - bound.withoutLeaderChangeMs).toBe(electionWorstMs(timers) + timers.promoteExtendMs);
    expect(electionWorstMs(timers)).toBe(2 * timers.tickMs * timers.electionTicks + 2 * timers.commitMs);
    expect(bound.withLeaderChangeMs).toBe(electionWorstMs(timers) + afterPromoteMs(15));
    expect(bound.lateLeaderChangeMs).toBe(15_000 + bound.withLeaderChangeMs);
  });

  it('a quorum loss: the outage, one election with PreVote, then the restarted lease', () => {
    const withPreVote = quorumLossBound(5, 12_000, { preVote: true });
    expect(withPreVote.recoveryElectionMs).toBe(electionWorstMs(timers));
    expect(withPreVote.afterLeaderMs).toBe(afterPromoteMs(5));
    expect(withPreVote.totalMs).toBe(12_000 + electionWorstMs(timers) + afterPromoteMs(5));
    // A longer outage only adds itself.
    expect(quorumLossBound(5, 20_000, { preVote: true }).totalMs! - withPreVote.totalMs!).toBe(8_000);
  });

  it('without PreVote the recovery election has no bound, and neither has the total', () => {
    const plain = quorumLossBound(5, 12_000, { preVote: false });
    expect(plain.recoveryElectionMs).toBeNull();
    expect(plain.totalMs).toBeNull();
    expect(plain.afterLeaderMs).toBe(afterPromoteMs(5));
  });

  it('slower timers lengthen the election and the extension', () => {
    const slow = { ...timers, tickMs: 200, promoteExtendMs: 2_000 };
    expect(livenessBound(15, slow).withLeaderChangeMs).toBeGreaterThan(livenessBound(15).withLeaderChangeMs + 2_000);
  });
});

describe('load and rates', () => {
  it('each hold is a grant and a release write', () => {
    expect(writesPerSecond(3_000, 0.1)).toBeCloseTo(600, 9);
  });

  it('a Poisson upper bound: the rule of three at zero events, above the observed rate otherwise', () => {
    expect(poissonUpper95(0, 10)).toBeCloseTo(0.2996, 3);
    expect(poissonUpper95(5, 10)).toBeGreaterThan(0.5);
    expect(poissonUpper95(5, 10)).toBeLessThan(1.2);
    expect(poissonUpper95(1, 0)).toBe(Number.POSITIVE_INFINITY);
  });
});
