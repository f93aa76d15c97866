import { describe, expect, it } from 'vitest';
import { commitMs, lossCases, quorumBounds } from './quorum-bounds.js';
import { validateTopology, type Topology } from './topology.js';

// Constant links and disks, so every figure can be worked out by hand from the path it prices.
const constant: Topology = validateTopology({
  name: 'constant-stretched',
  halls: [
    { name: 'e', region: 'east' },
    { name: 'w', region: 'west' },
    { name: 'x', region: 'europe' },
  ],
  rttMs: [
    [0.2, 30, 70],
    [30, 0.2, 90],
    [70, 90, 0.2],
  ],
  linkP99OverMedian: 1,
  fsync: { kind: 'constant', ms: 1 },
  members: [
    { name: 'm-e', hall: 'e' },
    { name: 'm-w', hall: 'w' },
    { name: 'm-x', hall: 'x' },
  ],
  arbiter: { hall: 'e' },
  clients: { hall: 'e', count: 1 },
});

describe('quorum bounds', () => {
  it('commit: the majority-th of the leader fsync and each follower round trip + fsync', () => {
    expect(commitMs(constant, 'm-e', 0.5)).toBe(30 + 1); // m-w's ack beats m-x's 70 + 1
    expect(commitMs(constant, 'm-x', 0.5)).toBe(70 + 1); // the nearest follower of eu is m-e
    // Loaded: the follower's Ready may be in an fsync when the append lands.
    expect(commitMs(constant, 'm-e', 0.5, true)).toBe(30 + 1 + 1);
  });

  it("each leader's path goes through the arbiter's own member and forwards to the leader", () => {
    const bounds = quorumBounds(constant);
    const hops = 0.2 + 0.2; // client -> arbiter, arbiter -> m-e, both in hall e
    [hops + 31, hops + 30 + 31, hops + 70 + 71].forEach((ms, i) => expect(bounds.byLeader[i]!.medianMs).toBeCloseTo(ms, 9));
    // Constant parts: the p99 bound is the median path.
    expect(bounds.byLeader.map((l) => l.p99BoundMs)).toEqual(bounds.byLeader.map((l) => l.medianMs));
    expect(bounds.floorMs).toBeCloseTo(hops + 31, 9);
    expect(bounds.upperMs).toBeCloseTo(hops + 70 + 71, 9);
  });

  it('the failover bound puts the client on the worst member; the loaded bound adds one fsync per Ready', () => {
    const bounds = quorumBounds(constant);
    // Leader m-x, client failed over to m-w: arbiter -> m-w 30, forward m-w <-> m-x 90, commit 71.
    expect(bounds.failoverUpperMs).toBeCloseTo(0.2 + 30 + 90 + 71, 9);
    // Leader m-x, endpoint m-e: two Readies at m-e (forward, apply), two at m-x (send, apply), one at the acking follower.
    expect(bounds.loadedUpperMs).toBeCloseTo(0.2 + 0.2 + 70 + 2 * 1 + 2 * 1 + (70 + 1 + 1), 9);
    expect(bounds.loadedUpperMs).toBeGreaterThan(bounds.upperMs);
  });

  it('losses: a lost majority is named, and a surviving one gets an election window', () => {
    const cases = lossCases(constant);
    expect(cases.map((c) => c.lost)).toEqual(['region east', 'region west', 'region europe', 'hall e', 'hall w', 'hall x']);
    for (const c of cases) {
      expect(c.quorumSurvives).toBe(true); // one member of three lost
      const [soonest, latest] = c.newLeaderMs!;
      // At least a shortest election timeout less the tick of heartbeat phase; at most two timeouts and two commits.
      expect(soonest).toBeGreaterThanOrEqual(1000 - 2 * 100);
      expect(latest).toBeGreaterThan(soonest);
    }
    const five = validateTopology({ ...constant, name: 'two-halls', members: [...constant.members, { name: 'm-e2', hall: 'e' }, { name: 'm-e3', hall: 'e' }] });
    expect(lossCases(five).find((c) => c.lost === 'hall e')).toMatchObject({ quorumSurvives: false, newLeaderMs: null });
  });
});
