// The panels beside the chart, as plain DOM: the checks (each row data-check / data-ok, a failing one
// data-violation with its detail and the events that make each violation), the details of the selected
// mark, and the legend. Text is set with textContent only: artifact strings are data, never markup.
import { ATTR, MARK_KINDS, type MarkKind } from './dom-contract.js';
import { KIND_STYLES, PAPER, VIOLATION_COLOUR } from './palette.js';
import { formatMs } from '../../core/numbers.js';
import type { CheckRow, Mark, TimelineModel, ViolationRow } from './types.js';

/** A failing check lists at most this many violations (the checkers keep at most 100). */
const MAX_VIOLATIONS_SHOWN = 10;
/** Of those, this many are open; the rest are folded. */
const OPEN_VIOLATIONS = 1;
/** And at most this many events per violation. */
const MAX_EVENTS_SHOWN = 8;

type Make = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string, text?: string) => HTMLElementTagNameMap[K];

export function maker(doc: Document): Make {
  return (tag, className, text) => {
    const element = doc.createElement(tag);
    if (className !== undefined) element.className = className;
    if (text !== undefined) element.textContent = text;
    return element;
  };
}

export function describeMark(mark: Mark, laneLabel: string): string {
  const when = mark.startMs === mark.endMs ? `at ${formatMs(mark.startMs, 3)}` : `${formatMs(mark.startMs, 3)} – ${formatMs(mark.endMs, 3)}`;
  return `${KIND_STYLES[mark.kind].name} ${mark.label} on ${laneLabel}, ${when}`;
}

export function checksPanel(doc: Document, model: TimelineModel, laneLabel: (lane: string) => string, onPick: (mark: Mark) => void): HTMLElement {
  const make = maker(doc);
  const section = make('section', 'lst-checks');
  section.appendChild(make('h3', undefined, 'Checks'));
  const list = make('ul');
  for (const check of model.checks) list.appendChild(checkRow(make, check, model, laneLabel, onPick));
  section.appendChild(list);
  return section;
}

function checkRow(make: Make, check: CheckRow, model: TimelineModel, laneLabel: (lane: string) => string, onPick: (mark: Mark) => void): HTMLElement {
  const row = make('li', 'lst-check');
  row.setAttribute(ATTR.check, check.name);
  row.setAttribute(ATTR.ok, String(check.ok));
  if (!check.ok) row.setAttribute(ATTR.violation, check.name);
  const head = make('div');
  head.appendChild(make('span', 'lst-check-verdict', check.ok ? '✓ ok' : '✕ FAIL'));
  head.appendChild(make('strong', undefined, check.name));
  row.appendChild(head);
  row.appendChild(make('div', 'lst-check-detail', check.detail));
  const shown = check.violations.slice(0, MAX_VIOLATIONS_SHOWN);
  // The first violation open (the view is zoomed to it); the others folded, so a long list does not bury the next check.
  shown.slice(0, OPEN_VIOLATIONS).forEach((violation) => row.appendChild(violationItem(make, violation, model, laneLabel, onPick)));
  const folded = shown.slice(OPEN_VIOLATIONS);
  if (folded.length > 0) {
    const more = make('details', 'lst-violation');
    const listed = check.violations.length > shown.length ? ` (${check.violations.length} listed in the artifact; the first ${MAX_VIOLATIONS_SHOWN} here)` : '';
    more.appendChild(make('summary', undefined, `${folded.length} more violation${folded.length === 1 ? '' : 's'}${listed}`));
    for (const violation of folded) more.appendChild(violationItem(make, violation, model, laneLabel, onPick));
    row.appendChild(more);
  }
  return row;
}

function violationItem(make: Make, violation: ViolationRow, model: TimelineModel, laneLabel: (lane: string) => string, onPick: (mark: Mark) => void): HTMLElement {
  const item = make('div', 'lst-violation');
  item.appendChild(make('div', undefined, violation.message));
  if (violation.markIds.length === 0) item.appendChild(make('div', undefined, '(no drawn event matches this violation)'));
  for (const id of violation.markIds.slice(0, MAX_EVENTS_SHOWN)) {
    const mark = model.marks[id];
    if (mark === undefined) continue;
    const button = make('button', undefined, describeMark(mark, laneLabel(mark.lane)));
    button.type = 'button';
    button.addEventListener('click', () => onPick(mark));
    item.appendChild(button);
  }
  if (violation.markIds.length > MAX_EVENTS_SHOWN) item.appendChild(make('div', undefined, `and ${violation.markIds.length - MAX_EVENTS_SHOWN} more events`));
  return item;
}

