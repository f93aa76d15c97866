// The bench report: what was measured, the ratios the goals are stated in, and each goal's
// verdict. Plain data, so `--json`, `--md`, the text view and `--out` all print the same thing.
import { formatRatio } from '../core/numbers.js';
import type { CapacityReport } from './capacity.js';
import type { ClosedLoopResult } from './closed-loop.js';
import type { CpuPerOperation } from './cpu-meter.js';
import type { BenchEnvironment } from './environment.js';
import type { FsyncResult } from './fsync-probe.js';
import type { HopReport } from './hop-report.js';
import type { SimComparison } from './sim-compare/compare.js';
import type { LatencySummary } from './histogram.js';
import type { WorkloadName } from './workloads/workload.js';

export interface MeasuredRun extends ClosedLoopResult {
  /** CPU per operation, client side and (local cluster) per etcd member. */
  readonly cpu?: CpuPerOperation;
}

export interface WorkloadRun extends MeasuredRun {
  /** The latency the ratios use (raw: create; grant and peer: acquire; keepalive: keepalive). */
  readonly latency: LatencySummary;
}

export interface WorkloadReport {
  readonly what: string;
  /** The phase `latency` and the headline percentiles are of. */
  readonly primaryPhase: string;
  /** Headline: the primary phase at the lowest concurrency (least queueing)... */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  /** ...and operations per second at the highest. */
  readonly throughputPerS: number;
  readonly runs: readonly WorkloadRun[];
}

export interface KeepaliveReport extends WorkloadReport {
  readonly sessions: number;
  /** ADR-10: sessions the leader could keep alive at a 15 s TTL renewed every 5 s. */
  readonly sessionsSustainedAt5sRenewal: number;
}

export interface RatioRow {
  readonly concurrency: number;
  readonly grantP50OverRaw: number | null;
  readonly grantP99OverRaw: number | null;
  readonly grantThroughputOverRaw: number | null;
  readonly peerP50OverGrant: number | null;
  readonly peerAcquireP50OverGrant: number | null;
  /** Through `lockstep serve` / in-process, acquire p50 and p99 and cycles/s (ADR-18's hop). */
  readonly serviceP50OverGrant: number | null;
  readonly serviceP99OverGrant: number | null;
  readonly serviceThroughputOverGrant: number | null;
  /** service acquire p50 minus in-process acquire p50, ms: the hop ADR-18 budgets at 1-3 ms. */
  readonly serviceHopP50Ms: number | null;
}

export interface Ratios {
  /** grant acquire p50 / raw create p50, at the lowest concurrency. */
  readonly grantP50OverRaw: number | null;
  /** grant cycles/s / raw cycles/s (acquire+release vs create+delete), at the highest concurrency. */
  readonly grantThroughputOverRaw: number | null;
  /** peer acquire+release p50 / grant acquire+release p50, at the lowest concurrency. */
  readonly peerP50OverGrant: number | null;
  /** peer acquire p50 / grant acquire p50, at the lowest concurrency (the acquire alone: two writes against one). */
  readonly peerAcquireP50OverGrant: number | null;
  readonly latencyAtConcurrency: number;
  readonly throughputAtConcurrency: number;
  readonly byConcurrency: readonly RatioRow[];
}

export interface Goal {
  readonly goal: string;
  readonly target: string;
  readonly value: number | null;
  /** null when the run could not measure it. */
  readonly met: boolean | null;
  readonly note?: string;
}

export interface BenchReport {
  readonly env: BenchEnvironment & { readonly durationMsPerRun: number; readonly warmupMsPerRun: number; readonly concurrency: readonly number[]; readonly elapsedS: number };
  readonly fsync: FsyncResult;
  readonly loopbackRtt: LatencySummary;
  readonly rawTxn: WorkloadReport;
  readonly grant: WorkloadReport;
  readonly service: WorkloadReport;
  readonly serviceTls: WorkloadReport;
  readonly peerLock: WorkloadReport;
  readonly keepalive: KeepaliveReport;
  readonly ratios: Ratios;
  readonly goals: readonly Goal[];
  /** Issue 30: every path against the raw-txn floor, CPU per process, one serve's capacity, the hop's goals. */
  readonly hop: HopReport;
  readonly compareSim: SimComparison;
  /** With --capacity: sessions and holds one lockstep serve kept alive (capacity.ts). */
  readonly capacity?: CapacityReport;
}

