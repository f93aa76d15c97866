// The service hop as issue 30 states it: every path's acquire+release cycle (p50, p99, throughput) and
// its CPU per cycle in each process (client, serve, etcd), as ratios to the floor (one raw etcd txn pair
// with the etcd3 client), all from one interleaved run; the capacity of one serve; and the four goals.
import { formatNumber, formatRatio } from '../core/numbers.js';
import { type Goal, type WorkloadReport, phaseOf, ratio } from './report.js';
import type { ServeCapacity } from './serve-capacity.js';

export interface HopRow {
  readonly path: string;
  readonly concurrency: number;
  readonly cycleP50Ms: number;
  readonly cycleP99Ms: number;
  readonly cyclesPerS: number;
  readonly p50OverFloor: number | null;
  readonly p99OverFloor: number | null;
  readonly throughputOverFloor: number | null;
  /** CPU per cycle, microseconds, by process; serve only for the service paths, etcd with a local cluster. */
  readonly cpuUs: { readonly client: number | null; readonly serve: number | null; readonly etcd: number | null };
  /** Every process's CPU per cycle together over the floor's. */
  readonly cpuOverFloor: number | null;
}

export interface HopReport {
  readonly rows: readonly HopRow[];
  readonly capacity?: ServeCapacity;
  readonly goals: readonly Goal[];
}

export interface HopPaths {
  readonly floor: WorkloadReport;
  readonly inProcess: WorkloadReport;
  readonly service: WorkloadReport;
  readonly serviceTls: WorkloadReport;
}

const LABELS: ReadonlyArray<readonly [keyof HopPaths, string]> = [
  ['floor', 'floor: raw etcd txn pair (etcd3 client)'],
  ['inProcess', 'in-process arbiter'],
  ['service', 'through lockstep serve, plaintext'],
  ['serviceTls', 'through lockstep serve, mTLS'],
];

export function hopReport(paths: HopPaths, capacity?: ServeCapacity): HopReport {
  const rows: HopRow[] = [];
  for (const floorRun of paths.floor.runs) {
    const floorCycle = phaseOf(floorRun, 'cycle');
    const floorCpu = totalCpu(floorRun.cpu);
    for (const [key, label] of LABELS) {
      const run = paths[key].runs.find((r) => r.concurrency === floorRun.concurrency);
      if (run === undefined) continue;
      const cycle = phaseOf(run, 'cycle');
      rows.push({
        path: label,
        concurrency: run.concurrency,
        cycleP50Ms: cycle.p50Ms,
        cycleP99Ms: cycle.p99Ms,
        cyclesPerS: run.throughputPerS,
        p50OverFloor: ratio(cycle.p50Ms, floorCycle.p50Ms),
        p99OverFloor: ratio(cycle.p99Ms, floorCycle.p99Ms),
        throughputOverFloor: ratio(run.throughputPerS, floorRun.throughputPerS),
        cpuUs: { client: run.cpu?.clientUs ?? null, serve: run.cpu?.serveUs ?? null, etcd: run.cpu?.etcdUs ?? null },
        cpuOverFloor: ratio(totalCpu(run.cpu), floorCpu),
      });
    }
  }
  return { rows, ...(capacity === undefined ? {} : { capacity }), goals: hopGoals(paths) };
}

function totalCpu(cpu: { clientUs: number; serveUs?: number; etcdUs?: number } | undefined): number | undefined {
  return cpu === undefined ? undefined : cpu.clientUs + (cpu.serveUs ?? 0) + (cpu.etcdUs ?? 0);
}

/** Issue 30's goals, judged on this run: reported, never asserted. */
export function hopGoals(paths: HopPaths): Goal[] {
  const concurrencies = paths.inProcess.runs.map((r) => r.concurrency);
  const lowest = Math.min(...concurrencies);
  const highest = Math.max(...concurrencies);
  const at = (report: WorkloadReport, c: number) => report.runs.find((r) => r.concurrency === c);
  const p50 = (report: WorkloadReport, c: number) => { const run = at(report, c); return run === undefined ? undefined : phaseOf(run, 'cycle').p50Ms; };
  const goal = (text: string, target: string, value: number | null, ok: (v: number) => boolean): Goal => ({ goal: text, target, value, met: value === null ? null : ok(value) });
  return [
    goal(`serve (mTLS) cycle p50 / in-process cycle p50 (c=${lowest})`, '<= 1.3', ratio(p50(paths.serviceTls, lowest), p50(paths.inProcess, lowest)), (v) => v <= 1.3),
    goal(`serve (mTLS) cycle p50 / in-process cycle p50 (c=${highest})`, '<= 1.5', ratio(p50(paths.serviceTls, highest), p50(paths.inProcess, highest)), (v) => v <= 1.5),
    goal(`serve (mTLS) cycles/s / in-process cycles/s (c=${highest})`, '>= 0.7', ratio(at(paths.serviceTls, highest)?.throughputPerS, at(paths.inProcess, highest)?.throughputPerS), (v) => v >= 0.7),
    goal(`serve CPU per cycle (mTLS) / in-process arbiter's CPU per cycle (c=${highest})`, '<= 2', ratio(at(paths.serviceTls, highest)?.cpu?.serveUs, at(paths.inProcess, highest)?.cpu?.clientUs), (v) => v <= 2),
  ];
}

const x = (value: number | null) => (value === null ? 'n/a' : formatRatio(value));
const ms = (us: number | null) => (us === null ? '-' : formatNumber(us / 1000, 2));

/** The table's cells, header first: the text and markdown views both print these. */
export function hopTable(report: HopReport): string[][] {
  const head = ['path', 'c', 'cycle p50 ms', 'p50 x floor', 'p99 x floor', 'cycles/s', 'throughput x floor', 'CPU ms/cycle client', 'serve', 'etcd', 'CPU x floor'];
  return [head, ...report.rows.map((r) => [r.path, String(r.concurrency), formatNumber(r.cycleP50Ms, 2), x(r.p50OverFloor), x(r.p99OverFloor), String(Math.round(r.cyclesPerS)), x(r.throughputOverFloor), ms(r.cpuUs.client), ms(r.cpuUs.serve), ms(r.cpuUs.etcd), x(r.cpuOverFloor)])];
}

export function capacityLine(capacity: ServeCapacity | undefined): string[] {
  if (capacity === undefined) return [];
  const steps = capacity.steps.map((s) => `c=${s.concurrency} ${Math.round(s.cyclesPerS)}/s p99 ${formatNumber(s.cycleP99Ms, 1)} ms`).join('; ');
  const verdict = capacity.sustainedCyclesPerS === null ? `no step kept the cycle p99 under ${capacity.p99BoundMs} ms` : `${Math.round(capacity.sustainedCyclesPerS)} cycles/s at c=${capacity.atConcurrency} with the cycle p99 under ${capacity.p99BoundMs} ms`;
  return [`capacity of one serve (mTLS): ${verdict} (${steps})`];
}
