// The explorer's pure parts (`lockstep explore`; the worker threads and the command are in src/): which
// seeds a run of the explorer covers (with `--shard i/n`, a slice of them), one exploration run from a
// seed, and fast-check's shrinking of a failing run's fault schedule to a minimal one that still fails
// the same check. A run that throws is a failure too (check `crash`): the simulator or the core broke a
// rule of its own, which is exactly what exploration is for; so is one that never ends (check `hang`).
// Runs go without hashing their trace (runner.ts `hashTrace: false`; issue 16: a third of a run's CPU),
// since a passing run's hash is never read; a failing run whose artifact is kept is run again with
// hashing, and must fail the same way again (hashedRerun), so every saved artifact has its true hash.
import fc from 'fast-check';
import { type Episode, fastCheckSeed, faultMix, scheduleArbitrary, toFaults } from './explore-schedule.js';
import type { Fault } from './faults.js';
import { checkFaultSchedule } from './fault-schedule.js';
import { type RunArtifact, runScenario, type UnhashedRun } from './runner.js';
import type { Scenario } from './scenario.js';
import { FAULT_WINDOW_MS, swarm, swarmParametersFor } from './swarm.js';

/** How the explorer drives one scenario: the schedules a seed may draw, and the fault data each becomes. */
export interface ExploreProfile<T> {
  readonly scenario: Scenario;
  /** fast-check's first value for a seed is that seed's schedule; the rest of the space is for shrinking. */
  schedules(seed: string): fc.Arbitrary<T>;
  faults(schedule: T): Fault[];
  /** How big a schedule is, to report shrinking ("8 episodes -> 2"). */
  size(schedule: T): number;
}

/** The swarm's profile for `variant`: its schedules target the clients that variant runs (a mutant may pin their number). */
export function swarmProfileFor(variant: string): ExploreProfile<Episode[]> {
  return {
    scenario: swarm,
    schedules: (seed) => scheduleArbitrary({ clients: swarmParametersFor(variant, seed).clients, windowMs: FAULT_WINDOW_MS }, faultMix(seed)),
    faults: toFaults,
    size: (episodes) => episodes.length,
  };
}

/**
 * Another scenario's own schedule, perturbed: any subset of its fault episodes (a pause with its resume,
 * a crash with its restart, a cut with its heal: a scenario that waits for its workers must see every
 * frozen process come back), each moved by up to `jitterMs` and lengthened or shortened by up to as much.
 */
export function perturbationProfile(scenario: Scenario, declared: readonly Fault[], jitterMs = 2_000): ExploreProfile<Fault[][]> {
  const units = episodesOf(declared).map((unit) =>
    fc.tuple(fc.integer({ min: -jitterMs, max: jitterMs }), fc.integer({ min: -jitterMs, max: jitterMs })).map(([shiftMs, stretchMs]) => perturb(unit, shiftMs, stretchMs)),
  );
  return {
    scenario,
    schedules: () => (units.length === 0 ? fc.constant([]) : fc.noBias(fc.tuple(...units).chain((perturbed) => fc.subarray(perturbed, { minLength: 0 })))),
    faults: (schedule) => schedule.flat().sort((a, b) => a.atMs - b.atMs),
    size: (schedule) => schedule.length,
  };
}

/** Groups a schedule into episodes: each fault with the one that ends it (same target or id), if any. */
function episodesOf(faults: readonly Fault[]): Fault[][] {
  const sorted = [...faults].sort((a, b) => a.atMs - b.atMs);
  const used = new Set<number>();
  const endOf = (fault: Fault): ((other: Fault) => boolean) | undefined => {
    if (fault.kind === 'pause' && fault.forMs === undefined) return (o) => o.kind === 'resume' && o.target === fault.target;
    if (fault.kind === 'crash') return (o) => o.kind === 'restart' && o.target === fault.target;
    if (fault.kind === 'partition' || fault.kind === 'slow-link') return (o) => o.kind === 'heal' && o.id === fault.id;
    return undefined;
  };
  const episodes: Fault[][] = [];
  sorted.forEach((fault, i) => {
    if (used.has(i)) return;
    used.add(i);
    const ends = endOf(fault);
    const j = ends === undefined ? -1 : sorted.findIndex((other, k) => k > i && !used.has(k) && ends(other));
    if (j >= 0) used.add(j);
    episodes.push(j >= 0 ? [fault, sorted[j] as Fault] : [fault]);
  });
  return episodes;
}

/** Moves an episode by `shiftMs` and its end by `stretchMs` more, keeping the end after the start. */
function perturb(episode: readonly Fault[], shiftMs: number, stretchMs: number): Fault[] {
  const [start, end] = episode;
  if (start === undefined) return [];
  const startMs = Math.max(0, start.atMs + shiftMs);
  if (end === undefined) return [{ ...start, atMs: startMs }];
  return [{ ...start, atMs: startMs }, { ...end, atMs: Math.max(startMs + 1, end.atMs + shiftMs + stretchMs) }];
}

