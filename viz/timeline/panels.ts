// The panels beside the chart, as plain DOM: the checks (each row data-check / data-ok, a failing one
// data-violation with its detail and the events that make each violation), the details of the selected
// mark, and the legend. Text is set with textContent only: artifact strings are data, never markup.
import { ATTR, MARK_KINDS, type MarkKind } from './dom-contract.js';
import { KIND_STYLES, VIOLATION_COLOUR } from './palette.js';
import { formatMs } from './scale.js';
import type { CheckRow, Mark, TimelineModel } from './types.js';

/** A failing check lists at most this many violations (the checkers keep at most 100). */
const MAX_VIOLATIONS_SHOWN = 10;
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
  const when = mark.startMs === mark.endMs ? `at ${formatMs(mark.startMs)}` : `${formatMs(mark.startMs)} – ${formatMs(mark.endMs)}`;
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
  for (const violation of check.violations.slice(0, MAX_VIOLATIONS_SHOWN)) {
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
    row.appendChild(item);
  }
  if (check.violations.length > MAX_VIOLATIONS_SHOWN) row.appendChild(make('div', 'lst-violation', `and ${check.violations.length - MAX_VIOLATIONS_SHOWN} more violations`));
  return row;
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

export function legend(doc: Document, kinds: ReadonlySet<MarkKind>): HTMLElement {
  const make = maker(doc);
  const section = make('section', 'lst-legend');
  section.appendChild(make('h3', undefined, 'Legend'));
  const list = make('ul');
  for (const kind of MARK_KINDS) {
    if (!kinds.has(kind)) continue;
    const style = KIND_STYLES[kind];
    const item = make('li');
    const swatch = make('span');
    swatch.setAttribute('aria-hidden', 'true');
    Object.assign(swatch.style, { display: 'inline-block', width: '18px', height: '12px', background: style.fill, opacity: style.band === 'background' ? '0.55' : '1', border: '1px solid #555' });
    item.append(swatch, make('span', undefined, `${style.name}: ${style.description}`));
    list.appendChild(item);
  }
  const violation = make('li');
  const swatch = make('span');
  Object.assign(swatch.style, { display: 'inline-block', width: '16px', height: '10px', border: `3px dashed ${VIOLATION_COLOUR}` });
  violation.append(swatch, make('span', undefined, 'violation: a dashed outline and a hatch over the events a failing check names'));
  list.appendChild(violation);
  section.appendChild(list);
  return section;
}
