// The run the single-cluster fault scenarios (stuck-leader, partition, quorum-loss, clock-drift) share:
// a fault schedule (the scenario's own unless a replay or the explorer gives one), a first holder on a
// ledger row who is granted it at once, a second who comes for it once the fault has struck and waits in
// line, trying again while the service cannot be reached, and the outcome the runner checks. Each
// scenario states only what is its own: topology, faults, timing and metrics.
import type { BeliefInterval, GrantRecord } from '../core/checkers/index.js';
import type { SimResource } from '../sim/world/resource.js';
import type { ClientNode, World } from '../sim/world/world.js';
import { LEDGER_CLASS, type ProbedClient, RETRY_WHEN_UNREACHABLE, type RetriedHolderResult, present, runHolderWithRetries } from './cluster-fault-kit.js';
import { type Fault, scheduleFaults } from './faults.js';
import type { DeadlineProbe } from './deadline-probe.js';
import { collectHistory } from './history.js';
import { type HolderPlan, type HolderResult, runHolder } from './holder.js';
import type { ScenarioContext, ScenarioOutcome } from './scenario.js';

/** The ledger row the two holders contend for. */
export const LEDGER_KEY = 'payments/ledger-7';

/**
 * The ledger the holders write to, unfenced: the fence checker then asks the strongest question, whether
 * the two holders' writes ever interleaved. Only the lock (and the holders' own deadlines) keeps them apart.
 */
export function unfencedLedger(world: World): SimResource {
  return world.addResource('ledger-db', { fenced: false, writeMs: 20 });
}

/** A holder's work on the ledger row under a class of `ttlSeconds`: units of prepare, write with the token, pause (runHolder). */
export type LedgerWork = Omit<HolderPlan, 'waitMs' | 'units'>;

export function ledgerWork(resource: SimResource, ttlSeconds: number): LedgerWork {
  return { key: LEDGER_KEY, className: LEDGER_CLASS, ttlSeconds, resource, prepareMs: 300, gapMs: 200 };
}

export interface StartedFaults {
  readonly faults: readonly Fault[];
  readonly appliedFaults: readonly string[];
  /** The true time the schedule counts from: the start of the workload. */
  readonly startMs: number;
}

/** Schedules the run's faults from now: the context's schedule when it has one (replay, shrinking, exploration), else the scenario's own. */
export function startFaults(world: World, context: ScenarioContext, own: readonly Fault[]): StartedFaults {
  const faults = context.faults ?? own;
  const appliedFaults = scheduleFaults(world, faults);
  return { faults, appliedFaults, startMs: world.kernel.now() };
}

export interface TwoHolderPlan {
  readonly world: World;
  readonly work: LedgerWork;
  /** Every holder's canStart() moments, for the belief checker. */
  readonly beliefs: BeliefInterval[];
  /** Granted the key first: it does not wait, and works until canStart() says no or its units run out; `afterMs` later than now if given. */
  readonly first: { readonly node: ClientNode; readonly units: number; readonly afterMs?: number };
  /** Given the first holder's run, to chain what it does once it has stopped (partition: it queues again after the heal). */
  readonly afterFirst?: (stopped: Promise<unknown>) => void;
  /** Comes for the key `atMs` after now and waits in line up to `waitMs`, trying again while the service cannot be reached. */
  readonly second: { readonly node: ClientNode; readonly atMs: number; readonly waitMs: number; readonly units: number };
  /** Work of the scenario's own, started after both holders (other traffic, a prober). */
  readonly alongside?: () => void;
  /** The true time at which the run ends. */
  readonly untilMs: number;
}

export interface TwoHolderRun {
  readonly first: HolderResult | undefined;
  readonly second: RetriedHolderResult | undefined;
}

/** Starts both holders (then the scenario's other work), runs the world until `untilMs`, and returns what each holder did. */
export async function runTwoHolders(plan: TwoHolderPlan): Promise<TwoHolderRun> {
  const { world, work, beliefs, first, second } = plan;
  let firstResult: HolderResult | undefined;
  let secondResult: RetriedHolderResult | undefined;
  const holdFirst = (): Promise<HolderResult> => runHolder(first.node, { ...work, waitMs: 0, units: first.units }, beliefs);
  const stopped = (first.afterMs === undefined ? holdFirst() : world.kernel.sleep(first.afterMs).then(holdFirst)).then((r) => (firstResult = r));
  plan.afterFirst?.(stopped);
  void world.kernel
    .sleep(second.atMs)
    .then(() => runHolderWithRetries(second.node, { ...work, waitMs: second.waitMs, units: second.units }, beliefs, RETRY_WHEN_UNREACHABLE))
    .then((r) => (secondResult = r));
  plan.alongside?.();
  await world.runUntil(plan.untilMs);
  return { first: firstResult, second: secondResult };
}

/** What the log did with the ledger row. */
export interface LedgerHolds {
  /** The first holder's first hold. */
  readonly firstHold: GrantRecord | undefined;
  /** When the log ended that hold by expiry; undefined if it ended otherwise, or not at all. */
  readonly expiredMs: number | undefined;
  readonly secondGrantMs: number | undefined;
  /** The first holder's last canStart() moment under that hold. */
  readonly firstLastStartMs: number | undefined;
}

export function ledgerHolds(world: World, beliefs: readonly BeliefInterval[], first: ProbedClient, second: ProbedClient): LedgerHolds {
  const holds = world.log.grants.filter((g) => g.key === LEDGER_KEY);
  const firstHold = holds.find((g) => g.holder === first.node.identity);
  return {
    firstHold,
    expiredMs: firstHold?.endReason === 'expiry' ? firstHold.endedAtMs : undefined,
    secondGrantMs: holds.find((g) => g.holder === second.node.identity)?.grantedAtMs,
    firstLastStartMs: beliefs.filter((b) => b.holder === first.node.identity && b.token === firstHold?.token).at(-1)?.fromMs,
  };
}

/** What a run leaves for its outcome: the world, its schedule, the holders' beliefs and the deadline probe. */
export interface FaultRun {
  readonly world: World;
  readonly schedule: StartedFaults;
  readonly beliefs: readonly BeliefInterval[];
  readonly probe: DeadlineProbe;
}

/** The run's outcome: its schedule, the history for the checkers, its parameters, and its metrics (rounded; those whose event never happened left out). */
export function faultOutcome(run: FaultRun, parameters: Readonly<Record<string, unknown>>, metrics: Readonly<Record<string, number | undefined>>): ScenarioOutcome {
  const { world, schedule } = run;
  return { world, faults: schedule.faults, appliedFaults: schedule.appliedFaults, history: collectHistory(world, run.beliefs, run.probe), parameters, metrics: present(metrics) };
}