export interface Shard {
  /** 0-based, below `count` (a Kubernetes Indexed Job's completion index). */
  readonly index: number;
  readonly count: number;
}

/** `i/n` as a shard; an error naming the rule otherwise. */
export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || !(count >= 1) || !(index < count)) throw new RangeError(`--shard ${JSON.stringify(text)}: write i/n with 0 <= i < n (e.g. 0/4 .. 3/4, one per machine)`);
  return { index, count };
}

/** The run numbers (0-based, of `runs`) this shard covers: every n-th, from i. */
export function shardRuns(runs: number, shard: Shard): number[] {
  const indices: number[] = [];
  for (let run = shard.index; run < runs; run += shard.count) indices.push(run);
  return indices;
}

/** Run `run` of an exploration from `baseSeed`: seeds are consecutive, so any run can be named by its seed alone. */
export function seedOfRun(baseSeed: number, run: number): string {
  return String(baseSeed + run);
}

export interface RunVerdict {
  readonly run: number;
  readonly seed: string;
  readonly ok: boolean;
  /** The first check that failed ('crash' when the run threw). */
  readonly check?: string;
  readonly detail?: string;
  readonly scheduleSize: number;
}

export interface ExploreRunResult {
  readonly verdict: RunVerdict;
  /** Present for a failed run that completed. */
  readonly artifact?: RunArtifact;
}

/** The schedule a seed draws under a profile (fast-check's first value for that seed). */
export function scheduleOf<T>(profile: ExploreProfile<T>, seed: string): T {
  const [schedule] = fc.sample(profile.schedules(seed), { seed: fastCheckSeed(seed), numRuns: 1 });
  if (schedule === undefined) throw new Error(`explore: no schedule for seed ${seed}`);
  return schedule;
}

/**
 * A watchdog the host supplies (src/, which may use timers): a promise that resolves with a reason once
 * a run has taken too long in host time. A run whose simulation has nothing left to do but whose scenario
 * still waits (a worker frozen for good) would otherwise never end.
 */
export type Watchdog = () => { readonly expired: Promise<string>; cancel(): void };

interface Judged {
  readonly verdict: Omit<RunVerdict, 'run'>;
  /** The run, when it completed (not a crash or a hang); an artifact when it was hashed. */
  readonly outcome?: RunArtifact | UnhashedRun;
}

/** runSchedule's verdict, and the run itself whenever it completed, hashed or not. */
async function judge<T>(profile: ExploreProfile<T>, variant: string, seed: string, schedule: T, yieldToHost: () => Promise<void>, watchdog: Watchdog | undefined, hashTrace: boolean): Promise<Judged> {
  const scheduleSize = profile.size(schedule);
  let outcome: RunArtifact | UnhashedRun;
  try {
    // A drawn schedule the shared validator refuses is the explorer's own bug: a `crash` naming the field.
    const run = runScenario(profile.scenario, variant, seed, { yieldToHost, faults: checkFaultSchedule(profile.faults(schedule)), hashTrace });
    const dog = watchdog?.();
    const ended = dog === undefined ? await run : await Promise.race([run, dog.expired.then((reason) => ({ hung: reason }))]).finally(() => dog.cancel());
    if ('hung' in ended) return { verdict: { seed, ok: false, check: 'hang', detail: ended.hung, scheduleSize } };
    outcome = ended;
  } catch (error) {
    const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { verdict: { seed, ok: false, check: 'crash', detail, scheduleSize } };
  }
  const failed = outcome.checks.find((c) => !c.ok);
  if (failed === undefined) return { verdict: { seed, ok: true, scheduleSize }, outcome };
  return { verdict: { seed, ok: false, check: failed.name, detail: firstViolation(failed.violations) ?? failed.detail, scheduleSize }, outcome };
}

/**
 * Runs one schedule; a run that throws is a failure with check `crash`, one that never ends `hang`. With
 * `hashTrace` (the default) a completed run comes with its artifact; without, with its verdict alone.
 */
export async function runSchedule<T>(profile: ExploreProfile<T>, variant: string, seed: string, schedule: T, yieldToHost: () => Promise<void>, watchdog?: Watchdog, hashTrace = true): Promise<{ verdict: Omit<RunVerdict, 'run'>; artifact?: RunArtifact }> {
  const { verdict, outcome } = await judge(profile, variant, seed, schedule, yieldToHost, watchdog, hashTrace);
  return outcome === undefined || !isHashed(outcome) ? { verdict } : { verdict, artifact: outcome };
}

function isHashed(outcome: RunArtifact | UnhashedRun): outcome is RunArtifact {
  return 'traceHash' in outcome;
}