export function detailsPanel(doc: Document): { element: HTMLElement; show(mark: Mark | undefined, laneLabel: string, merged: number): void } {
  const make = maker(doc);
  const section = make('section', 'lst-details');
  section.setAttribute('aria-live', 'polite');
  const heading = make('h3', undefined, 'Details');
  const body = make('div');
  section.append(heading, body);
  const show = (mark: Mark | undefined, laneLabel: string, merged: number): void => {
    body.replaceChildren();
    if (mark === undefined) {
      body.appendChild(make('p', undefined, 'Click a mark, or focus the timeline and press → to step through the events.'));
      return;
    }
    body.appendChild(make('p', undefined, describeMark(mark, laneLabel)));
    if (merged > 1) body.appendChild(make('p', undefined, `This mark stands for ${merged} ${KIND_STYLES[mark.kind].name} marks in one pixel column; zoom in (+) to see them apart. The first is shown.`));
    if (mark.violations.length > 0) {
      const warn = make('p', undefined, `Part of the violation of: ${mark.violations.join(', ')}`);
      warn.style.color = VIOLATION_COLOUR;
      warn.style.fontWeight = '600';
      body.appendChild(warn);
    }
    const list = make('dl');
    if (mark.traceKind !== undefined) list.append(make('dt', undefined, 'trace record'), make('dd', undefined, `#${mark.record ?? '?'} ${mark.traceKind}`));
    for (const [key, value] of Object.entries(mark.details)) list.append(make('dt', undefined, key), make('dd', undefined, detailText(value)));
    body.appendChild(list);
  };
  show(undefined, '', 1);
  return { element: section, show };
}

/** A detail's value as text: plain values as they are, lists and objects as JSON, nothing as a dash. */
export function detailText(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** A small picture of a kind as the chart draws it: fill, opacity, pattern and outline, so the legend does not rest on colour either. */
function swatch(doc: Document, kind: MarkKind | 'violation'): SVGSVGElement {
  const svg = doc.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('width', '22');
  svg.setAttribute('height', '14');
  svg.setAttribute('aria-hidden', 'true');
  const rect = (attributes: Record<string, string>): void => {
    const r = doc.createElementNS(SVG_NS, 'rect');
    for (const [name, value] of Object.entries({ x: '1', y: '1', width: '20', height: '12', ...attributes })) r.setAttribute(name, value);
    svg.appendChild(r);
  };
  const lines = (colour: string, cross: boolean): void => {
    for (let x = -12; x < 22; x += 5) {
      const segments: [number, number, number, number][] = [[x, 13, x + 12, 1]];
      if (cross) segments.push([x, 1, x + 12, 13]);
      for (const [x1, y1, x2, y2] of segments) {
        const l = doc.createElementNS(SVG_NS, 'line');
        for (const [name, value] of Object.entries({ x1, y1, x2, y2 })) l.setAttribute(name, String(value));
        l.setAttribute('stroke', colour);
        l.setAttribute('stroke-width', '1.5');
        svg.appendChild(l);
      }
    }
  };
  if (kind === 'violation') {
    rect({ fill: PAPER });
    lines(VIOLATION_COLOUR, false);
    rect({ fill: 'none', stroke: VIOLATION_COLOUR, 'stroke-width': '2.5', 'stroke-dasharray': '4 2' });
    return svg;
  }
  const style = KIND_STYLES[kind];
  rect({ fill: style.fill, 'fill-opacity': style.band === 'background' ? '0.35' : '1' });
  if (style.pattern !== undefined) lines('rgba(0,0,0,0.6)', style.pattern === 'cross');
  rect({ fill: 'none', stroke: style.outline ?? '#555555', 'stroke-width': style.outline === undefined ? '1' : '1.5' });
  return svg;
}

export function legend(doc: Document, kinds: ReadonlySet<MarkKind>): HTMLElement {
  const make = maker(doc);
  const section = make('section', 'lst-legend');
  section.appendChild(make('h3', undefined, 'Legend'));
  const list = make('ul');
  for (const kind of MARK_KINDS) {
    if (!kinds.has(kind)) continue;
    const style = KIND_STYLES[kind];
    const item = make('li');
    item.append(swatch(doc, kind), make('span', undefined, `${style.name}: ${style.description}`));
    list.appendChild(item);
  }
  const violation = make('li');
  violation.append(swatch(doc, 'violation'), make('span', undefined, 'violation: a dashed outline and a hatch over the events a failing check names'));
  list.appendChild(violation);
  section.appendChild(list);
  return section;
}
