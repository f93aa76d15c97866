// A simulated run that a failed assertion ended (core/assert.ts): a bug in lockstep or in the simulator,
// never an outcome of the run. TigerBeetle's rule, "every failure prints its seed" (STYLE.md): the error
// names the scenario, the variant and the seed, and the command that replays it, wherever it surfaces
// (`lockstep run`'s error boundary, the explorer's `crash` verdict).
import { AssertionError } from '../core/assert.js';

export class RunCrashed extends Error {
  override readonly name = 'RunCrashed';

  constructor(
    readonly scenario: string,
    readonly variant: string,
    readonly seed: string,
    readonly replay: string,
    readonly assertion: AssertionError,
  ) {
    super(`${scenario} / ${variant} at seed ${seed}: ${assertion.name}: ${assertion.message} (a bug in lockstep; replay: ${replay})`, { cause: assertion });
  }
}

/** `error` as a RunCrashed when it is a failed assertion; any other error (bad input, a horizon) as it is. */
export function crashedRun(error: unknown, scenario: string, variant: string, seed: string, replay: string): unknown {
  return error instanceof AssertionError ? new RunCrashed(scenario, variant, seed, replay, error) : error;
}
