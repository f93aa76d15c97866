import { describe, expect, it } from 'vitest';
import { AssertionError } from '../core/assert.js';
import { Kernel } from '../sim/kernel/kernel.js';
import { Inflights } from '../sim/raft/progress.js';
import { hostYield } from '../src/host-yield.js';
import { RunCrashed } from './run-crashed.js';
import { runScenario } from './runner.js';
import type { Scenario, ScenarioOutcome } from './scenario.js';

const yieldToHost = hostYield();

/** A scenario whose simulation breaks a simulator invariant (one MsgApp too many in flight) at 10 ms, or throws `other`. */
function broken(other?: Error): Scenario {
  return {
    name: 'broken',
    description: 'a simulator invariant broken on purpose',
    variants: [{ name: 'first', expect: 'pass', description: 'the default' }, { name: 'second', expect: 'pass', description: 'another' }],
    run: async (context): Promise<ScenarioOutcome> => {
      const kernel = new Kernel({ seed: context.seed, yieldToHost });
      kernel.schedule(10, () => {
        if (other !== undefined) throw other;
        const window = new Inflights(1);
        window.add(1);
        window.add(2);
      });
      await kernel.runUntilQuiescent();
      throw new Error('unreachable: the event above throws');
    },
  };
}

describe('a failed assertion in the simulator ends the run with its seed (issue 34, STYLE.md: every failure prints its seed)', () => {
  it('names the scenario, the variant, the seed, the assertion and the command that replays it', async () => {
    const run = runScenario(broken(), 'second', '4711', { yieldToHost });
    await expect(run).rejects.toThrow(RunCrashed);
    const error = (await run.catch((e: unknown) => e)) as RunCrashed;
    expect(error.message).toBe('broken / second at seed 4711: AssertionError: Inflights: add to a full window (capacity 1) (a bug in lockstep; replay: lockstep run broken --variant second --seed 4711)');
    expect(error.seed).toBe('4711');
    expect(error.assertion).toBeInstanceOf(AssertionError);
  });

  it('lets any other error through as it is (a bad fault schedule is bad input, not a crash)', async () => {
    const other = new RangeError('faults[0].atMs is -1');
    await expect(runScenario(broken(other), undefined, '1', { yieldToHost })).rejects.toBe(other);
  });
});
