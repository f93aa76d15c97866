// The offline report's entry (`lockstep run … --html FILE`): reads the run embedded in the page as
// <script type="application/json" id="lockstep-run"> and mounts the timeline. Bundled by src/report/
// into one script inlined in the HTML, so the file opens from file:// with no network at all.
import { mountTimeline } from '../timeline/index.js';
import { ROOT_ELEMENT_ID, RUN_ELEMENT_ID } from './page-ids.js';
import { NOT_VERIFIED_NOTICE } from './report-notice.js';

function start(doc: Document): void {
  const root = doc.getElementById(ROOT_ELEMENT_ID) ?? doc.body;
  try {
    const text = doc.getElementById(RUN_ELEMENT_ID)?.textContent;
    if (text === undefined || text === null) throw new Error(`the page has no <script id="${RUN_ELEMENT_ID}"> with the run; regenerate it with lockstep run … --html`);
    mountTimeline(root, JSON.parse(text) as unknown, { notices: [NOT_VERIFIED_NOTICE] });
  } catch (error) {
    const message = doc.createElement('p');
    message.setAttribute('role', 'alert');
    message.textContent = `This report cannot show its run: ${error instanceof Error ? error.message : String(error)}`;
    root.appendChild(message);
  }
}

start(document);
