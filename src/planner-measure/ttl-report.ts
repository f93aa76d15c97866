// `lockstep ttl --measure` (issue 32): the false-fence share of each class's TTL measured on real
// processes (ttl-measure.ts) beside the share `lockstep ttl`'s model predicts, with a 95% Wilson
// interval. The holders run on the regional preset (examples/topologies/regional-3.json: one region,
// sub-millisecond links), so a fence is the pause's doing, not the network's.
import { formatNumber, formatPercent } from '../../core/numbers.js';
import type { Topology } from '../../core/planner/topology.js';
import { textTable } from '../text-table.js';
import { loadAverage, type MeasureContext } from './measure-run.js';
import { RealTopology } from './real-topology.js';
import { defaultPauseMs, type FenceMeasurement, measureFalseFences, ttlClassName, WATCH_AFTER_RESUME_MS } from './ttl-measure.js';

/** Holders a measurement runs at most (each a process of its own). */
export const MAX_MEASURED_HOLDERS = 16;
/** Pauses per TTL at most. */
export const MAX_MEASURED_PAUSES = 2_000;
/** A pause at most: ADR-11's longest TTL (300 s) and a margin. */
export const MAX_PAUSE_MS = 310_000;

export interface TtlMeasureRequest {
  readonly ttlsSeconds: readonly number[];
  readonly holders: number;
  readonly pauses: number;
  /** One pause for every TTL; default defaultPauseMs(TTL) (the model's share one half). */
  readonly pauseMs?: number;
}

export interface TtlMeasurementReport {
  readonly topology: string;
  readonly watchAfterResumeMs: number;
  readonly measurements: readonly FenceMeasurement[];
  readonly loadAverage: readonly number[];
}

export async function measureTtls(topology: Topology, request: TtlMeasureRequest, context: MeasureContext): Promise<TtlMeasurementReport> {
  const ttls = [...new Set(request.ttlsSeconds)];
  const real = await RealTopology.start({
    topology: { ...topology, clients: { ...topology.clients, count: request.holders } },
    classes: Object.fromEntries(ttls.map((ttl) => [ttlClassName(ttl), ttl])),
    clients: request.holders,
    say: context.progress,
  });
  try {
    const measurements: FenceMeasurement[] = [];
    for (const ttlSeconds of ttls) {
      const pauseMs = request.pauseMs ?? defaultPauseMs(ttlSeconds);
      context.progress(`ttl ${ttlSeconds} s: ${request.holders} holders, ${request.pauses} pauses of ${pauseMs} ms`);
      measurements.push(await measureFalseFences(real, { ttlSeconds, pauseMs, pauses: request.pauses, holders: request.holders }, context));
    }
    return { topology: topology.name, watchAfterResumeMs: WATCH_AFTER_RESUME_MS, measurements, loadAverage: loadAverage() };
  } finally {
    context.progress('stopping the measured processes');
    await real.stop();
  }
}

export function renderTtlMeasurement(report: TtlMeasurementReport): string {
  const share = (x: number): string => formatPercent(x, 1);
  const table = textTable(
    [
      ['TTL s', 'pause ms (mean, max injected)', 'pauses', 'fenced', 'measured share (95% Wilson)', 'predicted share', 'verdict', 'fences outside a pause'],
      ...report.measurements.map((m) => [
        String(m.ttlSeconds), `${m.pauseMs} (${m.meanPauseMs}, ${m.maxPauseMs})`, String(m.measured.trials), String(m.measured.successes),
        `${share(m.measured.share)} (${share(m.measured.low)}..${share(m.measured.high)})`, share(m.predictedShare),
        m.predictedWithinInterval ? 'inside' : 'outside', String(m.unprovokedFences),
      ]),
    ],
    { rightAligned: (i) => i < 4 || i === 7 },
  );
  return [
    `false fences measured on real processes (${report.topology}: etcd members, a lockstep serve arbiter, one process per holder; load average ${report.loadAverage.map((x) => formatNumber(x, 1)).join(' ')})`,
    `  each pause freezes one holder (SIGSTOP) at a random phase of its keepalive period; a fence within ${report.watchAfterResumeMs} ms of its resume is the pause's`,
    "  predicted: lockstep ttl's model for each pause as injected, averaged (a pause longer than TTL - 1 s - the time since the last renewal fences; core/planner/liveness.ts)",
    ...table.map((line) => `  ${line}`),
  ].join('\n');
}
