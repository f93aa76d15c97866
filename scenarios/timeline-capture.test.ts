import { describe, expect, it } from 'vitest';
import { messageType } from '../sim/net/network.js';
import { KEEPALIVE_MESSAGE as VIEW_KEEPALIVE_MESSAGE } from '../viz/timeline/trace-marks.js';
import { toJson } from './history.js';
import { partition } from './partition.js';
import { pauseTest } from './pause-test.js';
import { runScenario } from './runner.js';
import { KEEPALIVE_MESSAGE, TimelineCapture, plainFields } from './timeline-capture.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

describe('timeline capture', () => {
  it.each([pauseTest, partition])('leaves the trace hash of $name unchanged', async (scenario) => {
    const plain = await runScenario(scenario, undefined, '4', { yieldToHost });
    const captured = await runScenario(scenario, undefined, '4', { yieldToHost, timeline: true });
    expect(plain.timeline).toBeUndefined();
    expect(captured.timeline?.records.length).toBeGreaterThan(20);
    expect(captured.traceHash).toBe(plain.traceHash);
  });

  it("keeps pause-test's pause, leader terms, keepalives and writes from the world's first record on, as JSON data", async () => {
    const artifact = await runScenario(pauseTest, undefined, '1', { yieldToHost, timeline: true });
    const timeline = artifact.timeline;
    if (timeline === undefined) throw new Error('no timeline captured');
    const kinds = new Set(timeline.records.map((r) => r.kind));
    expect(timeline.records[0]).toMatchObject({ index: 0, kind: 'cluster.create' });
    expect(timeline.records.filter((r) => r.process === 'alice').map((r) => r.kind)).toEqual(expect.arrayContaining(['process.pause', 'process.resume']));
    expect(timeline.records.some((r) => r.kind === 'raft.become' && r.fields['role'] === 'leader')).toBe(true);
    const keepalives = timeline.records.filter((r) => r.kind === 'net.send');
    expect(keepalives.length).toBeGreaterThan(0);
    expect(keepalives.every((r) => r.fields['type'] === KEEPALIVE_MESSAGE && (r.process === 'alice' || r.process === 'bob'))).toBe(true);
    expect(timeline.records.filter((r) => r.kind === 'resource.write')).toHaveLength((artifact.history as { writes: unknown[] }).writes.length);
    expect([...kinds].every((k) => !['net.deliver', 'raft.send', 'disk.fsync.done', 'raft.ready'].includes(k))).toBe(true);
    expect(timeline.processes).toEqual(expect.arrayContaining([{ name: 'alice', role: 'client', identity: 'spiffe://sim/alice' }, { name: 'ledger-db', role: 'resource' }, { name: 'arbiter-1', role: 'arbiter' }]));
    expect(timeline.processes.filter((p) => p.role === 'member')).toHaveLength(3);
    // Plain JSON: it survives a round trip unchanged (lease ids, bigints in the trace, are decimal strings already).
    expect(JSON.parse(JSON.stringify(timeline.records))).toEqual(timeline.records);
    expect(toJson(timeline.records)).toBe(JSON.stringify(timeline.records));
  });

  it('keeps at most maxRecords and counts the rest as dropped', async () => {
    const all = await runScenario(pauseTest, undefined, '1', { yieldToHost, timeline: true });
    const bounded = await runScenario(pauseTest, undefined, '1', { yieldToHost, timeline: { maxRecords: 10 } });
    const total = all.timeline?.records.length ?? 0;
    expect(total).toBeGreaterThan(10);
    expect(bounded.timeline?.records).toEqual(all.timeline?.records.slice(0, 10));
    expect(bounded.timeline?.dropped).toBe(total - 10);
    expect(all.timeline?.dropped).toBe(0);
    expect(() => new TimelineCapture(-1)).toThrow(/maxRecords must be a whole number/);
  });

  it('turns bigints into decimal strings and leaves no undefined behind', () => {
    expect(plainFields({ id: 5551812440641001223n, ids: [1n, 2n], nested: { at: 3, gone: undefined }, none: undefined, ok: true })).toEqual({ id: '5551812440641001223', ids: ['1', '2'], nested: { at: 3 }, ok: true });
  });

  it("labels rpc messages by kind and method, so a keepalive is told apart in the trace (the view's name is the same)", () => {
    expect(messageType({ kind: 'arbiter.call', id: 1, method: 'keepAlive', argument: {} })).toBe(KEEPALIVE_MESSAGE);
    expect(messageType({ kind: 'arbiter.call', id: 2, method: 'acquire', argument: {} })).toBe('arbiter.call:acquire');
    expect(messageType({ kind: 'arbiter.return', id: 1, value: 1 })).toBe('arbiter.return');
    expect(messageType({ type: 'MsgVote', kind: 'ignored' })).toBe('MsgVote');
    expect(messageType('text')).toBe('string');
    expect(VIEW_KEEPALIVE_MESSAGE).toBe(KEEPALIVE_MESSAGE);
  });
});