/**
 * A failing schedule run again with its trace hashed, for its artifact. The run is deterministic, so it
 * must fail as it did unhashed (same check, same detail); if not, that is a bug worth stopping for.
 */
async function hashedRerun<T>(profile: ExploreProfile<T>, variant: string, seed: string, schedule: T, unhashed: Omit<RunVerdict, 'run'>, yieldToHost: () => Promise<void>, watchdog: Watchdog | undefined): Promise<{ verdict: Omit<RunVerdict, 'run'>; artifact: RunArtifact }> {
  const { verdict, artifact } = await runSchedule(profile, variant, seed, schedule, yieldToHost, watchdog, true);
  if (artifact === undefined || verdict.ok || verdict.check !== unhashed.check || verdict.detail !== unhashed.detail) {
    const was = `${unhashed.check ?? 'passed'} (${unhashed.detail ?? ''})`;
    const now = verdict.ok ? 'passed' : `${verdict.check ?? ''} (${verdict.detail ?? ''})`;
    throw new Error(`explore: seed ${seed}'s schedule failed ${was} with its trace unhashed, but ${now} when run again hashed: the run is not deterministic, or hashing changed it`);
  }
  return { verdict, artifact };
}

/** One exploration run: unhashed; a failure that completed is run again hashed for its artifact (hashedRerun). */
export async function exploreRun<T>(profile: ExploreProfile<T>, variant: string, baseSeed: number, run: number, yieldToHost: () => Promise<void>, watchdog?: Watchdog): Promise<ExploreRunResult> {
  const seed = seedOfRun(baseSeed, run);
  const schedule = scheduleOf(profile, seed);
  const first = await judge(profile, variant, seed, schedule, yieldToHost, watchdog, false);
  if (first.verdict.ok || first.outcome === undefined) return { verdict: { ...first.verdict, run } };
  const { verdict, artifact } = await hashedRerun(profile, variant, seed, schedule, first.verdict, yieldToHost, watchdog);
  return { verdict: { ...verdict, run }, artifact };
}

export interface Shrunk<T> {
  readonly original: T;
  readonly shrunk: T;
  /** The shrunk run (absent when the failure is a crash: there is no artifact of a run that threw). */
  readonly artifact?: RunArtifact;
  readonly check: string;
  readonly detail?: string;
  /** Runs spent shrinking (the original's replay included; not the shrunk schedule's hashed rerun). */
  readonly runs: number;
  /** False when the budget ran out before fast-check had tried every smaller schedule it knows. */
  readonly complete: boolean;
}

export const DEFAULT_SHRINK_BUDGET = 150;

/**
 * fast-check shrinks `seed`'s schedule (its first value for the seed) to a smaller one that still fails
 * `check`; a candidate failing some other check counts as passing, so shrinking cannot wander off to a
 * different failure. At most `budget` runs: after that every candidate is treated as passing, which
 * ends the search with the smallest failing schedule found so far. The candidates run unhashed; the
 * shrunk one, if it completed, is run once more hashed for its artifact (hashedRerun).
 */
export async function shrinkFailure<T>(profile: ExploreProfile<T>, variant: string, seed: string, check: string, yieldToHost: () => Promise<void>, budget = DEFAULT_SHRINK_BUDGET, watchdog?: Watchdog): Promise<Shrunk<T>> {
  let runs = 0;
  let last: { schedule: T; verdict: Omit<RunVerdict, 'run'>; completed: boolean } | undefined;
  let original: T | undefined;
  const property = fc.asyncProperty(profile.schedules(seed), async (schedule) => {
    original ??= schedule;
    if (runs >= budget) return true;
    runs += 1;
    const { verdict, outcome } = await judge(profile, variant, seed, schedule, yieldToHost, watchdog, false);
    const stillFails = !verdict.ok && verdict.check === check;
    if (stillFails) last = { schedule, verdict, completed: outcome !== undefined };
    return !stillFails;
  });
  const result = await fc.check(property, { seed: fastCheckSeed(seed), numRuns: 1 });
  if (original === undefined || last === undefined || !result.failed) {
    throw new Error(`explore: seed ${seed} did not fail ${check} again when replayed for shrinking: the run is not deterministic`);
  }
  const kept = last.completed ? await hashedRerun(profile, variant, seed, last.schedule, last.verdict, yieldToHost, watchdog) : { verdict: last.verdict };
  const { detail } = kept.verdict;
  return { original, shrunk: last.schedule, ...('artifact' in kept ? { artifact: kept.artifact } : {}), check, ...(detail === undefined ? {} : { detail }), runs, complete: runs < budget };
}

function firstViolation(violations: readonly unknown[]): string | undefined {
  const first = violations[0];
  if (typeof first === 'string') return first;
  if (typeof first === 'object' && first !== null && typeof (first as { message?: unknown }).message === 'string') return (first as { message: string }).message;
  return undefined;
}
