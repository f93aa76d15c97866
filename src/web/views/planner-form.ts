// The input form of a planner view (TTL sizing, quorum pricing): its fields, a Compute button that is
// disabled while any job runs (one job at a time in the worker), and submit without a page load.
import { el } from '../dom.js';
import type { JobStatus } from '../job-status.js';

export function plannerForm(status: JobStatus, label: string, onSubmit: () => void, fields: readonly Node[]): HTMLFormElement {
  const button = el('button', { type: 'submit', class: 'primary' }, 'Compute');
  const form = el('form', { class: 'planner-form', 'aria-label': label }, ...fields, el('div', { class: 'actions' }, button));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    onSubmit();
  });
  status.onBusyChange((busy) => (button.disabled = busy));
  return form;
}
