import { describe, expect, it } from 'vitest';
import { buildTimelineModel } from './model.js';
import { ALICE, ALICE_TOKEN, BOB, BOB_TOKEN, sampleArtifact, unfencedCheck } from './test-fixtures.js';
import type { Mark, TimelineModel } from './types.js';

const of = (model: TimelineModel, kind: Mark['kind'], lane?: string): Mark[] => model.marks.filter((m) => m.kind === kind && (lane === undefined || m.lane === lane));

describe('timeline model: lanes', () => {
  it('orders lanes clients, arbiters, members, resources, world; names sorted naturally within each', () => {
    const model = buildTimelineModel(sampleArtifact());
    expect(model.lanes.map((l) => l.name)).toEqual(['alice', 'bob', 'arbiter-1', 'etcd-1', 'etcd-2', 'etcd-10', 'ledger-db', '']);
    expect(model.lanes.map((l) => l.role)).toEqual(['client', 'client', 'arbiter', 'member', 'member', 'member', 'resource', 'world']);
    expect(model.lanes.at(-1)?.label).toBe('world');
  });

  it('without the capture, names client lanes after the identity and infers roles from the records', () => {
    const { timeline: _omitted, ...bare } = sampleArtifact();
    const model = buildTimelineModel(bare);
    expect(model.hasTrace).toBe(false);
    expect(model.lanes.map((l) => `${l.role}:${l.name}`)).toEqual(['client:alice', 'client:bob', 'resource:ledger-db', 'world:']);
    expect(of(model, 'hold').map((m) => m.lane)).toEqual(['alice', 'bob']);
  });
});

describe('timeline model: marks', () => {
  const model = buildTimelineModel(sampleArtifact());

  it('ids are positions in time order', () => {
    expect(model.marks.map((m) => m.id)).toEqual(model.marks.map((_m, i) => i));
    for (let i = 1; i < model.marks.length; i += 1) expect((model.marks[i] as Mark).startMs).toBeGreaterThanOrEqual((model.marks[i - 1] as Mark).startMs);
  });

  it('draws holds with their tokens; one still held ends with the run', () => {
    expect(of(model, 'hold').map((m) => [m.lane, m.startMs, m.endMs, m.label])).toEqual([
      ['alice', 320, 5591, ALICE_TOKEN],
      ['bob', 5595, 20000, BOB_TOKEN],
    ]);
    expect(of(model, 'hold', 'bob')[0]?.details['endReason']).toMatch(/still held/);
  });

  it('marks the expiry of a hold the log ended by expiry, and the lease expiry at the leader', () => {
    expect(of(model, 'expiry').map((m) => [m.lane, m.startMs])).toEqual([
      ['etcd-1', 5000],
      ['alice', 5591],
    ]);
  });

  it('puts writes and fence rejections on the resource lane, beliefs on the holder lane', () => {
    expect(of(model, 'write', 'ledger-db').map((m) => m.details['holder'])).toEqual([ALICE, BOB]);
    expect(of(model, 'fence-rejection', 'ledger-db').map((m) => [m.startMs, m.endMs, m.label])).toEqual([[16307, 16327, ALICE_TOKEN]]);
    expect(of(model, 'belief', 'alice')).toHaveLength(2);
  });

  it('pairs spans from the trace: pauses with resumes, crashes with restarts, leader terms and elections with role changes', () => {
    expect(of(model, 'pause').map((m) => [m.lane, m.startMs, m.endMs, m.details['endedBy']])).toEqual([
      ['alice', 1000, 16000, 'process.resume'],
      ['bob', 19000, 20000, 'the end of the run'],
    ]);
    expect(of(model, 'crash').map((m) => [m.lane, m.startMs, m.endMs])).toEqual([['etcd-2', 9000, 9500]]);
    expect(of(model, 'leader').map((m) => [m.lane, m.startMs, m.endMs, m.label])).toEqual([['etcd-1', 110, 7000, 'leader, term 2']]);
    // etcd-2's campaign ends when it crashes.
    expect(of(model, 'election').map((m) => [m.lane, m.startMs, m.endMs])).toEqual([
      ['etcd-1', 100, 110],
      ['etcd-2', 7000, 9000],
    ]);
    expect(of(model, 'stall').map((m) => [m.lane, m.startMs, m.endMs])).toEqual([['etcd-2', 3000, 4500]]);
  });

  it('draws a world partition once (not once per network) on the cut-off process and the world lane', () => {
    expect(of(model, 'partition').map((m) => [m.lane, m.startMs, m.endMs])).toEqual([
      ['etcd-10', 6000, 8000],
      ['', 6000, 8000],
    ]);
  });

  it('takes keepalives from the keepalive calls only, and faults as notes on the world lane', () => {
    expect(of(model, 'keepalive').map((m) => [m.lane, m.startMs])).toEqual([['bob', 2000]]);
    expect(of(model, 'note').map((m) => [m.lane, m.label])).toEqual([['', 'pause alice']]);
  });

  it('has no violations and no focus when every check passed', () => {
    expect(model.marks.every((m) => m.violations.length === 0)).toBe(true);
    expect(model.focus).toBeUndefined();
    expect(model.checks.map((c) => [c.name, c.ok])).toEqual([['exclusion', true], ['fence', true]]);
  });
});

describe('timeline model: violations', () => {
  it("maps an unfenced overlap to both holders' holds and accepted writes, not to their rejected ones", () => {
    const sample = sampleArtifact();
    const writes = (sample.history.writes ?? []).map((w) => (w.atMs === 16307 ? { ...w, accepted: true } : w));
    const model = buildTimelineModel({ ...sample, history: { ...sample.history, writes: [...writes, { ...(writes[1] as (typeof writes)[number]), atMs: 6400, endMs: 6420, accepted: false }] }, checks: [unfencedCheck()] });
    const flagged = model.marks.filter((m) => m.violations.includes('fence'));
    expect(flagged.map((m) => `${m.kind}@${m.lane}:${m.startMs}`).sort()).toEqual(['hold@alice:320', 'hold@bob:5595', 'write@ledger-db:16307', 'write@ledger-db:5896', 'write@ledger-db:621'].sort());
    const row = model.checks.find((c) => c.name === 'fence');
    expect(row?.violations[0]?.markIds).toEqual(flagged.map((m) => m.id));
    expect(model.focus?.startMs).toBeLessThan(320);
    expect(model.focus?.endMs).toBeGreaterThan(16327);
  });

  it('maps a belief violation to the one belief span nearest the moment, and lists sentences without marks', () => {
    const belief = { name: 'belief', ok: false, detail: '1 violation', violations: [{ kind: 'belief-after-later-grant', key: 'payments/ledger-7', message: 'alice believed after bob was granted', involved: [{ holder: ALICE, token: ALICE_TOKEN }, { holder: BOB, token: BOB_TOKEN }], atMs: 700 }] };
    const raft = { name: 'raft-safety', ok: false, detail: '1 violations', violations: ['two leaders in term 3'] };
    const model = buildTimelineModel({ ...sampleArtifact(), checks: [belief, raft] });
    const beliefs = model.marks.filter((m) => m.kind === 'belief' && m.violations.includes('belief'));
    expect(beliefs.map((m) => [m.lane, m.startMs])).toEqual([['alice', 741]]);
    expect(model.marks.filter((m) => m.kind === 'hold' && m.violations.includes('belief')).map((m) => m.lane)).toEqual(['alice', 'bob']);
    expect(model.checks[1]?.violations).toEqual([{ message: 'two leaders in term 3', markIds: [] }]);
  });
});
