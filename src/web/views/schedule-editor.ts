// The scenario runner's parameters (issue 7): the chosen variant's fault schedule (scenarios/faults.ts)
// as editable JSON, one fault a line. The variant's own schedule is read by one run of it in the worker
// (scenarios build it inside their run, some from the seed) and kept per scenario, variant and seed.
// Left as shown, the run uses the variant's own schedule; edited, the page checks it (scenarios/fault-schedule.ts:
// the fault's index and field, the rule, what is allowed) and the run takes it, its artifact records it.
import type { Fault } from '../../../scenarios/faults.js';
import { el } from '../dom.js';
import { FaultScheduleError, formatFaultSchedule, parseFaultSchedule, sameFaultSchedule, type ScheduleContext } from '../../../scenarios/fault-schedule.js';
import type { JobStatus } from '../job-status.js';
import type { DefaultSchedule, ScheduleRequest } from '../workbench-api.js';

const HINT = 'Times in ms after the workload starts; a target is a process of the run or a role (@leader, @follower, @member-N, @holder), as in scenarios/faults.ts. [] runs without faults.';

export class ScheduleEditor {
  readonly element: HTMLFieldSetElement;
  private readonly text = el('textarea', { id: 'faults', name: 'faults', rows: 4, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'faults-status faults-hint' });
  private readonly statusLine = el('p', { id: 'faults-status', class: 'hint', 'aria-live': 'polite' });
  private readonly resetButton = el('button', { type: 'button', disabled: true }, 'Reset to the variant\'s own');
  private readonly known = new Map<string, DefaultSchedule>();
  private request: ScheduleRequest | undefined;
  /** The text was typed into since the variant's own schedule was put in. */
  private edited = false;

  constructor(private readonly status: JobStatus) {
    this.element = el('fieldset', { class: 'schedule' }, el('legend', {}, 'Fault schedule (JSON)'), el('label', { for: this.text.id, class: 'visually-hidden' }, 'Fault schedule'), this.text, this.statusLine, el('p', { class: 'hint', id: 'faults-hint' }, HINT), el('div', { class: 'actions' }, this.resetButton));
    this.text.addEventListener('input', () => {
      this.edited = true;
      this.describe();
    });
    this.resetButton.addEventListener('click', () => this.showOwn());
  }

  /** Shows the variant's own schedule for this scenario, variant and seed, reading it first if needed. */
  async load(request: ScheduleRequest): Promise<void> {
    this.request = request;
    this.edited = false;
    if (this.own() === undefined) {
      this.text.value = '';
      this.statusLine.textContent = `Reading the schedule of ${variantName(request)}, seed ${request.seed}…`;
      const own = await this.status.run(`Fault schedule of ${variantName(request)}`, (api) => api.defaultSchedule(request), { background: true });
      if (own === undefined) {
        if (keyOf(request) === keyOf(this.request)) this.statusLine.textContent = `The schedule of ${variantName(request)} could not be read (see the error); an empty editor runs the variant's own.`;
        return;
      }
      this.known.set(keyOf(request), own);
    }
    if (keyOf(request) === keyOf(this.request) && !this.edited) this.showOwn();
  }

  /**
   * The schedule to run: undefined for the variant's own (the editor empty, or as shown), else the edited
   * one, checked. Throws a FaultScheduleError naming the fault and field.
   */
  scheduleToRun(): Fault[] | undefined {
    const own = this.own();
    if (this.text.value.trim() === '') return undefined;
    try {
      const faults = parseFaultSchedule(this.text.value, this.context());
      this.text.removeAttribute('aria-invalid');
      return own !== undefined && sameFaultSchedule(faults, own.faults) ? undefined : faults;
    } catch (error) {
      if (error instanceof FaultScheduleError) this.text.setAttribute('aria-invalid', 'true');
      throw error;
    }
  }

  focus(): void {
    this.text.focus();
  }

  private own(): DefaultSchedule | undefined {
    return this.request === undefined ? undefined : this.known.get(keyOf(this.request));
  }

  private context(): ScheduleContext {
    const own = this.own();
    return { ...(own === undefined ? {} : { processes: own.processes }), ...(this.request === undefined ? {} : { variant: variantName(this.request) }) };
  }

  private showOwn(): void {
    const own = this.own();
    if (own === undefined) return;
    this.text.value = formatFaultSchedule(own.faults);
    this.text.rows = Math.min(12, Math.max(3, own.faults.length + 2));
    this.text.removeAttribute('aria-invalid');
    this.edited = false;
    this.describe();
  }

  /** Says whether the text is the variant's own schedule, an edit, or not yet valid. */
  private describe(): void {
    const own = this.own();
    this.resetButton.disabled = own === undefined || !this.edited;
    if (this.request === undefined) return;
    let faults: Fault[];
    try {
      faults = parseFaultSchedule(this.text.value, this.context());
    } catch (error) {
      this.statusLine.textContent = this.text.value.trim() === '' ? `Empty: the run uses the variant's own schedule.` : `Not valid yet: ${(error as Error).message}.`;
      this.statusLine.dataset['schedule'] = 'invalid';
      return;
    }
    const same = own !== undefined && sameFaultSchedule(faults, own.faults);
    this.statusLine.dataset['schedule'] = same ? 'own' : 'edited';
    this.statusLine.textContent = same
      ? `The variant's own schedule for seed ${this.request.seed}: ${count(faults.length)}.`
      : `Edited: ${count(faults.length)}. The run records them, and its replay command names the file Save writes.`;
  }
}

function keyOf(request: ScheduleRequest | undefined): string {
  return request === undefined ? '' : JSON.stringify([request.scenario, request.variant, request.seed.trim()]);
}

function variantName(request: ScheduleRequest): string {
  return `${request.scenario} / ${request.variant}`;
}

function count(n: number): string {
  return n === 1 ? '1 fault' : `${n} faults`;
}
