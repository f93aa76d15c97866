// `lockstep quorum --bench-profile FILE|none` (issue 32, the quorum model's host term): the priced world
// timed by this machine's `lockstep bench --profile` (its WAL fsync, etcd CPU per request and per applied
// entry, the arbiter's CPU per etcd call, the served lock.v1 hop's CPU per call), chosen by the gate's
// rule (src/files/bench-profile.ts) and read by the gate's calibrationOfProfile, and the lines that name
// which timing a price used.
import { formatNumber } from '../../core/numbers.js';
import { summarise } from '../../core/planner/percentiles.js';
import { calibrationOfProfile } from '../../scenarios/gate-prediction.js';
import { type BenchShape, fitHostTiming } from '../../sim/planner/host-fit.js';
import type { HostTiming, MessageCost } from '../../sim/planner/host-timing.js';
import type { HostTimingUsed } from '../../sim/planner/quorum-pricing.js';
import type { ChosenBenchProfile, ProfileCpuRow } from '../files/bench-profile.js';

/**
 * The profile's CPU costs measured at the concurrency nearest `clients`: CPU per operation falls as load
 * rises (etcd and gRPC batch: bench/sim-compare/calibration.ts), so one client is priced by the bench's
 * concurrency-1 costs, eight by its concurrency-8 costs. A row without its concurrency counts as the last.
 */
export function cpuRowFor(rows: readonly ProfileCpuRow[] | undefined, clients: number): ProfileCpuRow | undefined {
  if (rows === undefined || rows.length === 0) return undefined;
  const distance = (row: ProfileCpuRow): number => Math.abs((row.fromConcurrency ?? Number.POSITIVE_INFINITY) - clients);
  return rows.reduce((best, row) => (distance(row) <= distance(best) ? row : best));
}

/** The host timing a profile gives a topology of `clients` clients. */
export function hostTimingOf(chosen: ChosenBenchProfile, clients: number): HostTiming {
  const row = cpuRowFor(chosen.profile.cpuByConcurrency, clients);
  const calibration = calibrationOfProfile({ ...chosen.profile, cpuByConcurrency: row === undefined ? [] : [row] });
  return {
    source: `${calibration.source} (${chosen.file}${chosen.byDefault ? ', the default' : ''})`,
    ...(calibration.walFsync === undefined ? {} : { walFsync: calibration.walFsync }),
    ...(calibration.requestCostMs === undefined ? {} : { requestCostMs: calibration.requestCostMs }),
    ...(calibration.applyCostMs === undefined ? {} : { applyCostMs: calibration.applyCostMs }),
    ...(row?.clientCostMsPerCall === undefined ? {} : { arbiterCostMsPerCall: row.clientCostMsPerCall }),
    ...(row?.hopClientCostMsPerCall === undefined || row.hopServeCostMsPerCall === undefined ? {} : { servedHop: { clientMsPerCall: row.hopClientCostMsPerCall, serveMsPerCall: row.hopServeCostMsPerCall } }),
    ...(row?.fromConcurrency === undefined ? {} : { fromConcurrency: row.fromConcurrency }),
    ...(row?.serviceAcquireP50Ms === undefined || row.serviceAcquireP99Ms === undefined ? {} : { benchAcquire: { p50Ms: row.serviceAcquireP50Ms, p99Ms: row.serviceAcquireP99Ms, ...(row.serviceAcquireSamples === undefined ? {} : { samples: row.serviceAcquireSamples }) } }),
  };
}

/** The members the bench ran (`--local 3` unless the profile says), when a profile does not name them. */
const BENCH_MEMBERS_DEFAULT = 3;

/** The shape the profile's CPU row was measured in: its members and concurrency on this loopback. */
export function benchShapeOf(chosen: ChosenBenchProfile, host: HostTiming, clients: number): BenchShape {
  const rtt = summarise(chosen.profile.loopbackRtt.samplesMs);
  return { members: chosen.profile.env?.members ?? BENCH_MEMBERS_DEFAULT, clients: host.fromConcurrency ?? clients, loopbackRttP50Ms: rtt.p50Ms, loopbackRttP99Ms: rtt.p99Ms };
}

