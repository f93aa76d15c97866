// View 2, the run timeline (issue 7): the shown run drawn by viz/timeline's mountTimeline. Drawn when
// the tab is shown, not while hidden, since the chart lays itself out to its container's width. It says
// whose checks it draws, as the runner does (run-result.ts verificationNotice).
import { el } from '../dom.js';
import type { JobStatus } from '../job-status.js';
import { type ShownRun, verificationNotice } from './run-result.js';
import { mountTimeline, type TimelineHandle } from '../../../viz/timeline/index.js';

export class TimelineView {
  readonly element: HTMLElement;
  private readonly host = el('div', { id: 'timeline', class: 'timeline-host' });
  private readonly heading = el('p', { class: 'hint' }, 'Run a scenario or load an artifact in the Scenario runner; its timeline is drawn here.');
  private readonly notes = el('div', { class: 'timeline-notes' });
  private handle: TimelineHandle | undefined;
  private pending: ShownRun | undefined;

  constructor(private readonly status: JobStatus) {
    this.element = el('div', { class: 'timeline-view' }, el('h1', {}, 'Run timeline'), this.heading, this.notes, this.host);
  }

  /** The run to draw; drawn now if visible, else when the tab is next shown. */
  setRun(shown: ShownRun, visible: boolean): void {
    this.pending = shown;
    if (visible) this.draw();
  }

  /** The tab was shown. */
  draw(): void {
    const shown = this.pending;
    if (shown === undefined) return;
    this.pending = undefined;
    this.handle?.destroy();
    this.handle = undefined;
    this.host.replaceChildren();
    const a = shown.artifact;
    this.heading.textContent = `${a.scenario} / ${a.variant}, seed ${a.seed}, from ${shown.source}.`;
    // Whose checks the timeline draws (issue 18): computed here, a replay (and whether the record agreed), or NOT VERIFIED.
    this.notes.replaceChildren(verificationNotice(shown), ...shown.notes.map((n) => el('p', { class: 'note' }, n)));
    try {
      this.handle = mountTimeline(this.host, a, { title: `${a.scenario} / ${a.variant}, seed ${a.seed}` });
    } catch (error) {
      const message = `The timeline of ${shown.source} cannot be drawn: ${(error as Error).message}`;
      this.host.replaceChildren(el('p', { class: 'error-inline' }, message));
      this.status.showError(message);
    }
  }
}
