// View 4, quorum pricing (ADR-06/07/08), as `lockstep quorum` prices it: the latency CDFs of the chosen
// topologies side by side with each analytic floor; a table of simulated percentiles beside the floor
// and both upper bounds (one acquisition in flight, and under load), saying where each p99 sits; the
// same split by leader placement (a CDF per topology, a line per leader, and a table), with what pinning
// the leader would buy; and the model's assumptions.
import { renderCdfChart } from '../../../viz/charts/cdf-chart.js';
import { el, numberInput } from '../dom.js';
import type { JobStatus } from '../job-status.js';
import type { TopologyPricing } from '../workbench-api.js';
import { modelAssumptions } from './model-assumptions.js';
import { pinningNote } from './quorum-reading.js';
import { leaderTable, topologyTable } from './quorum-tables.js';
import { plannerForm } from './planner-form.js';

export class QuorumView {
  readonly element: HTMLElement;
  private readonly boxes: HTMLInputElement[];
  private readonly samples = numberInput('quorum-samples', 200, 10, 2_000);
  private readonly output = el('div', { id: 'quorum-output', 'aria-live': 'polite' });

  constructor(private readonly status: JobStatus, presets: readonly string[]) {
    this.boxes = presets.map((name) => el('input', { type: 'checkbox', id: `topology-${name}`, name: 'topology', value: name, checked: true }));
    const form = plannerForm(status, 'Quorum pricing inputs', () => void this.compute(), [
      el('fieldset', {}, el('legend', {}, 'Topologies (examples/topologies)'), ...this.boxes.map((box) => el('div', { class: 'check' }, box, el('label', { for: box.id }, box.value)))),
      el('div', { class: 'field' }, el('label', { for: this.samples.id }, 'Acquisitions per run'), this.samples, el('span', { class: 'hint' }, 'one run per member: run r puts the leader on member r')),
    ]);
    this.element = el('div', { class: 'quorum-view' }, el('h1', {}, 'Quorum pricing'), el('p', { class: 'hint' }, 'Acquisition latency of the full simulated protocol (client, arbiter, etcd, quorum fsync, apply, reply), beside the analytic floor nothing simulated can consistently beat and the upper bounds it should stay under.'), form, this.output);
  }

  private async compute(): Promise<void> {
    const request = { topologies: this.boxes.filter((b) => b.checked).map((b) => b.value), samplesPerRun: Number(this.samples.value) };
    const priced = await this.status.run('Quorum pricing', (api, onProgress) => api.quorumPricing(request, onProgress));
    if (priced !== undefined) this.show(priced);
  }

  show(priced: readonly TopologyPricing[]): void {
    const chart = el('div', { class: 'chart-panel wide' });
    const leaderCharts = priced.map((t) => el('div', { class: 'chart-panel', 'data-topology': t.name }));
    this.output.replaceChildren(
      chart,
      topologyTable(priced),
      el('h2', {}, 'By leader placement'),
      el('p', { class: 'hint' }, 'etcd elects whichever member times out first, so the figures above weigh every placement equally; here each member leads on its own.'),
      el('ul', { class: 'pinning', id: 'quorum-pinning' }, ...priced.map((t) => el('li', { 'data-topology': t.name }, pinningNote(t)))),
      el('div', { class: 'chart-row leader-charts' }, ...leaderCharts),
      leaderTable(priced),
      modelAssumptions(priced),
    );
    renderCdfChart(chart, { id: 'quorum-cdf', title: 'Acquisition latency CDF per topology', seriesNoun: 'topology', series: priced.map((t) => ({ id: t.name, label: t.name, samplesMs: t.simulated.samplesMs, references: [{ label: 'floor', valueMs: t.floorMs }] })) });
    priced.forEach((t, i) => {
      const series = t.byLeader.flatMap((l) => (l.simulated === null ? [] : [{ id: `${t.name}/${l.leader}`, label: `leader ${l.leader} (${l.region})`, samplesMs: l.simulated.samplesMs }]));
      renderCdfChart(leaderCharts[i]!, { id: `quorum-cdf-${t.name}`, title: `${t.name}: by leader placement`, seriesNoun: 'leader placement', series });
    });
  }
}
