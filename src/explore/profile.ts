// Which exploration profile a `lockstep explore` target uses: the swarm draws its own schedules; any
// other scenario is explored by perturbing the schedule it declares (found by running it once).
import { type ExploreProfile, perturbationProfile, swarmProfileFor } from '../../scenarios/explore.js';
import type { Fault } from '../../scenarios/faults.js';
import { scenarioNamed } from '../../scenarios/registry.js';
import { runScenario } from '../../scenarios/runner.js';
import { variantOf } from '../../scenarios/scenario.js';
import { swarm } from '../../scenarios/swarm.js';
import { yieldToHost } from '../host-yield.js';

/** What a worker needs to rebuild the profile: plain data, sent once. */
export interface ProfileSpec {
  readonly scenario: string;
  readonly variant: string;
  /** For a scenario other than the swarm: the schedule it declares, which the explorer perturbs. */
  readonly declared?: readonly Fault[];
}

/** Host time one exploration run may take before it counts as hung (a swarm run takes well under a second). */
export const RUN_TIMEOUT_MS = 120_000;

/** scenarios/explore.ts's watchdog on a host timer, cleared when the run ends. */
export const watchdog = (): { expired: Promise<string>; cancel(): void } => {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<string>((done) => {
    timer = setTimeout(() => done(`no result after ${RUN_TIMEOUT_MS / 1000} s of host time: the simulation stopped while the scenario still waited`), RUN_TIMEOUT_MS);
  });
  return { expired, cancel: () => clearTimeout(timer) };
};

/** Resolves names (RangeError for an unknown scenario or variant) and, off the swarm, the declared schedule. */
export async function profileSpec(scenarioName: string, variantName: string | undefined): Promise<ProfileSpec> {
  const scenario = scenarioNamed(scenarioName);
  const variant = variantOf(scenario, variantName).name;
  if (scenario === swarm) return { scenario: scenario.name, variant };
  const declared = (await runScenario(scenario, variant, '1', { yieldToHost, hashTrace: false })).faults;
  return { scenario: scenario.name, variant, declared };
}

export function profileOf(spec: ProfileSpec): ExploreProfile<unknown> {
  if (spec.scenario === swarm.name) return swarmProfileFor(spec.variant) as ExploreProfile<unknown>;
  return perturbationProfile(scenarioNamed(spec.scenario), spec.declared ?? []) as ExploreProfile<unknown>;
}
