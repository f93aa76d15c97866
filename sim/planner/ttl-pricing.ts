// TTL pricing (ADR-10/11/12), once, below both front ends: `lockstep ttl` (src/commands/ttl.ts) and the
// page's TTL view (src/web/worker-api/ttl-curve.ts) adapt their inputs to these requests and render the
// answers; neither prices anything itself, so the CLI and the page give the same figures for the same
// question (src/web/worker-api/ttl-curve.test.ts asks both). Plain requests in, typed results and field
// problems out; the TTL range comes from core/classes/model.ts.
import type { FieldProblem } from '../../core/classes/fields.js';
import { TTL_MAX_SECONDS, TTL_MIN_SECONDS } from '../../core/classes/model.js';
import { roundTo } from '../../core/numbers.js';
import { DEFAULT_ETCD_TIMERS, falseFencesPerSessionHourFromPauses, keepalivesPerSecond, livenessBound, poissonUpper95, quorumLossBound } from '../../core/planner/liveness.js';
import { percentile } from '../../core/planner/percentiles.js';
import { compileDistribution, type DistributionSpec } from '../kernel/distribution.js';
import { falseFences, type PauseProfile, reacquireRun } from './ttl-runs.js';

/** Live holders per false-fence run. */
export const FALSE_FENCE_SESSIONS = 8;
/** Simulated minutes of live holders per false-fence run, unless a request says otherwise. */
export const FALSE_FENCE_MINUTES = 10;
/** The TTLs a sweep visits between its ends. */
export const STANDARD_TTLS_SECONDS: readonly number[] = [5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300];
/** Simulated runs (seeds) per TTL at most: each is three simulations. */
export const MAX_TTL_RUNS = 50;
/** Minutes of live holders per false-fence run at most. */
export const MAX_FALSE_FENCE_MINUTES = 60;

/** One TTL to price. The seed names every simulation (`SEED-TTL-crash-R`, `-leader-R`, `-fence-R`). */
export interface TtlPriceRequest {
  readonly ttlSeconds: number;
  readonly runs: number;
  readonly seed: string;
  readonly pauses?: PauseProfile;
  /** One-way client <-> arbiter latency (the CLI's --rtt halved). */
  readonly rpcLatency?: DistributionSpec;
  /** etcd's WAL fsync, as a bench profile measured it. */
  readonly walFsync?: DistributionSpec;
  readonly falseFenceMinutes?: number;
}

/** What one TTL costs and buys; the simulated figures are null for a TTL outside ADR-11's range (the arbiter refuses it). */
export interface TtlPrice {
  readonly ttlSeconds: number;
  readonly livenessBoundMs: number;
  readonly livenessBoundNoLeaderChangeMs: number;
  readonly livenessPerFailedElectionRoundMs: number;
  /** From the quorum's return after a quorum loss, with PreVote: one election round + the restarted lease. */
  readonly livenessAfterQuorumReturnMs: number;
  /** Crash to the waiter's grant; Infinity when never within a run. */
  readonly reacquireMsP50: number | null;
  readonly reacquireMsP99: number | null;
  readonly reacquireLeaderChangeMsP50: number | null;
  readonly reacquireLeaderChangeMsP99: number | null;
  /** Simulated leader-change runs whose election needed more than one round. */
  readonly reacquireLeaderChangeExtraRoundRuns: number | null;
  readonly falseFencePerSessionHour: number | null;
  readonly falseFenceAnalyticPerSessionHour: number;
  readonly falseFenceUpper95PerSessionHour: number | null;
  readonly simulatedSessionHours: number | null;
}

/** A sweep: every TTL of `sweepTtls(from, to)`, each priced with the request's runs and seed `SEED-sweep`. */
export interface TtlSweepRequest extends Omit<TtlPriceRequest, 'ttlSeconds'> {
  readonly fromSeconds: number;
  readonly toSeconds: number;
}

/** The TTLs a sweep from..to visits: both ends and the standard TTLs between. */
export function sweepTtls(fromSeconds: number, toSeconds: number): number[] {
  return [...new Set([fromSeconds, ...STANDARD_TTLS_SECONDS.filter((t) => t > fromSeconds && t < toSeconds), toSeconds])];
}