export const WORKLOAD_INFO: Record<WorkloadName, { readonly what: string; readonly primaryPhase: string; readonly cyclePhase: string }> = {
  rawTxn: { what: 'etcd3 gRPC stub, no lockstep: create txn (compare create=0, put on a lease) + delete txn', primaryPhase: 'create', cyclePhase: 'cycle' },
  grant: { what: 'lockstep Arbiter in-process over the etcd LockLog: acquire (token) + release, session reused', primaryPhase: 'acquire', cyclePhase: 'cycle' },
  service: { what: 'lockstep through a lockstep serve process, plaintext: acquire (token) + release over lock.v1 gRPC by the network client, session reused', primaryPhase: 'acquire', cyclePhase: 'cycle' },
  serviceTls: { what: 'lockstep through a lockstep serve process, mTLS (the caller its certificate\'s SPIFFE ID): acquire + release over lock.v1 gRPC, session reused', primaryPhase: 'acquire', cyclePhase: 'cycle' },
  peerLock: { what: "etcd3 package's Lock: acquire (lease grant + create txn) + release (lease revoke)", primaryPhase: 'acquire', cyclePhase: 'cycle' },
  keepalive: { what: 'lockstep Arbiter.keepAlive of sessions round-robin (one LeaseKeepAlive each, leader-served)', primaryPhase: 'keepalive', cyclePhase: 'keepalive' },
};

const ZERO: LatencySummary = { count: 0, p50Ms: 0, p99Ms: 0, p999Ms: 0, maxMs: 0, meanMs: 0 };

export function phaseOf(run: ClosedLoopResult, phase: string): LatencySummary {
  return run.phases[phase] ?? ZERO;
}

export function workloadReport(name: WorkloadName, results: readonly MeasuredRun[]): WorkloadReport {
  const info = WORKLOAD_INFO[name];
  const runs = [...results].sort((a, b) => a.concurrency - b.concurrency).map((run) => ({ ...run, latency: phaseOf(run, info.primaryPhase) }));
  const lowest = runs[0];
  const highest = runs[runs.length - 1];
  return {
    what: info.what,
    primaryPhase: info.primaryPhase,
    p50Ms: lowest?.latency.p50Ms ?? 0,
    p99Ms: lowest?.latency.p99Ms ?? 0,
    p999Ms: lowest?.latency.p999Ms ?? 0,
    throughputPerS: highest?.throughputPerS ?? 0,
    runs,
  };
}

/** a / b rounded to 3 decimals; null when either side was not measured. */
export function ratio(a: number | undefined, b: number | undefined): number | null {
  if (a === undefined || b === undefined || !(a > 0) || !(b > 0)) return null;
  return Math.round((a / b) * 1000) / 1000;
}