/** hostTimingOf, with its CPU share on the path and its scheduling delay fitted to the bench's own measurement (host-fit.ts). */
export async function fittedHostTimingOf(chosen: ChosenBenchProfile, clients: number, yieldToHost: () => Promise<void>): Promise<HostTiming> {
  const host = hostTimingOf(chosen, clients);
  return fitHostTiming(host, benchShapeOf(chosen, host, clients), yieldToHost);
}

const ms = (value: number): string => formatNumber(value, 3);

/** The host's and the rig's rows of the printed assumptions. */
export function timingLines(timing: HostTimingUsed): string[] {
  const at = timing.fromConcurrency === null ? '' : ` (bench concurrency ${timing.fromConcurrency})`;
  return [
    `host timing: ${timing.source}`,
    `  WAL fsync p50 ${ms(timing.fsyncP50Ms)} / p99 ${ms(timing.fsyncP99Ms)} ms; etcd CPU ${ms(timing.requestCostMs)} ms per request + ${ms(timing.applyCostMs)} ms per applied entry; arbiter CPU ${ms(timing.arbiterCostMsPerCall)} ms per etcd call${at}`,
    `  ${hopLine(timing)}`,
    ...fitLines(timing),
    ...(timing.rigLinkCost === null ? [] : [rigLine(timing.rigLinkCost)]),
  ];
}

/** The lock.v1 hop's CPU as priced, or why it is not (a profile written before the bench measured it, or none). */
function hopLine(timing: HostTimingUsed): string {
  if (timing.servedHop === null) return 'lock.v1 hop CPU: not priced (the profile does not carry it; a `lockstep bench --profile` of this version does)';
  return `lock.v1 hop CPU: client ${ms(timing.servedHop.clientMsPerCall)} ms + lockstep serve ${ms(timing.servedHop.serveMsPerCall)} ms per call (on the arbiter's thread)`;
}

/** The CPU share on the grant's path and the scheduling delay as fitted (host-fit.ts), or why not. */
function fitLines(timing: HostTimingUsed): string[] {
  const fit = timing.fit;
  if (fit === null) return ["  CPU on the grant's path: all of each term above (not fitted: the profile does not carry the bench's measured acquire latency; a `lockstep bench --profile` of this version does)"];
  const measuredOver = fit.measuredSamples === undefined ? "the interleaved bench's slices" : `${formatNumber(fit.measuredSamples, 0)} acquisitions, one client pausing 1-5 ms`;
  return [
    `  the bench's measured acquire latency, the fit's target: p50 ${ms(fit.measuredP50Ms)} / p99 ${ms(fit.measuredP99Ms)} ms (${measuredOver})`,
    `  CPU on the grant's path: ${formatNumber(fit.cpuOnPathShare * 100, 1)}% of each term above, fitted: the bench's own shape (${fit.clients} client(s) through lockstep serve, loopback) priced ${ms(fit.noneP50Ms)} ms p50 with none of it, ${ms(fit.allP50Ms)} with all, ${ms(fit.fittedP50Ms)} at the share (with the delay below); measured ${ms(fit.measuredP50Ms)}`,
    `  host scheduling delay per acquisition: p99 ${ms(fit.schedulingDelayP99Ms)} ms, 0 for half (the bench's measured p99 less p50, ${ms(fit.measuredP99Ms - fit.measuredP50Ms)} ms, less the model's own spread, ${ms(fit.modelSpreadMs)}); with it the bench's shape prices p99 ${ms(fit.fittedP99Ms)}, measured ${ms(fit.measuredP99Ms)}`,
  ];
}

/** The measuring rig's term, as measured (src/planner-measure/hop-probe.ts). */
export function rigLine(cost: MessageCost): string {
  return `rig: +${ms(cost.p50Ms)} ms per message on every link (p99 +${ms(cost.p99Ms)}), a Node proxy hop: pings through one proxy less direct, taken while the client loop ran`;
}
