// The RPC-stack bench's report (issue 30): per stack, transport and concurrency the call's p50/p99,
// calls/s and the CPU per call of the server process and of the client process, and each as a ratio to
// the floor (the bare node:http2 echo on the same transport at the same concurrency) from the same run.
import { formatNumber, formatRatio } from '../core/numbers.js';
import { textTable } from '../src/text-table.js';
import { markdownTable } from './format.js';
import { STACKS } from './rpc-stacks-clients.js';
import { sliceKey } from './rpc-stacks-ipc.js';
import type { RpcRun } from './rpc-stacks-run.js';

export interface StackRow {
  readonly stack: string;
  readonly label: string;
  readonly transport: 'plaintext' | 'mTLS';
  readonly concurrency: number;
  readonly calls: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly callsPerS: number;
  /** CPU per call, microseconds; null when not read. */
  readonly serverCpuUs: number | null;
  readonly clientCpuUs: number | null;
  readonly errors: number;
  readonly firstError?: string;
  /** Over the bare echo's on the same transport and concurrency. */
  readonly p50OverFloor: number | null;
  readonly callsPerSOverFloor: number | null;
  /** Server + client CPU per call over the bare echo's. */
  readonly cpuOverFloor: number | null;
}

export interface RpcStacksReport {
  readonly rounds: number;
  readonly sliceMs: number;
  readonly warmupMs: number;
  /** --period: a worker's calls at most this often, ms (0: back to back). */
  readonly periodMs: number;
  readonly elapsedS: number;
  /** 1-minute load average at the start and at the end of the run. */
  readonly loadAverage: readonly [number, number];
  readonly nodeVersion: string;
  /** CPU per second of both processes while no call is made (in every stack's CPU per call, divided by its calls/s). */
  readonly idleCpuMsPerS: { readonly server: number; readonly client: number };
  readonly rows: readonly StackRow[];
}

const FLOOR = 'bare';

const over = (value: number | null | undefined, floor: number | null | undefined): number | null => (value == null || floor == null || floor <= 0 ? null : value / floor);

export function rpcStacksReport(run: RpcRun, settings: { readonly rounds: number; readonly sliceMs: number; readonly warmupMs: number; readonly periodMs: number; readonly concurrencies: readonly number[] }): RpcStacksReport {
  const byKey = new Map(run.results.map((r) => [r.key, r]));
  const rows: StackRow[] = [];
  for (const concurrency of settings.concurrencies) {
    for (const secure of [false, true]) {
      const floor = byKey.get(sliceKey({ stack: FLOOR, secure, concurrency }));
      const floorCpu = floor?.cpu === undefined ? null : floor.cpu.clientUs + (floor.cpu.serveUs ?? 0);
      for (const stack of STACKS) {
        const result = byKey.get(sliceKey({ stack: stack.id, secure, concurrency }));
        if (result === undefined) continue;
        const call = result.loop.phases.call;
        const cpu = result.cpu === undefined ? null : result.cpu.clientUs + (result.cpu.serveUs ?? 0);
        rows.push({
          stack: stack.id,
          label: stack.label,
          transport: secure ? 'mTLS' : 'plaintext',
          concurrency,
          calls: result.loop.operations,
          p50Ms: call?.p50Ms ?? 0,
          p99Ms: call?.p99Ms ?? 0,
          callsPerS: result.loop.throughputPerS,
          serverCpuUs: result.cpu?.serveUs ?? null,
          clientCpuUs: result.cpu?.clientUs ?? null,
          errors: result.loop.errors,
          ...(result.loop.firstError === undefined ? {} : { firstError: result.loop.firstError }),
          p50OverFloor: over(call?.p50Ms, floor?.loop.phases.call?.p50Ms),
          callsPerSOverFloor: over(result.loop.throughputPerS, floor?.loop.throughputPerS),
          cpuOverFloor: over(cpu, floorCpu),
        });
      }
    }
  }
  const perS = (us: number) => (run.idle.ms <= 0 ? 0 : us / run.idle.ms);
  const idleCpuMsPerS = { server: perS(run.idle.serverUs), client: perS(run.idle.clientUs) };
  return { rounds: settings.rounds, sliceMs: settings.sliceMs, warmupMs: settings.warmupMs, periodMs: settings.periodMs, elapsedS: run.elapsedS, loadAverage: run.loadAverage, nodeVersion: process.version, idleCpuMsPerS, rows };
}

const x = (value: number | null) => (value === null ? 'n/a' : formatRatio(value));
const cpuMs = (us: number | null) => (us === null ? '-' : formatNumber(us / 1000, 3));
/** No call ended inside a measured window (a slice shorter than the call): no percentile to give. */
const latency = (row: StackRow, ms: number) => (row.calls === 0 ? '-' : formatNumber(ms, 3));

/** The table's cells, header first: the text and markdown views both print these. */
function cells(report: RpcStacksReport): string[][] {
  const head = ['stack (server <- client)', 'transport', 'c', 'p50 ms', 'p99 ms', 'calls/s', 'server CPU ms/call', 'client CPU ms/call', 'p50 x floor', 'calls/s x floor', 'CPU x floor', 'errors'];
  const body = report.rows.map((r) => [r.label, r.transport, String(r.concurrency), latency(r, r.p50Ms), latency(r, r.p99Ms), String(Math.round(r.callsPerS)), cpuMs(r.serverCpuUs), cpuMs(r.clientCpuUs), x(r.p50OverFloor), x(r.callsPerSOverFloor), x(r.cpuOverFloor), r.errors === 0 ? '' : String(r.errors)]);
  return [head, ...body];
}

function summary(report: RpcStacksReport): string {
  const [start, end] = report.loadAverage;
  return `${report.rounds} round(s) of ${formatNumber(report.sliceMs / 1000, 2)} s slices (after ${formatNumber(report.warmupMs / 1000, 2)} s warm-up each), interleaved${report.periodMs > 0 ? `, each worker calling at most every ${formatNumber(report.periodMs, 2)} ms` : ''}; ${report.elapsedS} s in all; load average ${formatNumber(start, 1)} at the start, ${formatNumber(end, 1)} at the end; node ${report.nodeVersion}. The floor is the bare node:http2 echo on the same transport and concurrency; CPU x floor is server + client CPU per call over the floor's. Without calls the server process spends ${formatNumber(report.idleCpuMsPerS.server, 1)} ms of CPU a second and the client process ${formatNumber(report.idleCpuMsPerS.client, 1)} ms (in every stack's CPU per call: that over its calls/s).`;
}

function errorLines(report: RpcStacksReport): string[] {
  return report.rows.filter((r) => r.firstError !== undefined).map((r) => `${r.label} ${r.transport} c=${r.concurrency}: ${r.errors} error(s), first: ${r.firstError ?? ''}`);
}

export function formatRpcText(report: RpcStacksReport): string {
  return [`rpc-stacks: ${summary(report)}`, '', ...textTable(cells(report), { rightAligned: (i) => i > 1 }), ...errorLines(report)].join('\n');
}

export function formatRpcMarkdown(report: RpcStacksReport): string {
  return ['# The RPC stack alone (lock.v1 Acquire, canned answer)', '', summary(report), '', ...markdownTable(cells(report)), '', ...errorLines(report).map((line) => `- ${line}`)].join('\n');
}
