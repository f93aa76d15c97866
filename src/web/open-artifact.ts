// The two ways an artifact arrives besides the file input (issue 7): a file dropped anywhere on the
// page, and ?run=<url> (relative to the page, e.g. a file served beside it, or any URL that allows it).
import { el } from './dom.js';

/** Fetches ?run=<url>'s text; throws an error naming the URL and what to do when it cannot. */
export async function fetchRunParameter(url: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(new URL(url, location.href));
  } catch (error) {
    throw new Error(`?run=${url}: could not be fetched (${(error as Error).message}); check the URL, or save the file and load it with the file input`);
  }
  if (!response.ok) throw new Error(`?run=${url}: the server answered HTTP ${response.status}; check the URL`);
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
