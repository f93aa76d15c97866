// The TTL sizing view's data (ADR-10/11/12): the page's form adapted to sim/planner/ttl-pricing.ts's
// sweep, the procedure `lockstep ttl --sweep` runs too, so the page and the CLI give the same figures for
// the same question (ttl-curve.test.ts asks both). This file adds only the page's limits and progress.
import { FALSE_FENCE_MINUTES, FALSE_FENCE_SESSIONS, keepaliveLoadPerSecond, priceTtlSweep, type TtlPrice, type TtlSweepRequest, ttlSweepProblems } from '../../../sim/planner/ttl-pricing.js';
import { GC_PAUSES } from '../../../sim/planner/ttl-runs.js';
import { type OnProgress, safeProgress } from './progress.js';

export interface TtlCurveRequest {
  /** Sessions of the class at peak (ADR-10: one per identity and TTL). */
  readonly sessions: number;
  readonly ttlFromSeconds: number;
  readonly ttlToSeconds: number;
  /** Simulated runs (seeds) per TTL. */
  readonly runs: number;
  readonly pauses: 'gc' | 'none';
  /** Simulated minutes of live holders per run, for the false-fence rate. Default: the procedure's. */
  readonly minutesPerRun?: number;
  /** Default `ttl`, as the CLI's --seed. */
  readonly seed?: string;
}

/** One TTL as the procedure priced it, and the keepalive load of the request's sessions. */
export type TtlPoint = TtlPrice & { readonly keepalivesPerSecond: number };

export interface TtlCurve {
  readonly request: TtlCurveRequest;
  readonly points: readonly TtlPoint[];
}

/** A page-sized bound: each run is three simulations per TTL (the CLI goes to the procedure's 50). */
const MAX_PAGE_RUNS = 10;
const MAX_SESSIONS = 1_000_000;
/** The form's field names, for the procedure's problems. */
const FORM_FIELD: Readonly<Record<string, string>> = { fromSeconds: 'TTL from', toSeconds: 'TTL to', falseFenceMinutes: 'minutes per run' };

/** The procedure's request for the page's; the seed as the CLI's default. */
export function sweepRequest(r: TtlCurveRequest): TtlSweepRequest {
  return { fromSeconds: r.ttlFromSeconds, toSeconds: r.ttlToSeconds, runs: r.runs, seed: r.seed ?? 'ttl', ...(r.pauses === 'gc' ? { pauses: GC_PAUSES } : {}), ...(r.minutesPerRun === undefined ? {} : { falseFenceMinutes: r.minutesPerRun }) };
}

export function checkTtlRequest(r: TtlCurveRequest): void {
  const problems = ttlSweepProblems(sweepRequest(r)).map((p) => `${FORM_FIELD[p.field] ?? p.field} ${p.message}`);
  if (!(Number.isInteger(r.sessions) && r.sessions >= 1 && r.sessions <= MAX_SESSIONS)) problems.push(`sessions ${r.sessions} must be a whole number from 1 to ${MAX_SESSIONS} (sessions of the class at peak)`);
  if (!(r.runs <= MAX_PAGE_RUNS)) problems.push(`runs ${r.runs} must be a whole number from 1 to ${MAX_PAGE_RUNS}`);
  if (r.pauses !== 'gc' && r.pauses !== 'none') problems.push(`pauses ${JSON.stringify(r.pauses)} must be gc or none`);
  if (problems.length > 0) throw new RangeError(problems.join('; '));
}

export async function ttlCurve(request: TtlCurveRequest, yieldToHost: () => Promise<void>, onProgress?: OnProgress): Promise<TtlCurve> {
  checkTtlRequest(request);
  const progress = safeProgress(onProgress);
  const minutes = request.minutesPerRun ?? FALSE_FENCE_MINUTES;
  let total = 0;
  const priced = await priceTtlSweep(sweepRequest(request), yieldToHost, (ttlSeconds, done, count) => {
    total = count;
    progress({ label: `TTL ${ttlSeconds} s: ${request.runs} run(s) of ${FALSE_FENCE_SESSIONS} holders for ${minutes} simulated min, and two holder crashes`, done, total: count });
  });
  progress({ label: 'TTL sweep done', done: total, total });
  return { request, points: priced.map((p) => ({ ...p, keepalivesPerSecond: keepaliveLoadPerSecond(request.sessions, p.ttlSeconds) })) };
}
