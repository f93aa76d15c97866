import { describe, expect, it } from 'vitest';
import { falseFencesPerSessionHourFromPauses, keepalivesPerSecond, livenessBound } from './liveness.js';
import { quorumBounds } from './quorum-bounds.js';
import { type Topology, TopologyError, validateTopology } from './topology.js';
import { ttlVerdict } from './ttl-verdict.js';

const stretched: Topology = {
  name: 't',
  halls: [{ name: 'a', region: 'r1' }, { name: 'b', region: 'r2' }, { name: 'c', region: 'r3' }],
  rttMs: [[0.2, 30, 70], [30, 0.2, 90], [70, 90, 0.2]],
  linkP99OverMedian: 1,
  fsync: { kind: 'constant', ms: 1 },
  members: [{ name: 'm-a', hall: 'a' }, { name: 'm-b', hall: 'b' }, { name: 'm-c', hall: 'c' }],
  arbiter: { hall: 'a' },
  clients: { hall: 'a', count: 1 },
};

function fieldOf(value: unknown): string {
  try {
    validateTopology(value);
  } catch (error) {
    if (error instanceof TopologyError) return error.field;
  }
  return '(valid)';
}

describe('topology validation names the field', () => {
  it('accepts a sound topology and rejects each kind of mistake by its field', () => {
    expect(fieldOf(stretched)).toBe('(valid)');
    expect(fieldOf({ ...stretched, rttMs: [[0.2, 30], [30, 0.2], [70, 90]] })).toBe('rttMs[0]');
    expect(fieldOf({ ...stretched, rttMs: [[0.2, 30, 70], [31, 0.2, 90], [70, 90, 0.2]] })).toBe('rttMs[0][1]');
    expect(fieldOf({ ...stretched, rttMs: [[0.2, -1, 70], [-1, 0.2, 90], [70, 90, 0.2]] })).toBe('rttMs[0][1]');
    expect(fieldOf({ ...stretched, members: stretched.members.slice(0, 2) })).toBe('members');
    expect(fieldOf({ ...stretched, rttMs: [[0.2, null, null], [null, 0.2, null], [null, null, 0.2]] })).toBe('rttMs');
    expect(fieldOf({ ...stretched, members: [...stretched.members.slice(0, 2), { name: 'm-x', hall: 'nowhere' }] })).toBe('members[2].hall');
  });
});

describe('analytic bounds', () => {
  it('prices each leader of a stretched cluster: endpoint hop, forward, then the fastest majority', () => {
    const bounds = quorumBounds(stretched);
    expect(bounds.quorumFloorMs).toBe(31); // leader m-a: its own fsync and m-b's 30 + 1
    expect(bounds.byLeader.map((l) => l.medianMs)).toEqual([31.4, 61.4, 141.4]);
    expect(bounds.floorMs).toBe(31.4);
  });

  it('keepalive load and the liveness bound follow etcd timers', () => {
    expect(keepalivesPerSecond(40_000, 15)).toBe(8_000); // ADR-10's example
    const bound = livenessBound(15);
    expect(bound.withoutLeaderChangeMs).toBeGreaterThan(15_500);
    expect(bound.withLeaderChangeMs - bound.withoutLeaderChangeMs).toBeGreaterThanOrEqual(3_000); // election + 1 s promote
  });

  it('false fences from pauses: none when pauses are short, all pauses when they exceed the TTL', () => {
    expect(falseFencesPerSessionHourFromPauses(15, 60, () => 100)).toBe(0);
    expect(falseFencesPerSessionHourFromPauses(5, 60, () => 10_000)).toBe(60);
  });

  it('ADR-11 verdict: range and advisory floor', () => {
    expect(ttlVerdict(15, 'fenced', []).ok).toBe(true);
    expect(ttlVerdict(20, 'advisory', []).aboveAdvisoryFloor).toBe(false);
    expect(ttlVerdict(400, 'fenced', []).problems[0]?.field).toBe('spec.ttlSeconds');
  });
});
