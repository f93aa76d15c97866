// The run timeline (issue 7, view 1): a lane per process with holds and their tokens, beliefs,
// keepalives, leader terms and elections, partitions, pauses, disk stalls, expiries, writes and fence
// rejections; the checks, with a failing check's violation highlighted; zoom and pan; click a mark for
// its details; the keyboard steps through the events in time order. The workbench app and the offline
// report (`lockstep run … --html`) both mount it with mountTimeline.
import { ArtifactFormatError, parseRunArtifact } from '../artifact/parse.js';
import { TimelineChart } from './chart.js';
import type { MarkKind } from './dom-contract.js';
import { buildTimelineModel } from './model.js';
import { checksPanel, detailsPanel, legend, maker } from './panels.js';
import { ensureStyles } from './styles.js';
import type { Mark, TimelineModel } from './types.js';

export { ArtifactFormatError };

/** The chart is drawn again when its container's width changes by at least this much. */
const RESIZE_STEP_PX = 24;
export type { TimelineModel };

export interface TimelineHandle {
  destroy(): void;
}

export interface TimelineOptions {
  readonly title?: string;
  /** Lines shown before the timeline's own notices (the offline report says its checks are not verified there). */
  readonly notices?: readonly string[];
}

/** Draws the timeline of a run artifact (parsed JSON, with or without a timeline) into `container`; throws ArtifactFormatError naming the field when it is not one. */
export function mountTimeline(container: HTMLElement, artifact: unknown, options: TimelineOptions = {}): TimelineHandle {
  const model = buildTimelineModel(parseRunArtifact(artifact), options.title);
  const doc = container.ownerDocument;
  const { root, chartHost, aside } = layout(container, model, options.notices ?? []);

  const laneLabel = (lane: string): string => model.lanes.find((l) => l.name === lane)?.label ?? lane;
  const details = detailsPanel(doc);
  let selected: number | undefined;
  const choose = (mark: Mark, merged = 1): void => {
    selected = mark.id;
    chart.reveal(mark);
    chart.select(mark.id);
    details.show(mark, laneLabel(mark.lane), merged);
  };
  const events = { onSelect: (mark: Mark, merged: number) => choose(mark, merged) };
  let chart = new TimelineChart(chartHost, model, events);
  aside.append(
    checksPanel(doc, model, laneLabel, (mark) => {
      if (model.focus !== undefined) chart.show(model.focus);
      choose(mark);
      chartHost.focus();
    }),
    details.element,
    legend(doc, new Set<MarkKind>(model.marks.map((m) => m.kind))),
  );
  if (model.focus !== undefined) chart.show(model.focus);

  const onKey = (event: KeyboardEvent): void => {
    const next = keyTarget(event.key, selected, model, chart.window.startMs);
    if (next === 'zoom-in') chart.zoomBy(2);
    else if (next === 'zoom-out') chart.zoomBy(0.5);
    else if (next === undefined) return;
    else {
      const mark = model.marks[next];
      if (mark !== undefined) choose(mark);
    }
    event.preventDefault();
  };
  chartHost.addEventListener('keydown', onKey);
  // The chart is laid out to its container's width: when that changes, draw it again at the same window and selection.
  let drawnWidth = chartHost.clientWidth;
  const resized = (): void => {
    const width = chartHost.clientWidth;
    if (Math.abs(width - drawnWidth) < RESIZE_STEP_PX || width === 0) return;
    drawnWidth = width;
    const window = chart.window;
    chart.destroy();
    chart = new TimelineChart(chartHost, model, events);
    chart.show(window);
    if (selected !== undefined) chart.select(selected);
  };
  const observer = typeof ResizeObserver === 'undefined' ? undefined : new ResizeObserver(resized);
  observer?.observe(chartHost);
  return {
    destroy(): void {
      observer?.disconnect();
      chartHost.removeEventListener('keydown', onKey);
      chart.destroy();
      root.remove();
    },
  };
}

/** The page around the chart: the heading, the notices, the chart's host (focusable, for the keys) and the side panel. */
function layout(container: HTMLElement, model: TimelineModel, before: readonly string[]): { root: HTMLElement; chartHost: HTMLElement; aside: HTMLElement } {
  const doc = container.ownerDocument;
  ensureStyles(doc);
  const make = maker(doc);
  const root = make('div', 'lst-timeline');
  container.appendChild(root);
  root.appendChild(make('h2', undefined, model.title));
  for (const text of [...before, ...notices(model)]) root.appendChild(make('p', 'lst-notice', text));
  const body = make('div', 'lst-body');
  const chartHost = make('div', 'lst-chart');
  chartHost.tabIndex = 0;
  chartHost.setAttribute('role', 'application');
  chartHost.setAttribute('aria-label', `Run timeline, ${model.lanes.length} lanes, ${model.marks.length} events. Arrow keys step through events, Home and End go to the first and last, plus and minus zoom.`);
  const aside = make('aside', 'lst-aside');
  body.append(chartHost, aside);
  root.appendChild(body);
  chartHost.appendChild(make('p', 'lst-help', 'Wheel or + / − to zoom, drag to pan, click a mark for details; ← → step through events, Home / End.'));
  return { root, chartHost, aside };
}

/** The mark a key moves to (by id: the marks are in time order), or a zoom, or nothing. */
export function keyTarget(key: string, selected: number | undefined, model: TimelineModel, viewStartMs: number): number | 'zoom-in' | 'zoom-out' | undefined {
  const last = model.marks.length - 1;
  if (key === '+' || key === '=') return 'zoom-in';
  if (key === '-' || key === '_') return 'zoom-out';
  if (last < 0) return undefined;
  switch (key) {
    case 'Home':
      return 0;
    case 'End':
      return last;
    case 'ArrowRight':
      return selected === undefined ? firstAtOrAfter(model.marks, viewStartMs) : Math.min(last, selected + 1);
    case 'ArrowLeft':
      return selected === undefined ? Math.max(0, firstAtOrAfter(model.marks, viewStartMs) - 1) : Math.max(0, selected - 1);
    default:
      return undefined;
  }
}

function firstAtOrAfter(marks: readonly Mark[], ms: number): number {
  const index = marks.findIndex((m) => m.startMs >= ms);
  return index < 0 ? marks.length - 1 : index;
}

function notices(model: TimelineModel): string[] {
  const out: string[] = [];
  if (!model.hasTrace) out.push('This artifact carries no trace records (it was saved without a timeline), so only holds, beliefs, writes and expiries from its history are drawn. Run it again with lockstep run … --html for every lane.');
  if (model.droppedRecords > 0) out.push(`The capture kept its bound of trace records and dropped ${model.droppedRecords} later ones: the lanes are incomplete after the last kept record.`);
  const failing = model.checks.filter((c) => !c.ok).map((c) => c.name);
  if (failing.length === 0) out.push(`Every check passed (${model.checks.length}).`);
  else out.push(`Failing checks: ${failing.join(', ')}.${model.focus === undefined ? '' : ' The view is zoomed to the first violation; its events are outlined and hatched.'}`);
  return out;
}
