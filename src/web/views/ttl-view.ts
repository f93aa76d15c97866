// View 3, TTL sizing (ADR-10/11/12): against TTL, the false-fence rate per session-hour (simulated,
// with its 95% upper bound, and analytic from the pause profile) in one panel, and the liveness bound
// after a holder crash (analytic, beside the simulated reacquire) in the other; the keepalive load of N
// sessions in the table. Every figure says whether it is simulated or analytic.
import { formatSeconds, formatSimulatedSeconds } from '../../../core/numbers.js';
import { renderLineChart } from '../../../viz/charts/line-chart.js';
import { el, field, figuresTable, numberInput } from '../dom.js';
import type { JobStatus } from '../job-status.js';
import type { TtlCurve } from '../workbench-api.js';
import { plannerForm } from './planner-form.js';

export class TtlView {
  readonly element: HTMLElement;
  private readonly sessions = numberInput('ttl-sessions', 100, 1, 1_000_000);
  private readonly from = numberInput('ttl-from', 5, 5, 300);
  private readonly to = numberInput('ttl-to', 60, 5, 300);
  private readonly runs = numberInput('ttl-runs', 1, 1, 10);
  private readonly pauses = el('select', { id: 'ttl-pauses', name: 'ttl-pauses' }, el('option', { value: 'gc' }, 'gc: a pause a minute, median 50 ms, p99 1.5 s'), el('option', { value: 'none' }, 'none'));
  private readonly output = el('div', { id: 'ttl-output', 'aria-live': 'polite' });

  constructor(private readonly status: JobStatus) {
    const form = plannerForm(status, 'TTL sizing inputs', () => void this.compute(), [
      field('Sessions at peak', this.sessions, 'one per identity and TTL (ADR-10)'),
      field('TTL from (s)', this.from),
      field('TTL to (s)', this.to, 'ADR-11: 5 to 300 s'),
      field('Runs per TTL', this.runs, 'simulated seeds; more runs, tighter rates'),
      field('Process pauses', this.pauses),
    ]);
    this.element = el('div', { class: 'ttl-view' }, el('h1', {}, 'TTL sizing'), el('p', { class: 'hint' }, 'What a lock class TTL costs and buys, as lockstep ttl --sweep prices it: solid lines and filled markers are simulated, dashed lines and hollow markers analytic.'), form, this.output);
  }

  private async compute(): Promise<void> {
    const request = { sessions: Number(this.sessions.value), ttlFromSeconds: Number(this.from.value), ttlToSeconds: Number(this.to.value), runs: Number(this.runs.value), pauses: this.pauses.value === 'none' ? ('none' as const) : ('gc' as const) };
    const curve = await this.status.run('TTL sweep', (api, onProgress) => api.ttlCurve(request, onProgress));
    if (curve !== undefined) this.show(curve);
  }

  show(curve: TtlCurve): void {
    const p = curve.points;
    const fences = el('div', { class: 'chart-panel' });
    const liveness = el('div', { class: 'chart-panel' });
    this.output.replaceChildren(el('div', { class: 'chart-row' }, fences, liveness), table(curve));
    renderLineChart(fences, {
      id: 'ttl-false-fences',
      title: `False fences per session-hour (pauses: ${curve.request.pauses})`,
      xLabel: 'TTL, s',
      yLabel: 'false fences per session-hour',
      series: [
        { id: 'false-fences-simulated', label: 'false-fence rate', source: 'simulated', points: p.map((x) => ({ x: x.ttlSeconds, y: x.falseFencePerSessionHour })) },
        { id: 'false-fences-upper95', label: '95% upper bound of that rate', source: 'simulated', points: p.map((x) => ({ x: x.ttlSeconds, y: x.falseFenceUpper95PerSessionHour })) },
        { id: 'false-fences-analytic', label: 'from the pause profile alone', source: 'analytic', points: p.map((x) => ({ x: x.ttlSeconds, y: x.falseFenceAnalyticPerSessionHour })) },
      ],
    });
    renderLineChart(liveness, {
      id: 'ttl-liveness',
      title: 'Key blocked after a holder crash',
      xLabel: 'TTL, s',
      yLabel: 'seconds until a waiter is granted',
      formatY: (v) => formatSeconds(v * 1000),
      series: [
        { id: 'liveness-bound', label: 'liveness bound, with a leader change', source: 'analytic', points: p.map((x) => ({ x: x.ttlSeconds, y: x.livenessBoundMs / 1000 })) },
        { id: 'liveness-bound-no-leader-change', label: 'liveness bound, same leader', source: 'analytic', points: p.map((x) => ({ x: x.ttlSeconds, y: x.livenessBoundNoLeaderChangeMs / 1000 })) },
        { id: 'reacquire-simulated', label: 'reacquire p50, leader crashes too', source: 'simulated', points: p.map((x) => ({ x: x.ttlSeconds, y: x.reacquireLeaderChangeMsP50 === null || !Number.isFinite(x.reacquireLeaderChangeMsP50) ? null : x.reacquireLeaderChangeMsP50 / 1000 })) },
      ],
    });
  }
}

function table(curve: TtlCurve): HTMLTableElement {
  const head = ['TTL', `keepalives/s for ${curve.request.sessions} sessions (analytic)`, 'liveness bound (analytic)', 'same leader (analytic)', 'reacquire p50 (simulated)', 'false fences / session-hour (simulated, 95% upper)', 'from pauses (analytic)'];
  const rows = curve.points.map((x) =>
    el(
      'tr',
      {},
      el('th', { scope: 'row' }, `${x.ttlSeconds} s`),
      el('td', {}, String(x.keepalivesPerSecond)),
      el('td', {}, formatSimulatedSeconds(x.livenessBoundMs)),
      el('td', {}, formatSimulatedSeconds(x.livenessBoundNoLeaderChangeMs)),
      el('td', {}, formatSimulatedSeconds(x.reacquireLeaderChangeMsP50)),
      el('td', {}, `${x.falseFencePerSessionHour} (≤ ${x.falseFenceUpper95PerSessionHour})`),
      el('td', {}, String(x.falseFenceAnalyticPerSessionHour)),
    ),
  );
  return figuresTable('ttl-table', `Per TTL: ${curve.request.runs} simulated run(s) each, ${curve.points[0]?.simulatedSessionHours ?? 0} session-hours per TTL for the false-fence rate`, head, rows);
}