export function computeRatios(raw: WorkloadReport, grant: WorkloadReport, peer: WorkloadReport, service?: WorkloadReport): Ratios {
  const at = (report: WorkloadReport, concurrency: number) => report.runs.find((r) => r.concurrency === concurrency);
  const concurrencies = raw.runs.map((r) => r.concurrency);
  const byConcurrency = concurrencies.map((concurrency) => {
    const r = at(raw, concurrency);
    const g = at(grant, concurrency);
    const p = at(peer, concurrency);
    const s = service === undefined ? undefined : at(service, concurrency);
    return {
      concurrency,
      grantP50OverRaw: ratio(g?.latency.p50Ms, r?.latency.p50Ms),
      grantP99OverRaw: ratio(g?.latency.p99Ms, r?.latency.p99Ms),
      grantThroughputOverRaw: ratio(g?.throughputPerS, r?.throughputPerS),
      peerP50OverGrant: ratio(p === undefined ? undefined : phaseOf(p, 'cycle').p50Ms, g === undefined ? undefined : phaseOf(g, 'cycle').p50Ms),
      peerAcquireP50OverGrant: ratio(p?.latency.p50Ms, g?.latency.p50Ms),
      serviceP50OverGrant: ratio(s?.latency.p50Ms, g?.latency.p50Ms),
      serviceP99OverGrant: ratio(s?.latency.p99Ms, g?.latency.p99Ms),
      serviceThroughputOverGrant: ratio(s?.throughputPerS, g?.throughputPerS),
      serviceHopP50Ms: s === undefined || g === undefined || s.latency.count === 0 || g.latency.count === 0 ? null : Math.round((s.latency.p50Ms - g.latency.p50Ms) * 1000) / 1000,
    };
  });
  const lowest = byConcurrency[0];
  const highest = byConcurrency[byConcurrency.length - 1];
  return {
    grantP50OverRaw: lowest?.grantP50OverRaw ?? null,
    grantThroughputOverRaw: highest?.grantThroughputOverRaw ?? null,
    peerP50OverGrant: lowest?.peerP50OverGrant ?? null,
    peerAcquireP50OverGrant: lowest?.peerAcquireP50OverGrant ?? null,
    latencyAtConcurrency: lowest?.concurrency ?? 0,
    throughputAtConcurrency: highest?.concurrency ?? 0,
    byConcurrency,
  };
}

/** The goals, judged on this run. Reported, never asserted: one run on a shared machine is one sample. */
export function judgeGoals(ratios: Ratios, compareSim: SimComparison, env: Pick<BenchEnvironment, 'members' | 'local'>): Goal[] {
  const goal = (text: string, target: string, value: number | null, ok: (v: number) => boolean, note?: string): Goal => ({
    goal: text,
    target,
    value,
    met: value === null ? null : ok(value),
    ...(note === undefined ? {} : { note }),
  });
  const throughputNote = ratios.throughputAtConcurrency === 64 ? undefined : `measured at concurrency ${ratios.throughputAtConcurrency}, the highest of this run (the goal names 64)`;
  return [
    goal(`lockstep grant p50 / raw txn p50 (c=${ratios.latencyAtConcurrency})`, '<= 1.15', ratios.grantP50OverRaw, (v) => v <= 1.15),
    goal(`lockstep grant throughput / raw txn throughput (c=${ratios.throughputAtConcurrency})`, '>= 0.85', ratios.grantThroughputOverRaw, (v) => v >= 0.85, throughputNote),
    goal(
      `etcd3 Lock acquire+release p50 / lockstep acquire+release p50 (c=${ratios.latencyAtConcurrency})`,
      '>= 2',
      ratios.peerP50OverGrant,
      (v) => v >= 2,
      ratios.peerAcquireP50OverGrant === null ? undefined : `acquire alone: ${formatRatio(ratios.peerAcquireP50OverGrant)}; a cycle is 3 writes (lease grant, create, revoke) against 2 (grant, release)`,
    ),
    goal(
      `lockstep serve hop: service acquire p50 - in-process acquire p50, ms (c=${ratios.latencyAtConcurrency}, ADR-18)`,
      '<= 3',
      ratios.byConcurrency[0]?.serviceHopP50Ms ?? null,
      (v) => v <= 3,
    ),
    simulatorGoal(compareSim, env),
  ];
}

function simulatorGoal(compareSim: SimComparison, env: Pick<BenchEnvironment, 'members' | 'local'>): Goal {
  const text = 'simulator: largest deviation (predicted / measured - 1, either sign) of grant acquire p50 and p99 over every concurrency';
  if (compareSim.status !== 'compared' || compareSim.worstLatencyDeviation === undefined) {
    return { goal: text, target: '<= 0.25', value: null, met: null, note: compareSim.note ?? 'not measured: run with --compare-sim' };
  }
  const where = env.local && env.members === 3 ? undefined : `the goal is stated for a local 3-member cluster; this was ${env.local ? 'local' : 'remote'} with ${env.members} member(s)`;
  const value = compareSim.worstLatencyDeviation;
  return { goal: text, target: '<= 0.25', value, met: value <= 0.25, ...(where === undefined ? {} : { note: where }) };
}
