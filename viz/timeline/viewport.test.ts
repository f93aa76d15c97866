import { describe, expect, it } from 'vitest';
import type { RunArtifactView, TraceRecordView } from '../artifact/schema.js';
import { buildTimelineModel } from './model.js';
import { sampleArtifact } from './test-fixtures.js';
import type { Mark, TimelineModel } from './types.js';
import { MERGE_PX, indexMarks } from './viewport.js';

const TEN_MINUTES_MS = 600_000;
const WIDTH_PX = 1200;

/** A 10-simulated-minute run whose client sent a million keepalives (far denser than any real one). */
function denseKeepalives(count: number): RunArtifactView {
  const records: TraceRecordView[] = [];
  for (let i = 0; i < count; i += 1) records.push({ index: i, timeMs: (i * TEN_MINUTES_MS) / count, process: 'alice', kind: 'net.send', fields: { id: i, to: 'arbiter-1', type: 'arbiter.call:keepAlive' } });
  const sample = sampleArtifact();
  return { ...sample, simulatedMs: TEN_MINUTES_MS, timeline: { records, dropped: 0, processes: [{ name: 'alice', role: 'client', identity: 'spiffe://sim/alice' }] } };
}

const total = (drawn: readonly { count: number }[]): number => drawn.reduce((n, d) => n + d.count, 0);

describe('viewport decimation', () => {
  const model = buildTimelineModel(denseKeepalives(1_000_000));
  const keepalives = model.marks.filter((m) => m.kind === 'keepalive');
  const index = indexMarks(model);

  it('builds a model of a million keepalives, every one a mark', () => {
    expect(keepalives).toHaveLength(1_000_000);
  });

  it('draws at most one mark per kind per merge column of each lane for the whole run, and loses none', () => {
    const drawn = index.visible(model.extent, WIDTH_PX);
    const drawnKeepalives = drawn.filter((d) => d.kind === 'keepalive');
    expect(drawnKeepalives.length).toBeLessThanOrEqual(Math.ceil(WIDTH_PX / MERGE_PX) + 1);
    expect(drawn.length).toBeLessThan(3_000);
    expect(total(drawnKeepalives)).toBe(1_000_000);
  });

  it('draws only the window: a one-second view holds the keepalives of that second, merged by column', () => {
    const window = { startMs: 300_000, endMs: 301_000 };
    const inWindow = keepalives.filter((m) => m.startMs >= window.startMs && m.startMs <= window.endMs).length;
    const drawn = index.visible(window, WIDTH_PX).filter((d) => d.kind === 'keepalive');
    expect(inWindow).toBeGreaterThan(1_000);
    expect(total(drawn)).toBe(inWindow);
    expect(drawn.length).toBeLessThanOrEqual(Math.ceil(WIDTH_PX / MERGE_PX) + 1);
    expect(drawn.every((d) => d.startMs >= window.startMs && d.endMs <= window.endMs)).toBe(true);
  });

  it('draws marks apart once zoomed in far enough', () => {
    const window = { startMs: 300_000, endMs: 300_010 }; // 10 ms: 16 keepalives, 75 px apart
    const drawn = index.visible(window, WIDTH_PX).filter((d) => d.kind === 'keepalive');
    expect(drawn.length).toBeGreaterThan(10);
    expect(drawn.every((d) => d.count === 1)).toBe(true);
  });

  it('never merges away the selected mark or a mark in a violation', () => {
    const selected = keepalives[500_000] as Mark;
    const drawn = index.visible(model.extent, WIDTH_PX, new Set([selected.id]));
    expect(drawn.filter((d) => d.mark.id === selected.id && d.count === 1)).toHaveLength(1);
    expect(total(drawn.filter((d) => d.kind === 'keepalive'))).toBe(1_000_000);
    const flagged: TimelineModel = { ...model, marks: model.marks.map((m) => (m.id === selected.id ? { ...m, violations: ['fence'] } : m)) };
    expect(indexMarks(flagged).visible(model.extent, WIDTH_PX).some((d) => d.mark.id === selected.id && d.count === 1)).toBe(true);
  });

  it('keeps a long span that starts before the window and ends in it', () => {
    const small = buildTimelineModel(sampleArtifact());
    const drawn = indexMarks(small).visible({ startMs: 4_000, endMs: 4_200 }, WIDTH_PX);
    expect(drawn.map((d) => `${d.kind}@${d.lane}`).sort()).toEqual(['hold@alice', 'leader@etcd-1', 'pause@alice', 'stall@etcd-2'].sort());
  });
});
