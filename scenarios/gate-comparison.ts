// `lockstep gate --compare-sim` in one call (issue 15): the simulator's prediction of the gate's run under
// the same schedule (gate-prediction.ts), measured by the same rule as the real history
// (core/checkers/fault-effects.ts), and the two set side by side as distributions: each figure's median
// with its order-statistic interval on each side, a verdict per row (core/checkers/distribution-comparison.ts,
// issue 32). The gate passes what it recorded; nothing here knows about real processes.
import { type DistributionRow, compareDistributions } from '../core/checkers/distribution-comparison.js';
import { type AppliedFault, type FaultEffects, measureFaultEffects, summariseEffects } from '../core/checkers/fault-effects.js';
import type { HistoryEvent } from '../core/checkers/history.js';
import type { FenceRecord } from '../core/checkers/run-history.js';
import type { Fault } from './faults.js';
import { type GateCalibration, type GatePrediction, type GateShape, predictGate } from './gate-prediction.js';
import type { StartUpsMs } from './start-up-target.js';

/** What the gate recorded of the real run. */
export interface MeasuredRun {
  readonly events: readonly HistoryEvent[];
  readonly fences: readonly Pick<FenceRecord, 'holder' | 'key' | 'token' | 'atMs'>[];
  /** The faults that acted, targets resolved when they fired (runTargetFaults gives them). */
  readonly applied: readonly AppliedFault[];
  /** The history clock's time of the schedule's 0. */
  readonly originMs: number;
}

export interface SimComparison {
  readonly rows: DistributionRow[];
  readonly measured: FaultEffects;
  /** Every simulated seed's faults pooled, then summarised. */
  readonly predicted: FaultEffects;
  /** The prediction of the first seed (the gate's own); the others are `${seed}/2`.. */
  readonly prediction: GatePrediction;
  readonly seeds: readonly string[];
  /** Where the simulator's timing came from. */
  readonly calibration: string;
}

/**
 * A row per kind and what it hit: `pause @leader` and `pause @holder` apart, a named process by its role
 * (`crash member`), the same in both worlds since the prediction names its processes as the gate does.
 */
export function gateGroupOf(fault: AppliedFault): string {
  const named = fault.named ?? fault.target;
  if (named === undefined) return fault.kind;
  if (named.startsWith('@')) return `${fault.kind} ${named}`;
  const role = /^etcd-/.test(named) ? 'member' : /^arbiter-/.test(named) ? 'arbiter' : /^client-/.test(named) ? 'client' : named;
  return `${fault.kind} ${role}`;
}

/** Put a limit on everything (STYLE.md): a simulated 5 m gate takes about 5 s. */
export const MAX_SIMULATED_RUNS = 50;

/** Kinds with no moment to measure from: a real clock drift starts with its process (libfaketime), whatever its atMs. */
export const UNMEASURED_KINDS: readonly string[] = ['clock-drift'];

export interface CompareOptions {
  readonly calibration?: GateCalibration;
  /** The real run's arbiter start-ups, replayed in each simulated run (start-up-target.ts, issue 32). */
  readonly startUpsMs?: StartUpsMs;
  readonly windowMs?: number;
  /** Kinds left out of both sides (default UNMEASURED_KINDS). */
  readonly skipKinds?: readonly string[];
  /**
   * How many simulated runs of the schedule (seeds `S`, `S/2`, ...; default 1) are pooled into the prediction:
   * one fault of a kind in one run is one draw of who was waiting where, and a median of one is that draw.
   */
  readonly simulatedRuns?: number;
  readonly yieldToHost: () => Promise<void>;
  /** Told before each simulated run starts (k from 1): a caller's progress line. */
  readonly onSeed?: (k: number, of: number, seed: string) => void;
}

export async function compareWithSimulator(real: MeasuredRun, shape: GateShape, faults: readonly Fault[], options: CompareOptions): Promise<SimComparison> {
  const runs = options.simulatedRuns ?? 1;
  if (!(Number.isInteger(runs) && runs >= 1 && runs <= MAX_SIMULATED_RUNS)) throw new RangeError(`simulatedRuns ${runs} must be a whole number from 1 to ${MAX_SIMULATED_RUNS}`);
  const seeds = Array.from({ length: runs }, (_, i) => (i === 0 ? shape.seed : `${shape.seed}/${i + 1}`));
  const skip = options.skipKinds ?? UNMEASURED_KINDS;
  const measurable = (applied: readonly AppliedFault[]): AppliedFault[] => applied.filter((f) => !skip.includes(f.kind));
  const common = { groupOf: gateGroupOf, ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs }) };
  const measured = measureFaultEffects(real.events, measurable(real.applied), { ...common, originMs: real.originMs, fences: real.fences });
  const predictions: GatePrediction[] = [];
  for (const [i, seed] of seeds.entries()) {
    options.onSeed?.(i + 1, seeds.length, seed);
    predictions.push(await predictGate({ ...shape, seed }, faults, options));
  }
  const perFault = predictions.flatMap((p) => measureFaultEffects(p.events, measurable(p.applied), { ...common, fences: p.fences }).perFault);
  const predicted = { perFault, perKind: summariseEffects(perFault) };
  return { rows: compareDistributions(measured, predicted), measured, predicted, prediction: predictions[0] as GatePrediction, seeds, calibration: options.calibration?.source ?? "the simulator's defaults (no bench profile)" };
}
