// A run's verdict as the runner view shows it: the scenario line, where the run came from and whether
// its checks were computed here (issue 18), a note (a replay, a loaded file), the checks as a table (ok
// or FAIL in words, not colour alone; each row carries the timeline's DOM contract attributes, so tests
// and scripts select a failing check the same way in both views), the fault schedule as it fired,
// metrics, the trace hash and the command that replays the run from a terminal, which the page builds
// from checked fields (replay-command.ts), never the artifact's own `replay`, with a button that copies it.
import type { ReplayComparison } from '../../../scenarios/replay-comparison.js';
import { formatNumber } from '../../../core/numbers.js';
import { ATTR } from '../../../viz/timeline/dom-contract.js';
import type { ArtifactJson } from '../artifact-file.js';
import { el } from '../dom.js';
import { recordWarning } from '../replay-compare.js';
import type { CommandBasis, ReplayCommand } from '../replay-command.js';

/**
 * Whose checks are shown. computed: this page ran it. replayed: a loaded (or shown) artifact was run
 * again and the replay is shown, compared with the artifact's record. not-verified: replaying a loaded
 * artifact failed, so what is shown is only what the artifact says.
 */
export type Verification =
  | { readonly kind: 'computed' }
  | { readonly kind: 'replayed'; readonly comparison: ReplayComparison }
  | { readonly kind: 'not-verified'; readonly reason: string };

export interface ShownRun {
  readonly artifact: ArtifactJson;
  /** Where it came from: "a run in this page", a file name, a URL and its origin. */
  readonly source: string;
  readonly notes: readonly string[];
  readonly verification: Verification;
  readonly basis: CommandBasis;
  readonly command: ReplayCommand;
}

/** `data-verified` on the result: what a test or a reader can rely on the checks being. */
export function verifiedState(v: Verification): string {
  if (v.kind !== 'replayed') return v.kind;
  if (!v.comparison.recordMatches) return 'record-differs';
  return v.comparison.run === 'same-trace' ? 'reproduced' : 'other-run';
}

/** The line that says whose checks these are, for both views; a differing record or no verification is an alert. */
export function verificationNotice(shown: ShownRun): HTMLElement {
  const v = shown.verification;
  if (v.kind === 'computed') return el('p', { class: 'verification', 'data-verified': 'computed' }, 'Checks computed by this page\'s run.');
  if (v.kind === 'not-verified') {
    return el('p', { class: 'verification warning', role: 'alert', 'data-verified': 'not-verified' }, el('strong', {}, 'NOT VERIFIED: '), `these are the artifact's own checks; replaying it failed (${v.reason}), so nothing here was computed by this page.`);
  }
  const warning = recordWarning(v.comparison);
  if (warning !== undefined) return el('p', { class: 'verification warning', role: 'alert', 'data-verified': 'record-differs' }, el('strong', {}, 'The artifact\'s record is not its run. '), warning);
  return el('p', { class: 'verification', 'data-verified': verifiedState(v) }, 'Checks computed by replaying the artifact in this page.');
}

export function runResult(shown: ShownRun): HTMLElement {
  const a = shown.artifact;
  const unverified = shown.verification.kind === 'not-verified';
  const verdict = unverified ? `NOT VERIFIED (the artifact says: ${a.ok ? 'no violation' : 'VIOLATION'})` : a.ok ? 'no violation' : 'VIOLATION';
  const declared = unverified ? '' : a.asDeclared === false ? ` (NOT as declared: this variant expects ${a.expect ?? '?'})` : a.expect === undefined ? '' : ` (as declared: expect ${a.expect})`;
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
    { class: 'run-result', 'data-scenario': a.scenario, 'data-run-ok': String(a.ok), 'data-verified': verifiedState(shown.verification) },
    el('h2', { class: unverified ? 'verdict-unverified' : a.ok ? 'verdict-ok' : 'verdict-fail' }, `${a.scenario} / ${a.variant}, seed ${a.seed}: ${verdict}`, el('span', { class: 'declared' }, declared)),
    el('p', { class: 'source' }, `From ${shown.source}.`),
    verificationNotice(shown),
    ...shown.notes.map((n) => el('p', { class: 'note' }, n)),
    el('table', { class: 'checks' }, el('caption', {}, unverified ? 'Checks the artifact records (not verified)' : 'Checks'), el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'result'), el('th', { scope: 'col' }, 'check'), el('th', { scope: 'col' }, 'detail'))), el('tbody', {}, ...rows)),
    el('details', { class: 'faults', id: 'run-faults', open: true }, el('summary', {}, `Fault schedule: ${a.faults?.length ?? 0} fault(s), as they fired`), applied.length === 0 ? el('p', {}, 'none') : el('ol', {}, ...applied.map((line) => el('li', {}, line)))),
    metrics.length === 0 ? null : el('details', { class: 'metrics' }, el('summary', {}, 'Metrics'), el('ul', {}, ...metrics)),
    el('p', { class: 'trace' }, 'Trace hash ', el('code', { 'data-trace-hash': a.traceHash }, a.traceHash)),
    replayCommand(shown.command),
  );
}

/** The CLI command that replays the run, and Copy; or why there is none. */
function replayCommand(command: ReplayCommand): HTMLElement {
  if (command.text === undefined) return el('p', { class: 'replay', 'data-replay-command': 'none' }, `No replay command: ${command.refusal}.`);
  const text = command.text;
  const code = el('code', { id: 'replay-command' }, text);
  const button = el('button', { type: 'button', class: 'copy' }, 'Copy');
  const said = el('span', { class: 'hint', 'aria-live': 'polite' });
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(text).then(
      () => (said.textContent = 'copied'),
      () => {
        // No clipboard access (an insecure origin, a denied permission): select it for Ctrl+C instead.
        getSelection()?.selectAllChildren(code);
        said.textContent = 'selected: press Ctrl+C to copy';
      },
    );
  });
  return el('p', { class: 'replay' }, 'Replay from a terminal (built by this page from the checked scenario, variant, seed and file name): ', code, ' ', button, ' ', said, command.hint);
}
