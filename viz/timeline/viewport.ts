// What to draw for one viewport: only the marks that overlap the visible time window, and where many
// marks of one kind fall in one merge column of a lane (a second of keepalives at minute zoom), one
// merged mark with their count. So a view of any window draws at most about lanes × kinds × columns
// marks, however long the run, and finds them in time that grows with the columns, not the marks
// (issue 7: a 10-simulated-minute run renders without freezing the page). Marks in a violation and the
// selected mark are always drawn on their own, never merged away.
import type { MarkKind } from './dom-contract.js';
import type { Mark, TimeWindow, TimelineModel } from './types.js';

/** Marks narrower than this many pixels merge with their neighbours of the same kind and lane. */
export const MERGE_PX = 3;
/** Spans at most this long are indexed by start time alone (a binary search finds the window's first). */
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

/** The instants (start = end) of one kind in one lane, by time: a column's count is two binary searches. */
interface Instants {
  readonly marks: Mark[];
  starts: Float64Array;
  /** Those never merged (in a violation), by time. */
  readonly special: Mark[];
}

interface LaneMarks {
  readonly instants: Map<MarkKind, Instants>;
  readonly shortSpans: Mark[];
  readonly longSpans: Mark[];
}

export interface ViewportIndex {
  /** The drawn marks of a window `widthPx` wide. */
  visible(window: TimeWindow, widthPx: number, pinned?: ReadonlySet<number>): DrawnMark[];
}

export function indexMarks(model: TimelineModel): ViewportIndex {
  const byLane = new Map<string, LaneMarks>();
  const laneOf = (name: string): LaneMarks => {
    let lane = byLane.get(name);
    if (lane === undefined) byLane.set(name, (lane = { instants: new Map(), shortSpans: [], longSpans: [] }));
    return lane;
  };
  for (const lane of model.lanes) laneOf(lane.name);
  // model.marks is in start order, so every list built here is too.
  for (const m of model.marks) {
    const lane = laneOf(m.lane);
    if (m.endMs === m.startMs) {
      let instants = lane.instants.get(m.kind);
      if (instants === undefined) lane.instants.set(m.kind, (instants = { marks: [], starts: new Float64Array(0), special: [] }));
      instants.marks.push(m);
      if (m.violations.length > 0) instants.special.push(m);
    } else (m.endMs - m.startMs <= SHORT_MS ? lane.shortSpans : lane.longSpans).push(m);
  }
  for (const [, lane] of byLane) for (const [, instants] of lane.instants) instants.starts = Float64Array.from(instants.marks, (m) => m.startMs);
  return { visible: (window, widthPx, pinned) => visibleMarks(byLane, window, widthPx, pinned ?? new Set()) };
}

function visibleMarks(byLane: ReadonlyMap<string, LaneMarks>, window: TimeWindow, widthPx: number, pinned: ReadonlySet<number>): DrawnMark[] {
  const spanMs = Math.max(window.endMs - window.startMs, Number.MIN_VALUE);
  const pxPerMs = Math.max(widthPx, 1) / spanMs;
  const drawn: DrawnMark[] = [];
  for (const [, lane] of byLane) {
    const merger = new ColumnMerger(window.startMs, pxPerMs, drawn);
    for (const m of lane.longSpans) if (m.endMs >= window.startMs && m.startMs <= window.endMs) merger.add(m, pinned);
    for (let i = lowerBound(lane.shortSpans, window.startMs - SHORT_MS); i < lane.shortSpans.length; i += 1) {
      const m = lane.shortSpans[i] as Mark;
      if (m.startMs > window.endMs) break;
      if (m.endMs >= window.startMs) merger.add(m, pinned);
    }
    merger.flush();
    for (const [, instants] of lane.instants) columnsOfInstants(instants, window, MERGE_PX / pxPerMs, pinned, drawn);
  }
  return drawn;
}

/** One merged mark per non-empty column; the pinned and violating instants apart, and not counted twice. */
function columnsOfInstants(instants: Instants, window: TimeWindow, columnMs: number, pinned: ReadonlySet<number>, out: DrawnMark[]): void {
  const { marks, starts } = instants;
  const end = upperBoundOf(starts, window.endMs);
  const apart = instants.special.filter((m) => m.startMs >= window.startMs && m.startMs <= window.endMs);
  for (const id of pinned) {
    const m = findInstant(instants, id);
    if (m !== undefined && m.startMs >= window.startMs && m.startMs <= window.endMs && !apart.includes(m)) apart.push(m);
  }
  for (const m of apart) out.push({ mark: m, kind: m.kind, lane: m.lane, startMs: m.startMs, endMs: m.endMs, count: 1 });
  let i = lowerBoundOf(starts, window.startMs);
  while (i < end) {
    const column = Math.floor(((starts[i] as number) - window.startMs) / columnMs);
    const j = Math.min(end, lowerBoundOf(starts, window.startMs + (column + 1) * columnMs, i + 1));
    const first = marks[i] as Mark;
    const last = marks[j - 1] as Mark;
    const count = j - i - apart.filter((m) => m.startMs >= first.startMs && m.startMs <= last.startMs).length;
    if (count > 0) out.push({ mark: first, kind: first.kind, lane: first.lane, startMs: first.startMs, endMs: last.startMs, count });
    i = j;
  }
}

/** The instant with this id, if it is one of these (ids are positions in time order, so a binary search by id works). */
function findInstant(instants: Instants, id: number): Mark | undefined {
  let lo = 0;
  let hi = instants.marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((instants.marks[mid] as Mark).id < id) lo = mid + 1;
    else hi = mid;
  }
  const found = instants.marks[lo];
  return found?.id === id ? found : undefined;
}

/** Merges narrow spans of one lane by (kind, pixel column); wide, pinned and violating spans pass through. */
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

function lowerBound(marks: readonly Mark[], ms: number): number {
  let lo = 0;
  let hi = marks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((marks[mid] as Mark).startMs < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index at or after `from` whose start is ≥ ms. */
function lowerBoundOf(starts: Float64Array, ms: number, from = 0): number {
  let lo = from;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index whose start is > ms. */
function upperBoundOf(starts: Float64Array, ms: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((starts[mid] as number) <= ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