/** What is wrong with a request, field by field (the front ends name their own flag or form field). */
export function ttlPriceProblems(request: Omit<TtlPriceRequest, 'ttlSeconds' | 'seed'>): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!whole(request.runs, 1, MAX_TTL_RUNS)) problems.push({ field: 'runs', message: `${request.runs} must be a whole number from 1 to ${MAX_TTL_RUNS}`, fix: 'ask for fewer simulated runs per TTL' });
  const minutes = request.falseFenceMinutes;
  if (minutes !== undefined && !(minutes > 0 && minutes <= MAX_FALSE_FENCE_MINUTES)) problems.push({ field: 'falseFenceMinutes', message: `${minutes} must be above 0 and at most ${MAX_FALSE_FENCE_MINUTES}`, fix: `simulate at most ${MAX_FALSE_FENCE_MINUTES} minutes per run` });
  if (request.pauses !== undefined && !(request.pauses.pausesPerHour >= 0)) problems.push({ field: 'pauses.pausesPerHour', message: 'must be a number >= 0', fix: 'give pauses per hour, e.g. 60' });
  return problems;
}

/** As ttlPriceProblems, and both ends of the sweep inside ADR-11's range, in order. */
export function ttlSweepProblems(request: TtlSweepRequest): FieldProblem[] {
  const problems = ttlPriceProblems(request);
  const range = `a whole number of seconds in ADR-11's range ${TTL_MIN_SECONDS}..${TTL_MAX_SECONDS}`;
  if (!whole(request.fromSeconds, TTL_MIN_SECONDS, TTL_MAX_SECONDS)) problems.push({ field: 'fromSeconds', message: `${request.fromSeconds} must be ${range}`, fix: `sweep inside it, e.g. from ${TTL_MIN_SECONDS}` });
  if (!whole(request.toSeconds, Math.max(TTL_MIN_SECONDS, request.fromSeconds), TTL_MAX_SECONDS)) problems.push({ field: 'toSeconds', message: `${request.toSeconds} must be ${range}, at or above the sweep's start (${request.fromSeconds})`, fix: 'end the sweep at or after its start, e.g. 60' });
  return problems;
}

/** Thrown by the procedures for a request with problems: a front end checks first and never sees it. */
export class TtlRequestError extends RangeError {
  constructor(readonly problems: readonly FieldProblem[]) {
    super(problems.map((p) => `${p.field} ${p.message}; ${p.fix}`).join('\n'));
    this.name = 'TtlRequestError';
  }
}

/** The analytic figures alone: what a TTL outside ADR-11's range gets (the simulator's arbiter refuses it). */
export function analyticTtlPrice(ttlSeconds: number, pauses: PauseProfile | undefined): TtlPrice {
  const bound = livenessBound(ttlSeconds, DEFAULT_ETCD_TIMERS);
  return {
    ttlSeconds,
    livenessBoundMs: bound.withLeaderChangeMs,
    livenessBoundNoLeaderChangeMs: bound.withoutLeaderChangeMs,
    livenessPerFailedElectionRoundMs: bound.perFailedElectionRoundMs,
    // ADR-04: the quorum's return to the waiter's grant, PreVote on (without it no worst case exists).
    livenessAfterQuorumReturnMs: quorumLossBound(ttlSeconds, 0, { preVote: true }).totalMs!,
    reacquireMsP50: null,
    reacquireMsP99: null,
    reacquireLeaderChangeMsP50: null,
    reacquireLeaderChangeMsP99: null,
    reacquireLeaderChangeExtraRoundRuns: null,
    falseFencePerSessionHour: null,
    falseFenceAnalyticPerSessionHour: roundTo(pauses === undefined ? 0 : falseFencesPerSessionHourFromPauses(ttlSeconds, pauses.pausesPerHour, compileDistribution(pauses.durationMs)), 6),
    falseFenceUpper95PerSessionHour: null,
    simulatedSessionHours: null,
  };
}

