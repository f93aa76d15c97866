// What to draw for one viewport: only the marks that overlap the visible time window, and where many
// marks of one kind fall in one pixel column of a lane (a second of keepalives at minute zoom), one
// merged mark with their count. So a view of any window draws at most about lanes × kinds × width
// marks, however long the run (issue 7: a 10-simulated-minute run renders without freezing the page).
// Marks in a violation and the selected mark are always drawn on their own, never merged away.
import type { MarkKind } from './dom-contract.js';
import type { Mark, TimeWindow, TimelineModel } from './types.js';

/** Marks narrower than this many pixels merge with their neighbours of the same kind and lane. */
export const MERGE_PX = 3;
/** Marks at most this long are indexed by start time alone (a binary search finds the window's first). */
const SHORT_MS = 1_000;

export interface DrawnMark {
  /** The mark itself, or the first of the merged ones. */
  readonly mark: Mark;
  readonly kind: MarkKind;
  readonly lane: string;
  readonly startMs: number;
  readonly endMs: number;
  /** 1 for a mark drawn alone. */
  readonly count: number;
}

interface LaneMarks {
  /** Short marks by start time. */
  readonly short: readonly Mark[];
  readonly long: readonly Mark[];
}

export interface ViewportIndex {
  /** The drawn marks of a window `widthPx` wide, lanes in model order. */
  visible(window: TimeWindow, widthPx: number, pinned?: ReadonlySet<number>): DrawnMark[];
}

export function indexMarks(model: TimelineModel): ViewportIndex {
  const byLane = new Map<string, { short: Mark[]; long: Mark[] }>(model.lanes.map((lane) => [lane.name, { short: [], long: [] }]));
  for (const m of model.marks) {
    let lane = byLane.get(m.lane);
    if (lane === undefined) byLane.set(m.lane, (lane = { short: [], long: [] }));
    (m.endMs - m.startMs <= SHORT_MS ? lane.short : lane.long).push(m); // model.marks is in start order, so each list is too
  }
  return { visible: (window, widthPx, pinned) => visibleMarks(byLane, window, widthPx, pinned ?? new Set()) };
}

function visibleMarks(byLane: ReadonlyMap<string, LaneMarks>, window: TimeWindow, widthPx: number, pinned: ReadonlySet<number>): DrawnMark[] {
  const spanMs = Math.max(window.endMs - window.startMs, Number.MIN_VALUE);
  const pxPerMs = Math.max(widthPx, 1) / spanMs;
  const drawn: DrawnMark[] = [];
  for (const [, lane] of byLane) {
    const merger = new ColumnMerger(window.startMs, pxPerMs, drawn);
    for (const m of lane.long) if (m.endMs >= window.startMs && m.startMs <= window.endMs) merger.add(m, pinned);
    for (let i = firstStartingAtOrAfter(lane.short, window.startMs - SHORT_MS); i < lane.short.length; i += 1) {
      const m = lane.short[i] as Mark;
      if (m.startMs > window.endMs) break;
      if (m.endMs >= window.startMs) merger.add(m, pinned);
    }
    merger.flush();
  }
  return drawn;
}

/** Merges narrow marks of one lane by (kind, pixel column); wide, pinned and violating marks pass through. */
class ColumnMerger {
  private readonly columns = new Map<string, { first: Mark; startMs: number; endMs: number; count: number }>();

  constructor(
    private readonly originMs: number,
    private readonly pxPerMs: number,
    private readonly out: DrawnMark[],
  ) {}

  add(m: Mark, pinned: ReadonlySet<number>): void {
    const widthPx = (m.endMs - m.startMs) * this.pxPerMs;
    if (widthPx >= MERGE_PX || pinned.has(m.id) || m.violations.length > 0) {
      this.out.push({ mark: m, kind: m.kind, lane: m.lane, startMs: m.startMs, endMs: m.endMs, count: 1 });
      return;
    }
    const column = Math.floor(((m.startMs - this.originMs) * this.pxPerMs) / MERGE_PX);
    const key = `${m.kind}|${column}`;
    const merged = this.columns.get(key);
    if (merged === undefined) this.columns.set(key, { first: m, startMs: m.startMs, endMs: m.endMs, count: 1 });
    else {
      merged.count += 1;
      merged.endMs = Math.max(merged.endMs, m.endMs);
    }
  }

  flush(): void {
    for (const [, c] of this.columns) this.out.push({ mark: c.first, kind: c.first.kind, lane: c.first.lane, startMs: c.startMs, endMs: c.endMs, count: c.count });
    this.columns.clear();
  }
}

function firstStartingAtOrAfter(marks: readonly Mark[], ms: number): number {
  let lo = 0;
  let hi = marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((marks[mid] as Mark).startMs < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
