// The TTL sizing view's data (ADR-10/11/12): for each TTL of a sweep, the false-fence rate per
// session-hour (simulated, with its 95% upper bound, and analytic from the pause profile), the liveness
// bound after a holder crash (analytic, with and without an etcd leader change, beside the simulated
// reacquire time), and the keepalive load of N sessions. The same planner functions and seeds as
// `lockstep ttl --sweep` (src/commands/ttl.ts), so the page and the CLI agree.
import { DEFAULT_ETCD_TIMERS, falseFencesPerSessionHourFromPauses, keepalivesPerSecond, livenessBound, poissonUpper95 } from '../../../core/planner/liveness.js';
import { roundTo } from '../../../core/numbers.js';
import { percentile } from '../../../core/planner/percentiles.js';
import { compileDistribution } from '../../../sim/kernel/distribution.js';
import { falseFences, GC_PAUSES, reacquireAfterCrash } from '../../../sim/planner/ttl-runs.js';
import { type OnProgress, safeProgress } from './progress.js';

export interface TtlCurveRequest {
  /** Sessions of the class at peak (ADR-10: one per identity and TTL). */
  readonly sessions: number;
  readonly ttlFromSeconds: number;
  readonly ttlToSeconds: number;
  /** Simulated runs (seeds) per TTL. */
  readonly runs: number;
  readonly pauses: 'gc' | 'none';
  /** Simulated minutes of live holders per run, for the false-fence rate. Default 10, as the CLI. */
  readonly minutesPerRun?: number;
  readonly seed?: string;
}

export interface TtlPoint {
  readonly ttlSeconds: number;
  readonly falseFencePerSessionHour: number;
  readonly falseFenceUpper95PerSessionHour: number;
  readonly falseFenceAnalyticPerSessionHour: number;
  readonly simulatedSessionHours: number;
  readonly livenessBoundMs: number;
  readonly livenessBoundNoLeaderChangeMs: number;
  /** Crash to the waiter's grant, the etcd leader crashing with the holder; null if never within the run. */
  readonly reacquireLeaderChangeMsP50: number | null;
  readonly keepalivesPerSecond: number;
}

export interface TtlCurve {
  readonly request: TtlCurveRequest;
  readonly points: readonly TtlPoint[];
}

const TTL_MIN_SECONDS = 5; // ADR-11's range
const TTL_MAX_SECONDS = 300;
const MAX_RUNS = 10; // a page-sized bound; the CLI goes to 50
const FALSE_FENCE_SESSIONS = 8; // as the CLI: 8 live holders per run
const STANDARD_TTLS = [5, 10, 15, 20, 30, 45, 60, 90, 120, 180, 300];

/** The TTLs a sweep from..to visits: both ends and the standard TTLs between (as `lockstep ttl --sweep`). */
export function sweepTtls(fromSeconds: number, toSeconds: number): number[] {
  return [...new Set([fromSeconds, ...STANDARD_TTLS.filter((t) => t > fromSeconds && t < toSeconds), toSeconds])];
}

export function checkTtlRequest(r: TtlCurveRequest): void {
  const whole = (v: number, min: number, max: number): boolean => Number.isInteger(v) && v >= min && v <= max;
  if (!whole(r.sessions, 1, 1_000_000)) throw new RangeError(`sessions ${r.sessions} must be a whole number from 1 to 1000000 (sessions of the class at peak)`);
  if (!whole(r.ttlFromSeconds, TTL_MIN_SECONDS, TTL_MAX_SECONDS)) throw new RangeError(`TTL from ${r.ttlFromSeconds} s must be a whole number of seconds from ${TTL_MIN_SECONDS} to ${TTL_MAX_SECONDS} (ADR-11)`);
  if (!whole(r.ttlToSeconds, r.ttlFromSeconds, TTL_MAX_SECONDS)) throw new RangeError(`TTL to ${r.ttlToSeconds} s must be a whole number of seconds from TTL from (${r.ttlFromSeconds}) to ${TTL_MAX_SECONDS}`);
  if (!whole(r.runs, 1, MAX_RUNS)) throw new RangeError(`runs ${r.runs} must be a whole number from 1 to ${MAX_RUNS}`);
  if (r.pauses !== 'gc' && r.pauses !== 'none') throw new RangeError(`pauses ${JSON.stringify(r.pauses)} must be gc or none`);
  if (r.minutesPerRun !== undefined && !(r.minutesPerRun > 0 && r.minutesPerRun <= 60)) throw new RangeError(`minutes per run ${r.minutesPerRun} must be above 0 and at most 60`);
}

export async function ttlCurve(request: TtlCurveRequest, yieldToHost: () => Promise<void>, onProgress?: OnProgress): Promise<TtlCurve> {
  checkTtlRequest(request);
  const progress = safeProgress(onProgress);
  const seed = request.seed ?? 'ttl';
  const pauses = request.pauses === 'gc' ? GC_PAUSES : undefined;
  const durationMs = (request.minutesPerRun ?? 10) * 60_000;
  const ttls = sweepTtls(request.ttlFromSeconds, request.ttlToSeconds);
  const points: TtlPoint[] = [];
  for (const [i, ttlSeconds] of ttls.entries()) {
    progress({ label: `TTL ${ttlSeconds} s: ${request.runs} run(s) of ${FALSE_FENCE_SESSIONS} holders for ${durationMs / 60_000} simulated min, and a holder crash`, done: i, total: ttls.length });
    let fences = 0;
    let sessionHours = 0;
    const reacquire: number[] = [];
    for (let r = 0; r < request.runs; r += 1) {
      const ff = await falseFences({ ttlSeconds, yieldToHost, seed: `${seed}-${ttlSeconds}-fence-${r}`, clients: FALSE_FENCE_SESSIONS, durationMs, ...(pauses === undefined ? {} : { pauses }) });
      fences += ff.fences;
      sessionHours += ff.sessionHours;
      reacquire.push((await reacquireAfterCrash({ ttlSeconds, yieldToHost, seed: `${seed}-${ttlSeconds}-leader-${r}`, leaderChange: true })) ?? Number.POSITIVE_INFINITY);
    }
    const bound = livenessBound(ttlSeconds, DEFAULT_ETCD_TIMERS);
    const reacquireP50 = percentile(reacquire, 0.5);
    points.push({
      ttlSeconds,
      falseFencePerSessionHour: roundTo(fences / sessionHours, 4),
      falseFenceUpper95PerSessionHour: roundTo(poissonUpper95(fences, sessionHours), 4),
      falseFenceAnalyticPerSessionHour: pauses === undefined ? 0 : roundTo(falseFencesPerSessionHourFromPauses(ttlSeconds, pauses.pausesPerHour, compileDistribution(pauses.durationMs)), 6),
      simulatedSessionHours: roundTo(sessionHours, 3),
      livenessBoundMs: bound.withLeaderChangeMs,
      livenessBoundNoLeaderChangeMs: bound.withoutLeaderChangeMs,
      reacquireLeaderChangeMsP50: Number.isFinite(reacquireP50) ? roundTo(reacquireP50, 0) : null,
      keepalivesPerSecond: roundTo(keepalivesPerSecond(request.sessions, ttlSeconds), 2),
    });
  }
  progress({ label: 'TTL sweep done', done: ttls.length, total: ttls.length });
  return { request, points };
}