/** One TTL: the analytic bounds, and per run a holder crash, a holder crash with the etcd leader, and live holders under the pause profile. */
export async function priceTtl(request: TtlPriceRequest, yieldToHost: () => Promise<void>): Promise<TtlPrice> {
  const problems = ttlPriceProblems(request);
  if (problems.length > 0) throw new TtlRequestError(problems);
  const { ttlSeconds, seed, pauses } = request;
  if (ttlSeconds < TTL_MIN_SECONDS || ttlSeconds > TTL_MAX_SECONDS) return analyticTtlPrice(ttlSeconds, pauses);
  const world = { ttlSeconds, yieldToHost, ...(request.rpcLatency === undefined ? {} : { rpcLatency: request.rpcLatency }), ...(request.walFsync === undefined ? {} : { walFsync: request.walFsync }) };
  const durationMs = (request.falseFenceMinutes ?? FALSE_FENCE_MINUTES) * 60_000;
  const plain: number[] = [];
  const changed: number[] = [];
  let extraRoundRuns = 0;
  let fences = 0;
  let sessionHours = 0;
  for (let r = 0; r < request.runs; r += 1) {
    plain.push((await reacquireRun({ ...world, seed: `${seed}-${ttlSeconds}-crash-${r}`, leaderChange: false })).reacquireMs ?? Number.POSITIVE_INFINITY);
    const withLeaderChange = await reacquireRun({ ...world, seed: `${seed}-${ttlSeconds}-leader-${r}`, leaderChange: true });
    changed.push(withLeaderChange.reacquireMs ?? Number.POSITIVE_INFINITY);
    if (withLeaderChange.electionRounds > 1) extraRoundRuns += 1;
    const ff = await falseFences({ ...world, seed: `${seed}-${ttlSeconds}-fence-${r}`, clients: FALSE_FENCE_SESSIONS, durationMs, ...(pauses === undefined ? {} : { pauses }) });
    fences += ff.fences;
    sessionHours += ff.sessionHours;
  }
  return {
    ...analyticTtlPrice(ttlSeconds, pauses),
    reacquireMsP50: roundTo(percentile(plain, 0.5), 0),
    reacquireMsP99: roundTo(percentile(plain, 0.99), 0),
    reacquireLeaderChangeMsP50: roundTo(percentile(changed, 0.5), 0),
    reacquireLeaderChangeMsP99: roundTo(percentile(changed, 0.99), 0),
    reacquireLeaderChangeExtraRoundRuns: extraRoundRuns,
    falseFencePerSessionHour: roundTo(fences / sessionHours, 4),
    falseFenceUpper95PerSessionHour: roundTo(poissonUpper95(fences, sessionHours), 4),
    simulatedSessionHours: roundTo(sessionHours, 2),
  };
}

/** Every TTL of the sweep, in order; `onTtl` hears each before it is priced (the page's progress). */
export async function priceTtlSweep(request: TtlSweepRequest, yieldToHost: () => Promise<void>, onTtl?: (ttlSeconds: number, index: number, total: number) => void): Promise<TtlPrice[]> {
  const problems = ttlSweepProblems(request);
  if (problems.length > 0) throw new TtlRequestError(problems);
  const ttls = sweepTtls(request.fromSeconds, request.toSeconds);
  const priced: TtlPrice[] = [];
  for (const [i, ttlSeconds] of ttls.entries()) {
    onTtl?.(ttlSeconds, i, ttls.length);
    priced.push(await priceTtl({ ...request, ttlSeconds, seed: `${request.seed}-sweep` }, yieldToHost));
  }
  return priced;
}

/** Keepalives per second at the etcd leader for N sessions of one TTL (ADR-10), as every front end shows it. */
export function keepaliveLoadPerSecond(sessions: number, ttlSeconds: number): number {
  return roundTo(keepalivesPerSecond(sessions, ttlSeconds), 1);
}

function whole(value: number, min: number, max: number): boolean {
  return Number.isInteger(value) && value >= min && value <= max;
}
