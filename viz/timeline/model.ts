// Builds the timeline's view model from a parsed run artifact: lanes, marks in time order (ids are
// positions, so ←/→ step through them), the checks with their violations' marks, and where to look
// first. Linear in the artifact's size apart from one sort.
import type { RunArtifactView } from '../artifact/schema.js';
import { historyMarks } from './history-marks.js';
import { buildLanes } from './lanes.js';
import { traceMarks } from './trace-marks.js';
import type { Mark, MarkDraft, TimeWindow, TimelineModel } from './types.js';
import { mapViolations } from './violations.js';

/** The window around a violation shows this much context on each side, at least. */
const FOCUS_PAD_MS = 250;

export function buildTimelineModel(artifact: RunArtifactView, title?: string): TimelineModel {
  const lanes = buildLanes(artifact);
  const records = artifact.timeline?.records ?? [];
  const lastRecordMs = records.length === 0 ? 0 : (records[records.length - 1] as { timeMs: number }).timeMs;
  const runEndMs = Math.max(artifact.simulatedMs, lastRecordMs);
  const marks: MarkDraft[] = traceMarks(records, runEndMs);
  for (const m of historyMarks(artifact, lanes, runEndMs)) marks.push(m);
  // Time order; at one moment, lanes top to bottom: the order a reader (and the ←/→ keys) follows.
  marks.sort((a, b) => a.startMs - b.startMs || (a.lane === b.lane ? 0 : lanes.order(a.lane) - lanes.order(b.lane)) || a.endMs - b.endMs);
  for (let id = 0; id < marks.length; id += 1) (marks[id] as MarkDraft).id = id;
  const { rows, byMark } = mapViolations(artifact.checks, marks);
  for (const [id, names] of byMark) (marks[id] as MarkDraft).violations = names;
  const firstFailing = rows.find((c) => !c.ok && c.violations.some((v) => v.markIds.length > 0 || v.atMs !== undefined));
  return {
    title: title ?? `${artifact.scenario} / ${artifact.variant} (seed ${artifact.seed})`,
    lanes: lanes.lanes,
    marks,
    extent: { startMs: 0, endMs: Math.max(runEndMs, 1) },
    checks: rows,
    droppedRecords: artifact.timeline?.dropped ?? 0,
    hasTrace: artifact.timeline !== undefined,
    focus: firstFailing === undefined ? undefined : focusOn(firstFailing.violations[0]?.markIds ?? [], firstFailing.violations[0]?.atMs, marks),
  };
}

/** The span of a violation's marks (and its moment), padded by a fifth on each side. */
export function focusOn(markIds: readonly number[], atMs: number | undefined, marks: readonly Mark[]): TimeWindow | undefined {
  let startMs = atMs ?? Number.POSITIVE_INFINITY;
  let endMs = atMs ?? Number.NEGATIVE_INFINITY;
  for (const id of markIds) {
    const m = marks[id];
    if (m === undefined) continue;
    startMs = Math.min(startMs, m.startMs);
    endMs = Math.max(endMs, m.endMs);
  }
  if (!Number.isFinite(startMs)) return undefined;
  const pad = Math.max(FOCUS_PAD_MS, (endMs - startMs) / 5);
  return { startMs: Math.max(0, startMs - pad), endMs: endMs + pad };
}
