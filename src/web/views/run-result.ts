// A run's verdict as the runner view shows it: the scenario line, a note (a replay, a loaded file), the
// checks as a table (ok or FAIL in words, not colour alone; each row carries the timeline's DOM contract
// attributes, so tests and scripts select a failing check the same way in both views), metrics, the
// trace hash and the command that replays the run from a terminal.
import { ATTR } from '../../../viz/timeline/dom-contract.js';
import type { ArtifactJson } from '../artifact-file.js';
import { el } from '../dom.js';

export interface ShownRun {
  readonly artifact: ArtifactJson;
  /** Where it came from: "this page", a file name, a URL. */
  readonly source: string;
  readonly notes: readonly string[];
}

export function runResult(shown: ShownRun): HTMLElement {
  const a = shown.artifact;
  const verdict = a.ok ? 'no violation' : 'VIOLATION';
  const declared = a.asDeclared === false ? ` (NOT as declared: this variant expects ${a.expect ?? '?'})` : a.expect === undefined ? '' : ` (as declared: expect ${a.expect})`;
  const rows = a.checks.map((c) =>
    el(
      'tr',
      { [ATTR.check]: c.name, [ATTR.ok]: String(c.ok), [ATTR.violation]: c.ok ? undefined : c.name, class: c.ok ? 'ok' : 'fail' },
      el('td', { class: 'verdict' }, c.ok ? 'ok' : 'FAIL'),
      el('th', { scope: 'row' }, c.name),
      el('td', { class: 'detail' }, c.detail),
    ),
  );
  const metrics = Object.entries(a.metrics ?? {}).map(([k, v]) => el('li', {}, el('code', {}, k), ` ${Number.isInteger(v) ? v : v.toFixed(1)}`));
  return el(
    'div',
    { class: 'run-result', 'data-scenario': a.scenario, 'data-run-ok': String(a.ok) },
    el('h2', { class: a.ok ? 'verdict-ok' : 'verdict-fail' }, `${a.scenario} / ${a.variant}, seed ${a.seed}: ${verdict}`, el('span', { class: 'declared' }, declared)),
    el('p', { class: 'source' }, `From ${shown.source}.`),
    ...shown.notes.map((n) => el('p', { class: 'note' }, n)),
    el('table', { class: 'checks' }, el('caption', {}, 'Checks'), el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'result'), el('th', { scope: 'col' }, 'check'), el('th', { scope: 'col' }, 'detail'))), el('tbody', {}, ...rows)),
    metrics.length === 0 ? null : el('details', { class: 'metrics' }, el('summary', {}, 'Metrics'), el('ul', {}, ...metrics)),
    el('p', { class: 'trace' }, 'Trace hash ', el('code', { 'data-trace-hash': a.traceHash }, a.traceHash), a.replay === undefined ? null : el('span', {}, '; replay from a terminal: ', el('code', {}, a.replay))),
  );
}
