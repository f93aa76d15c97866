// What a given fault schedule is checked against: the processes of the variant's own run. Scenarios build
// their worlds (and their own schedules, some from the seed) inside their run, so the way to see them
// without changing every scenario is one run of the variant: tens of milliseconds for most, a few hundred
// for hot-key. `lockstep replay`, `lockstep run --faults` and the web runner all check through here.
import type { Fault } from './faults.js';
import { checkFaultSchedule, type KnownProcess, type ScheduleContext } from './fault-schedule.js';
import { DEFAULT_HORIZON_MS } from './horizon.js';
import { runScenario } from './runner.js';
import type { Scenario } from './scenario.js';

export interface VariantSchedule {
  /** The variant's own schedule for the seed, as plain JSON data (what a saved artifact holds). */
  readonly faults: readonly unknown[];
  /** What a schedule given instead may target, and the horizon its times must keep inside. */
  readonly context: ScheduleContext & { readonly processes: readonly KnownProcess[] };
}

/** The variant's own schedule and processes for `seed` (one run of it, keeping no trace records). */
export async function variantSchedule(scenario: Scenario, variantName: string | undefined, seed: string, yieldToHost: () => Promise<void>): Promise<VariantSchedule> {
  const run = await runScenario(scenario, variantName, seed, { yieldToHost, timeline: { maxRecords: 0 } });
  const processes = (run.timeline?.processes ?? []).map((p) => ({ name: p.name, role: p.role }));
  return { faults: JSON.parse(JSON.stringify(run.faults)) as unknown[], context: { processes, variant: `${scenario.name} / ${run.variant}`, horizonMs: DEFAULT_HORIZON_MS } };
}

/**
 * Checks a schedule given for a run of `scenario`'s variant at `seed` (FaultScheduleError naming the field).
 * The cheap rules first; only a schedule that names a process (not a role) costs the run that lists them.
 */
export async function checkGivenSchedule(value: unknown, scenario: Scenario, variantName: string | undefined, seed: string, yieldToHost: () => Promise<void>, progress?: (line: string) => void): Promise<Fault[]> {
  const variant = `${scenario.name} / ${variantName ?? scenario.variants[0].name}`;
  const faults = checkFaultSchedule(value, { variant });
  if (!faults.some(namesAProcess)) return faults;
  progress?.(`reading the processes of ${variant} (one run of its own schedule) to check the schedule's targets`);
  return checkFaultSchedule(value, (await variantSchedule(scenario, variantName, seed, yieldToHost)).context);
}

function namesAProcess(fault: Fault): boolean {
  const names = 'target' in fault ? [fault.target] : 'via' in fault ? [fault.via] : 'from' in fault ? [...fault.from, ...fault.to] : [];
  return names.some((name) => !name.startsWith('@'));
}
