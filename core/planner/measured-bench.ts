// What `lockstep ttl --bench FILE` takes from a measurement of the operator's own hardware: the write
// ceiling a class's grant + release load is a share of, the keepalive capacity of the leader (ADR-10),
// and the WAL fsync the simulated worlds should use. Two files carry them, both written by
// `lockstep bench`: its report (`--json`, or `--out FILE`) and its hardware profile (`--profile FILE`).
// Their shapes are restated here, structurally, since core/ does not import bench/ (ARCHITECTURE.md).
import type { LatencySpec } from './topology.js';

export interface MeasuredBench {
  readonly kind: 'bench-report' | 'hardware-profile';
  /** Quorum writes per second the cluster carried, or could by its CPU costs; null when the file has neither. */
  readonly writeCeilingPerSecond: number | null;
  /** Where the ceiling comes from, printed beside the share. */
  readonly writeCeilingSource: string;
  /** LeaseKeepAlives per second the leader served (the report only). */
  readonly keepaliveCeilingPerSecond: number | null;
  readonly walFsync: LatencySpec | null;
}

export class BenchFileError extends Error {
  constructor(readonly field: string, message: string, readonly fix: string) {
    super(`${field}: ${message}; ${fix}`);
    this.name = 'BenchFileError';
  }
}

const FIX = 'give the output of lockstep bench --json (or --out FILE), or a profile from lockstep bench --profile FILE';

interface Workload {
  readonly throughputPerS?: unknown;
  readonly runs?: ReadonlyArray<{ readonly concurrency?: unknown }>;
}

interface Report {
  readonly env?: { readonly etcdVersion?: unknown; readonly members?: unknown; readonly startedAt?: unknown };
  readonly fsync?: { readonly p50Ms?: unknown; readonly p99Ms?: unknown };
  readonly grant?: Workload;
  readonly keepalive?: Workload;
}

interface Profile {
  readonly kind?: unknown;
  readonly walFsync?: LatencySpec;
  readonly cpuByConcurrency?: ReadonlyArray<{ readonly requestCostMs?: unknown; readonly applyCostMs?: unknown }>;
}

/**
 * The text of a bench file: one JSON document, or (a captured `--json` run) lines whose last one is the
 * report. Throws a BenchFileError naming what is wrong.
 */
export function parseBenchText(text: string): MeasuredBench {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  for (const candidate of [text, lines[lines.length - 1] ?? '']) {
    let value: unknown;
    try {
      value = JSON.parse(candidate);
    } catch {
      continue;
    }
    return measuredBench(value);
  }
  throw new BenchFileError('(file)', 'is not JSON, and neither is its last line', FIX);
}

export function measuredBench(value: unknown): MeasuredBench {
  if (value === null || typeof value !== 'object') throw new BenchFileError('(document)', 'is not a JSON object', FIX);
  if ((value as Profile).kind === 'lockstep-hardware-profile') return fromProfile(value as Profile);
  if ('grant' in value && 'env' in value) return fromReport(value as Report);
  throw new BenchFileError('(document)', 'is neither a bench report (no env and grant) nor a hardware profile (kind is not lockstep-hardware-profile)', FIX);
}

const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;

function fromReport(report: Report): MeasuredBench {
  const grant = report.grant!;
  if (!positive(grant.throughputPerS)) throw new BenchFileError('grant.throughputPerS', `is ${JSON.stringify(grant.throughputPerS)}, not a measured rate`, 'rerun lockstep bench until the grant workload completes');
  // bench/report.ts: a workload's throughput is the one at its highest concurrency, and a grant cycle is
  // an acquire and a release, two quorum writes.
  const concurrency = grant.runs?.[grant.runs.length - 1]?.concurrency;
  const env = report.env ?? {};
  const keepalive = report.keepalive?.throughputPerS;
  const p50 = report.fsync?.p50Ms;
  const p99 = report.fsync?.p99Ms;
  return {
    kind: 'bench-report',
    writeCeilingPerSecond: 2 * grant.throughputPerS,
    writeCeilingSource: `measured: 2 writes x ${grant.throughputPerS} grant cycles/s at concurrency ${String(concurrency ?? '?')} (lockstep bench, etcd ${String(env.etcdVersion ?? '?')}, ${String(env.members ?? '?')} member(s), ${String(env.startedAt ?? 'undated')}); the most it carried, not necessarily its limit`,
    keepaliveCeilingPerSecond: positive(keepalive) ? keepalive : null,
    walFsync: positive(p50) && positive(p99) ? { kind: 'lognormal', medianMs: p50, p99Ms: Math.max(p50, p99) } : null,
  };
}

function fromProfile(profile: Profile): MeasuredBench {
  if (profile.walFsync === undefined) throw new BenchFileError('walFsync', 'is missing', 'write the profile again with lockstep bench --profile FILE');
  const cpu = profile.cpuByConcurrency?.[profile.cpuByConcurrency.length - 1];
  const perWriteMs = cpu === undefined ? 0 : Number(cpu.requestCostMs) + Number(cpu.applyCostMs);
  return {
    kind: 'hardware-profile',
    writeCeilingPerSecond: positive(perWriteMs) ? 1000 / perWriteMs : null,
    writeCeilingSource: positive(perWriteMs) ? `analytic from measured CPU costs: 1000 / (${Number(cpu!.requestCostMs)} + ${Number(cpu!.applyCostMs)} ms per write) (lockstep bench --profile)` : 'the profile has no CPU costs',
    keepaliveCeilingPerSecond: null,
    walFsync: profile.walFsync,
  };
}
