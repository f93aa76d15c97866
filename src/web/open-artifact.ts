// The two ways an artifact arrives besides the file input (issue 7): a file dropped anywhere on the
// page, and ?run=<url>. A ?run= link is written by whoever sent it (issue 18), so the page fetches it by
// itself only from its own origin; another http(s) origin, or a data: URL (an artifact carried in the
// link itself, from no server at all), waits for the reader to choose to open it; any other scheme is
// refused.
import { el } from './dom.js';

export type RunLocation =
  /** Fetched without asking. */
  | { readonly kind: 'same-origin'; readonly url: URL }
  /** Fetched only when the reader chooses to. */
  | { readonly kind: 'other-origin'; readonly url: URL }
  | { readonly kind: 'data'; readonly url: URL }
  | { readonly kind: 'refused'; readonly reason: string };

const SAVE_INSTEAD = 'save the file and load it with the file input';

/** Where ?run=<raw> points, resolved against the page (a relative URL is the page's own origin). */
export function locateRunParameter(raw: string, pageHref: string): RunLocation {
  let url: URL;
  try {
    url = new URL(raw, pageHref);
  } catch {
    return { kind: 'refused', reason: `is not a URL; ${SAVE_INSTEAD}` };
  }
  if (url.protocol === 'data:') return { kind: 'data', url };
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { kind: 'refused', reason: `is a ${url.protocol} URL; ?run= opens http(s) URLs (and data: URLs when you choose to), nothing else; ${SAVE_INSTEAD}` };
  if (url.username !== '' || url.password !== '') return { kind: 'refused', reason: `carries a user name or password; ?run= does not send credentials; ${SAVE_INSTEAD}` };
  return { kind: url.origin === new URL(pageHref).origin ? 'same-origin' : 'other-origin', url };
}

/** How the page describes where a fetched artifact came from. */
export function describeRunLocation(location: Exclude<RunLocation, { kind: 'refused' }>, pageOrigin: string): string {
  switch (location.kind) {
    case 'same-origin':
      return `${location.url.href}, fetched from this page's own origin (${pageOrigin}) by ?run=`;
    case 'other-origin':
      return `${location.url.href}, fetched by ?run= from another origin, ${location.url.origin}, because you chose to`;
    case 'data':
      return `a data: URL in ?run= (${location.url.href.length} characters: the artifact came in the link itself, from no server), opened because you chose to`;
  }
}

/** The file name a terminal would replay: the URL's last path segment (replay-command.ts checks it). */
export function fileNameOf(location: Exclude<RunLocation, { kind: 'refused' }>): string | undefined {
  if (location.kind === 'data') return undefined;
  const last = location.url.pathname.split('/').at(-1) ?? '';
  try {
    return decodeURIComponent(last) || undefined;
  } catch {
    return undefined;
  }
}

/** Fetches the artifact's text; throws an error naming the URL and what to do when it cannot. */
export async function fetchRunLocation(location: Exclude<RunLocation, { kind: 'refused' }>, shown: string): Promise<string> {
  // Same origin: mode 'same-origin' also refuses a redirect to another origin. Elsewhere: no cookies, no referrer (the page's URL).
  const init: RequestInit = location.kind === 'same-origin' ? { mode: 'same-origin', credentials: 'same-origin' } : { mode: 'cors', credentials: 'omit', referrerPolicy: 'no-referrer' };
  let response: Response;
  try {
    response = await fetch(location.url, init);
  } catch (error) {
    const elsewhere = location.kind === 'other-origin' ? `; the server at ${location.url.origin} must allow this page's origin (CORS), and a workbench served by lockstep web fetches only from origins it was started with (--allow-origin ${location.url.origin})` : '';
    throw new Error(`?run=${shown}: could not be fetched (${(error as Error).message})${elsewhere}; check the URL, or ${SAVE_INSTEAD}`);
  }
  if (!response.ok) throw new Error(`?run=${shown}: the server answered HTTP ${response.status}; check the URL`);
  return response.text();
}

/** Lets the whole page take a dropped file; shows a hint while a file is dragged over it. */
export function acceptDroppedFiles(target: HTMLElement, onFile: (file: File) => void): void {
  const hint = el('div', { class: 'drop-hint', hidden: true, 'aria-hidden': 'true' }, 'Drop a run artifact (JSON) to load it');
  target.append(hint);
  let depth = 0;
  const carriesFiles = (event: DragEvent): boolean => event.dataTransfer?.types.includes('Files') ?? false;
  target.addEventListener('dragenter', (event) => {
    if (!carriesFiles(event)) return;
    depth += 1;
    hint.hidden = false;
  });
  target.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) hint.hidden = true;
  });
  target.addEventListener('dragover', (event) => {
    if (carriesFiles(event)) event.preventDefault(); // allows the drop
  });
  target.addEventListener('drop', (event) => {
    event.preventDefault();
    depth = 0;
    hint.hidden = true;
    const file = event.dataTransfer?.files[0];
    if (file !== undefined) onFile(file);
  });
}
