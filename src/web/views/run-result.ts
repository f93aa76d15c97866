// A run's verdict as the runner view shows it: the scenario line, a note (a replay, a loaded file), the
// checks as a table (ok or FAIL in words, not colour alone; each row carries the timeline's DOM contract
// attributes, so tests and scripts select a failing check the same way in both views), the fault schedule
// as it fired, metrics, the trace hash and the command that replays the run from a terminal (the
// artifact's own `replay`), with a button that copies it.
import { formatNumber } from '../../../core/numbers.js';
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
  const applied = Array.isArray(a['appliedFaults']) ? (a['appliedFaults'] as unknown[]).map(String) : [];
  const metrics = Object.entries(a.metrics ?? {}).map(([k, v]) => el('li', {}, el('code', {}, k), ` ${formatNumber(v)}`));
  return el(
    'div',
    { class: 'run-result', 'data-scenario': a.scenario, 'data-run-ok': String(a.ok) },
    el('h2', { class: a.ok ? 'verdict-ok' : 'verdict-fail' }, `${a.scenario} / ${a.variant}, seed ${a.seed}: ${verdict}`, el('span', { class: 'declared' }, declared)),
    el('p', { class: 'source' }, `From ${shown.source}.`),
    ...shown.notes.map((n) => el('p', { class: 'note' }, n)),
    el('table', { class: 'checks' }, el('caption', {}, 'Checks'), el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'result'), el('th', { scope: 'col' }, 'check'), el('th', { scope: 'col' }, 'detail'))), el('tbody', {}, ...rows)),
    el('details', { class: 'faults', id: 'run-faults', open: true }, el('summary', {}, `Fault schedule: ${a.faults?.length ?? 0} fault(s), as they fired`), applied.length === 0 ? el('p', {}, 'none') : el('ol', {}, ...applied.map((line) => el('li', {}, line)))),
    metrics.length === 0 ? null : el('details', { class: 'metrics' }, el('summary', {}, 'Metrics'), el('ul', {}, ...metrics)),
    el('p', { class: 'trace' }, 'Trace hash ', el('code', { 'data-trace-hash': a.traceHash }, a.traceHash)),
    a.replay === undefined ? null : replayCommand(a.replay),
  );
}

/** The CLI command that replays the run, and Copy; a `lockstep replay FILE` runs the file Save writes. */
function replayCommand(command: string): HTMLElement {
  const code = el('code', { id: 'replay-command' }, command);
  const button = el('button', { type: 'button', class: 'copy' }, 'Copy');
  const said = el('span', { class: 'hint', 'aria-live': 'polite' });
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(command).then(
      () => (said.textContent = 'copied'),
      () => {
        // No clipboard access (an insecure origin, a denied permission): select it for Ctrl+C instead.
        getSelection()?.selectAllChildren(code);
        said.textContent = 'selected: press Ctrl+C to copy';
      },
    );
  });
  const saveFirst = command.startsWith('lockstep replay ') ? ' (the file Save artifact writes, with the schedule this run was given)' : '';
  return el('p', { class: 'replay' }, 'Replay from a terminal: ', code, ' ', button, ' ', said, saveFirst);
}
