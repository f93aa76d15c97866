// Every scenario run ends by its horizon (issue 17; STYLE.md: "put a limit on everything"): a fixed span
// of simulated time after its workload starts. A scenario runs its world for its own length, then waits
// for its workload (holders, workers) to finish; a fault schedule can keep that from ever happening (a
// holder paused and never resumed), and a run that awaits a promise nothing will settle ends no other way
// than by the host giving up: node exits 13 with no output, a browser worker spins for ever. So a
// scenario waits for its workload only through `settleWithinHorizon`, which keeps the world running until
// the workload settles and, if it has not by the horizon, ends the run with a `HorizonReached` carrying
// what the run has so far; the runner turns that into a verdict (a failed `horizon` check).
import type { World } from '../sim/world/world.js';
import type { ScenarioContext, ScenarioOutcome } from './scenario.js';

/** Simulated ms after the workload starts by which every run ends: ten times the longest scenario's own run. */
export const DEFAULT_HORIZON_MS = 300_000;

/** What a run that did not finish still has for its artifact: everything but the metrics (which describe a finished run). */
export type PartialOutcome = Omit<ScenarioOutcome, 'metrics'>;

export interface Horizon {
  /** The true time (kernel ms) at which the run ends whatever its workload is doing. */
  readonly untilMs: number;
  /** The horizon itself, ms after the workload's start (for messages). */
  readonly horizonMs: number;
}

/** The run's horizon, counted from `startMs`, the workload's start (the fault schedule's zero). */
export function horizonOf(context: Pick<ScenarioContext, 'horizonMs'>, startMs: number): Horizon {
  const horizonMs = context.horizonMs ?? DEFAULT_HORIZON_MS;
  return { untilMs: startMs + horizonMs, horizonMs };
}

/** A run whose workload had not finished at its horizon. */
export class HorizonReached extends Error {
  constructor(
    readonly horizonMs: number,
    /** What was still running, in the scenario's words ("the two holders"). */
    readonly waitingFor: string,
    readonly partial: PartialOutcome,
  ) {
    super(`${waitingFor} had not finished by the run's horizon, ${horizonMs} ms of simulated time after the workload started`);
    this.name = 'HorizonReached';
  }
}

export interface SettleOptions {
  readonly horizon: Horizon;
  /** What `work` stands for, in a message: "the two holders", or, asked when the horizon is reached, "2 of 4 workers". */
  readonly what: string | (() => string);
  /** What the run has so far, should it end at the horizon (called only then). */
  readonly partial: () => PartialOutcome;
}

/**
 * Runs the world until `work` settles, then returns its value (or throws its error). A run whose work is
 * already settled runs no event here, so a run that finishes on its own has the same trace either way.
 */
export async function settleWithinHorizon<T>(world: World, work: Promise<T>, options: SettleOptions): Promise<T> {
  let settled = false;
  void work.then(
    () => (settled = true),
    () => (settled = true),
  );
  const untilMs = Math.max(world.kernel.now(), options.horizon.untilMs);
  // With a finite end the kernel never stops early for lack of events: it moves time on to the horizon.
  await world.kernel.runUntilCondition(() => settled, { untilMs });
  if (!settled) throw new HorizonReached(options.horizon.horizonMs, typeof options.what === 'string' ? options.what : options.what(), options.partial());
  return work;
}

/** Several workers as one piece of work: settles when every one has (the first error, if any, after all have). */
export function allOf(work: readonly Promise<unknown>[]): Promise<void> {
  return Promise.allSettled(work).then((results) => {
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  });
}
