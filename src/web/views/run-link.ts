// ?run=<url> (issue 7, issue 18): an artifact named by the page's link. One on the page's own origin is
// fetched at once, and the page says so; one on another origin, or carried in a data: URL, is fetched
// only when the reader presses the button that names where it comes from; anything else is refused.
// Whichever way it arrives, the runner replays it before showing its checks.
import { el } from '../dom.js';
import type { JobStatus } from '../job-status.js';
import { describeRunLocation, fetchRunLocation, fileNameOf, locateRunParameter, type RunLocation } from '../open-artifact.js';
import type { RunnerView } from './runner-view.js';

type Openable = Exclude<RunLocation, { kind: 'refused' }>;

/** Opens ?run=; resolves once an artifact from the page's own origin is shown, or the choice is offered. */
export async function openRunLink(raw: string, runner: RunnerView, status: JobStatus, shownInTimeline: () => void): Promise<void> {
  const shown = raw.length > 120 ? `${raw.slice(0, 120)}…` : raw;
  const location = locateRunParameter(raw, window.location.href);
  if (location.kind === 'refused') {
    status.showError(`?run=${shown}: ${location.reason}`);
    return;
  }
  const open = async (): Promise<void> => {
    try {
      const text = await fetchRunLocation(location, shown);
      const source = describeRunLocation(location, window.location.origin);
      const fileName = fileNameOf(location);
      if (await runner.openText(text, { label: `?run=${shown}`, source, ...(fileName === undefined ? {} : { fileName }) })) shownInTimeline();
    } catch (error) {
      status.showError((error as Error).message);
    }
  };
  if (location.kind === 'same-origin') return open();
  runner.offer(consentPrompt(location, open));
}

/** What the reader is asked before the page fetches from elsewhere. */
function consentPrompt(location: Exclude<Openable, { kind: 'same-origin' }>, open: () => Promise<void>): HTMLElement {
  const button = el('button', { type: 'button', class: 'primary', id: 'run-link-open' }, location.kind === 'data' ? 'Open the artifact in this data: URL' : `Fetch it from ${location.url.origin}`);
  const said =
    location.kind === 'data'
      ? ['This page was opened with ?run= holding a data: URL: the artifact comes in the link itself, from whoever wrote the link, not from a server. ', `It is ${location.url.href.length} characters long. `]
      : ['This page was opened with ?run= naming ', el('code', {}, location.url.href), `, on another origin (${location.url.origin}) than this page's (${window.location.origin}). `];
  const prompt = el(
    'section',
    { class: 'run-link', id: 'run-link', role: 'region', 'aria-label': 'Open the artifact ?run= names', 'data-run-link': location.kind },
    el('p', {}, ...said, 'The workbench fetches ?run= by itself only from its own origin. Open it only if you trust where it comes from; it is replayed before its checks are shown either way.'),
    el('div', { class: 'actions' }, button),
  );
  button.addEventListener('click', () => {
    button.disabled = true;
    void open();
  });
  return prompt;
}
