// View 4, quorum pricing (ADR-06/07/08): the latency CDFs of the chosen topologies side by side, each
// analytic floor a dashed vertical line, and a p50/p99/p999 table, as `lockstep quorum` prices them.
import { renderCdfChart } from '../../../viz/charts/cdf-chart.js';
import { el, numberInput } from '../dom.js';
import type { JobStatus } from '../job-status.js';
import type { TopologyPricing } from '../workbench-api.js';

export class QuorumView {
  readonly element: HTMLElement;
  private readonly boxes: HTMLInputElement[];
  private readonly samples = numberInput('quorum-samples', 200, 10, 2_000);
  private readonly button = el('button', { type: 'submit', class: 'primary' }, 'Compute');
  private readonly output = el('div', { id: 'quorum-output', 'aria-live': 'polite' });

  constructor(private readonly status: JobStatus, presets: readonly string[]) {
    this.boxes = presets.map((name) => el('input', { type: 'checkbox', id: `topology-${name}`, name: 'topology', value: name, checked: true }));
    const form = el(
      'form',
      { class: 'planner-form', 'aria-label': 'Quorum pricing inputs' },
      el('fieldset', {}, el('legend', {}, 'Topologies (examples/topologies)'), ...this.boxes.map((box) => el('div', { class: 'check' }, box, el('label', { for: box.id }, box.value)))),
      el('div', { class: 'field' }, el('label', { for: this.samples.id }, 'Acquisitions per run'), this.samples, el('span', { class: 'hint' }, 'one run per member: run r puts the leader on member r')),
      el('div', { class: 'actions' }, this.button),
    );
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      void this.compute();
    });
    status.onBusyChange((busy) => (this.button.disabled = busy));
    this.element = el('div', { class: 'quorum-view' }, el('h1', {}, 'Quorum pricing'), el('p', { class: 'hint' }, 'Acquisition latency of the full simulated protocol (client, arbiter, etcd, quorum fsync, apply, reply), beside the analytic floor nothing simulated can consistently beat.'), form, this.output);
  }

  private async compute(): Promise<void> {
    const request = { topologies: this.boxes.filter((b) => b.checked).map((b) => b.value), samplesPerRun: Number(this.samples.value) };
    const priced = await this.status.run('Quorum pricing', (api, onProgress) => api.quorumPricing(request, onProgress));
    if (priced !== undefined) this.show(priced);
  }

  show(priced: readonly TopologyPricing[]): void {
    const chart = el('div', { class: 'chart-panel wide' });
    this.output.replaceChildren(chart, table(priced));
    renderCdfChart(chart, { id: 'quorum-cdf', title: 'Acquisition latency CDF per topology', series: priced.map((t) => ({ id: t.name, label: t.name, samplesMs: t.samplesMs, floorMs: t.floorMs })) });
  }
}

function table(priced: readonly TopologyPricing[]): HTMLTableElement {
  const head = ['topology', 'acquisitions (simulated)', 'p50 (simulated)', 'p99 (simulated)', 'p999 (simulated)', 'floor (analytic)', 'upper bound (analytic, no queueing)'];
  const ms = (v: number): string => `${v} ms`;
  return el(
    'table',
    { class: 'figures', id: 'quorum-table' },
    el('caption', {}, 'Acquisition latency, ms'),
    el('thead', {}, el('tr', {}, ...head.map((h) => el('th', { scope: 'col' }, h)))),
    el(
      'tbody',
      {},
      ...priced.map((t) =>
        el(
          'tr',
          { 'data-topology': t.name },
          el('th', { scope: 'row', title: t.description }, t.name),
          el('td', { class: 'wrap' }, `${t.samplesMs.length} (${t.runs} runs, leaders ${[...new Set(t.leaders)].join(', ')})`),
          el('td', {}, ms(t.p50Ms)),
          el('td', {}, ms(t.p99Ms)),
          el('td', {}, ms(t.p999Ms)),
          el('td', {}, ms(t.floorMs)),
          el('td', {}, ms(t.upperBoundMs)),
        ),
      ),
    ),
  );
}
