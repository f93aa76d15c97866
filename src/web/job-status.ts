// What the page says while the worker works and when it fails (issue 7): a progress line with the
// elapsed time and the worker's latest report, shown once a job has taken a second (a shorter one would
// only flicker), a Cancel button, and an alert region for errors, which name the input at fault.
import { formatSeconds } from '../../core/numbers.js';
import { el } from './dom.js';
import { type Job, JobCancelledError, type WorkbenchClient } from './workbench-client.js';
import type { ProgressReport } from './workbench-api.js';

const SHOW_AFTER_MS = 1_000;
const TICK_MS = 250;

export class JobStatus {
  readonly element: HTMLElement;
  private readonly line: HTMLElement;
  private readonly cancelButton: HTMLButtonElement;
  private readonly errorBox: HTMLElement;
  private readonly listeners = new Set<(busy: boolean) => void>();
  /** The last job queued; runNow never rejects, so the chain never breaks. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly client: WorkbenchClient) {
    this.line = el('span', { class: 'progress-text' });
    this.cancelButton = el('button', { type: 'button', class: 'cancel' }, 'Cancel');
    this.cancelButton.addEventListener('click', () => this.client.cancel());
    this.errorBox = el('div', { id: 'error', role: 'alert', class: 'error', hidden: true });
    this.element = el('div', { class: 'job-status' }, el('div', { id: 'progress', class: 'progress', role: 'status', 'aria-live': 'polite', hidden: true }, this.line, ' ', this.cancelButton), this.errorBox);
  }

  private get progressBox(): HTMLElement {
    return this.element.querySelector<HTMLElement>('#progress')!;
  }

  /** Called with true when a job starts and false when it ends: views disable their run buttons. */
  onBusyChange(listener: (busy: boolean) => void): void {
    this.listeners.add(listener);
  }

  showError(message: string): void {
    this.errorBox.hidden = false;
    this.errorBox.replaceChildren(el('strong', {}, 'Error: '), message, ' ', this.dismissButton());
  }

  clearError(): void {
    this.errorBox.hidden = true;
    this.errorBox.replaceChildren();
  }

  private dismissButton(): HTMLButtonElement {
    const button = el('button', { type: 'button', class: 'link' }, 'Dismiss');
    button.addEventListener('click', () => this.clearError());
    return button;
  }

  /**
   * Runs a job with a progress line; returns undefined (having said why) if it failed or was cancelled.
   * Jobs run one after another: the page starts some itself (a variant's fault schedule, a ?run= replay),
   * and the worker takes one at a time.
   */
  run<T>(label: string, job: Job<T>, options: { readonly background?: boolean } = {}): Promise<T | undefined> {
    const turn = this.queue.then(() => this.runNow(label, job, options.background === true));
    this.queue = turn;
    return turn;
  }

  /** A background job (one the page started by itself) leaves an error the user has not dismissed alone. */
  private async runNow<T>(label: string, job: Job<T>, background: boolean): Promise<T | undefined> {
    if (!background) this.clearError();
    const startedMs = performance.now();
    let latest: ProgressReport | undefined;
    const render = (): void => {
      const elapsedMs = performance.now() - startedMs;
      if (elapsedMs < SHOW_AFTER_MS) return;
      const step = latest?.done !== undefined && latest.total !== undefined ? ` (${latest.done}/${latest.total})` : '';
      this.line.textContent = `${label}: ${latest?.label ?? 'working'}${step}, ${formatSeconds(elapsedMs, 1)}`;
      this.progressBox.hidden = false;
    };
    const timer = setInterval(render, TICK_MS);
    for (const listener of this.listeners) listener(true);
    try {
      return await this.client.run(job, (report) => {
        latest = report;
      });
    } catch (error) {
      if (error instanceof JobCancelledError) this.showError(`${label}: cancelled; the simulator was restarted.`);
      else this.showError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    } finally {
      clearInterval(timer);
      this.progressBox.hidden = true;
      for (const listener of this.listeners) listener(false);
    }
  }
}
