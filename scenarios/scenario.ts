// A scenario (ARCHITECTURE.md, scenarios/): topology + classes + workload + fault schedule + checks, all
// derived from one seed, all data, so a run can be saved, shrunk and replayed. Each scenario has named
// variants that declare whether they should pass or show a violation: the failing ones show why a rule
// of the design exists.
import type { TailerSeams } from '../core/audit/seams.js';
import type { CheckRunOptions, RunHistory } from '../core/checkers/index.js';
import type { TraceOptions } from '../sim/trace/trace.js';
import { DEFAULT_AUDIT_PLAN, SCENARIO_ELECTION_TTL_SECONDS } from '../sim/world/audit-node.js';
import type { World, WorldOptions } from '../sim/world/world.js';
import type { Fault } from './faults.js';

export type Expectation = 'pass' | 'violation';

/** A variant declared to pass: no check may fail, at any seed. */
export interface PassVariant {
  readonly name: string;
  readonly expect: 'pass';
  readonly description: string;
}

/**
 * A variant declared to show a violation: at every seed, each check in `shows` fails (others may too).
 * Its description names them, so that what a run must show is stated where a person reads it.
 */
export interface ViolationVariant {
  readonly name: string;
  readonly expect: 'violation';
  readonly description: string;
  readonly shows: readonly [string, ...string[]];
}

export type Variant = PassVariant | ViolationVariant;

/** The description's ending that names a violation variant's checks: "... (checks: belief, fence)". */
export function namingChecks(description: string, shows: readonly [string, ...string[]]): string {
  return `${description} (checks: ${shows.join(', ')})`;
}

export interface ScenarioContext {
  readonly seed: string;
  readonly variant: Variant;
  readonly yieldToHost: () => Promise<void>;
  /** A fault schedule to use instead of the scenario's own (replay, shrinking, exploration). */
  readonly faults?: readonly Fault[];
  /** The kernel's trace options (the timeline capture's listener); every World the scenario builds takes them through worldBasics. */
  readonly trace?: TraceOptions;
  /** Simulated ms after the workload starts by which the run ends (horizon.ts; default DEFAULT_HORIZON_MS). */
  readonly horizonMs?: number;
  /** Test support only (scenarios/audit-mutants.ts): the audit tailer's seams. Default honest. */
  readonly auditSeams?: TailerSeams;
}

/**
 * What every scenario's World starts from: the seed, the host's yield, the trace options of the run
 * (runner.ts), and the audit tailer (ADR-21) with its crash, compaction and restart, whose store the
 * audit-complete checker holds against the log (scenarios/history.ts collects it).
 */
export function worldBasics(context: ScenarioContext): Pick<WorldOptions, 'seed' | 'yieldToHost' | 'kernel' | 'audit'> {
  const audit = { plan: DEFAULT_AUDIT_PLAN, electionTtlSeconds: SCENARIO_ELECTION_TTL_SECONDS, ...(context.auditSeams === undefined ? {} : { seams: context.auditSeams }) };
  return { seed: context.seed, yieldToHost: context.yieldToHost, audit, ...(context.trace === undefined ? {} : { kernel: { trace: context.trace } }) };
}

export interface ScenarioOutcome {
  readonly world: World;
  /** The schedule that was applied (times relative to the start of the workload). */
  readonly faults: readonly Fault[];
  /** What each fault resolved to when it fired (scheduleFaults' log). */
  readonly appliedFaults: readonly string[];
  readonly history: RunHistory;
  readonly checkOptions?: CheckRunOptions;
  /** The scenario's own checks, beside checkRun's (a rule the history checkers cannot state, e.g. across a restore); each must be able to fail. */
  readonly checks?: readonly ScenarioCheck[];
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly metrics: Readonly<Record<string, number>>;
}

/** A check of the scenario's own, listed in the run artifact beside the checkers' (same shape). */
export interface ScenarioCheck {
  readonly name: string;
  readonly ok: boolean;
  readonly detail: string;
  readonly violations: readonly unknown[];
}

export interface Scenario {
  readonly name: string;
  readonly description: string;
  /** The first variant is the default. */
  readonly variants: readonly [Variant, ...Variant[]];
  run(context: ScenarioContext): Promise<ScenarioOutcome>;
}

export function variantOf(scenario: Scenario, name: string | undefined): Variant {
  if (name === undefined) return scenario.variants[0];
  const variant = scenario.variants.find((v) => v.name === name);
  if (variant === undefined) {
    throw new RangeError(`scenario ${scenario.name} has no variant ${JSON.stringify(name)}; its variants: ${scenario.variants.map((v) => v.name).join(', ')}`);
  }
  return variant;
}
