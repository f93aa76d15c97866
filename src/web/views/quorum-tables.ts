// The quorum pricing view's tables (ADR-06/07/08): per topology the simulated percentiles beside the
// analytic floor and both upper bounds, with a sentence saying where the p99 sits between them; per
// leader placement the simulated p50/p99 of the runs that member led beside the analytic path under it.
// Every column says whether it is simulated or analytic.
import { el, figuresTable } from '../dom.js';
import type { TopologyPricing } from '../workbench-api.js';
import { p99Reading } from './quorum-reading.js';

const ms = (v: number | null | undefined): string => (v === null || v === undefined ? '—' : `${v} ms`);

export function topologyTable(priced: readonly TopologyPricing[]): HTMLTableElement {
  const columns = ['topology', 'acquisitions (simulated)', 'p50 (simulated)', 'p99 (simulated)', 'p999 (simulated)', 'floor (analytic)', 'upper bound, one in flight (analytic)', 'upper bound under load (analytic)', 'where the p99 sits'];
  const rows = priced.map((t) => {
    const reading = p99Reading(t);
    return el(
      'tr',
      { 'data-topology': t.name, 'data-p99-verdict': reading.verdict },
      el('th', { scope: 'row', title: t.description }, t.name),
      el('td', { class: 'wrap' }, `${t.simulated.samplesMs.length} (${t.runs} runs x ${t.samplesPerRun})`),
      el('td', {}, ms(t.simulated.p50Ms)),
      el('td', {}, ms(t.simulated.p99Ms)),
      el('td', {}, ms(t.simulated.p999Ms)),
      el('td', {}, ms(t.floorMs)),
      el('td', { 'data-bound': 'upper' }, ms(t.upperBoundMs)),
      el('td', { 'data-bound': 'loaded' }, ms(t.loadedUpperBoundMs)),
      el('td', { class: 'wrap reading' }, reading.text),
    );
  });
  return figuresTable('quorum-table', 'Acquisition latency per topology, every leader placement weighed equally (the leader is not pinned)', columns, rows);
}

export function leaderTable(priced: readonly TopologyPricing[]): HTMLTableElement {
  const columns = ['topology', 'leader (region)', 'runs led', "arbiter's etcd endpoint", 'p50 (simulated)', 'p99 (simulated)', 'median path (analytic)', 'p99 bound, one in flight (analytic)', 'p99 bound under load (analytic)'];
  const rows = priced.flatMap((t) =>
    t.byLeader.map((l, i) =>
      el(
        'tr',
        { 'data-topology': t.name, 'data-leader': l.leader, class: i === 0 ? 'group-start' : undefined },
        el('th', { scope: 'row' }, i === 0 ? t.name : ''),
        el('th', { scope: 'row' }, `${l.leader} (${l.region})`),
        el('td', {}, String(l.runs)),
        el('td', {}, l.endpoints.join(', ') || '—'),
        el('td', { 'data-figure': 'p50' }, ms(l.simulated?.p50Ms)),
        el('td', { 'data-figure': 'p99' }, ms(l.simulated?.p99Ms)),
        el('td', {}, ms(l.medianMs)),
        el('td', {}, ms(l.p99BoundMs)),
        el('td', {}, ms(l.loadedP99BoundMs)),
      ),
    ),
  );
  return figuresTable('quorum-leaders', 'By leader placement: the runs each member led (run r puts the leader on member r mod N)', columns, rows);
}
