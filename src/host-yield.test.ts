import { describe, expect, it } from 'vitest';
import { runScenario } from '../scenarios/runner.js';
import { swarm } from '../scenarios/swarm.js';
import { hostYield, TURN_EVERY } from './host-yield.js';

/** Far longer than a swarm run of seed 3 takes here (about a second, several under load). */
const STALL_MS = 15_000;

/** An await chain `depth` microtask hops deep (each level two awaits): flags `finished` at its end. */
function startChain(depth: number): { readonly finished: () => boolean } {
  let finished = false;
  const level = async (n: number): Promise<void> => {
    if (n === 0) {
      finished = true;
      return;
    }
    await null;
    await level(n - 1);
  };
  void level(depth);
  return { finished: () => finished };
}

/** Whether the chain had finished when one yield of `yieldOnce`, made synchronously from a host timer callback, resolved. */
function drainedFromTimer(yieldOnce: () => Promise<void>): Promise<boolean> {
  return new Promise((answer) => {
    setTimeout(() => {
      const chain = startChain(5_000);
      void yieldOnce().then(() => answer(chain.finished()));
    }, 0);
  });
}

/** How many yields of `yieldOnce` ran before a host timer, due before the first of them, fired; `limit` if it never did. */
async function yieldsBeforeTimer(yieldOnce: () => Promise<void>, limit: number): Promise<number> {
  let fired = false;
  const timer = setTimeout(() => (fired = true), 0);
  const dueAt = Date.now() + 3;
  while (Date.now() < dueAt); // the timer is due now: only a turn of the event loop is missing
  let yields = 0;
  while (!fired && yields < limit) {
    await yieldOnce();
    yields += 1;
  }
  clearTimeout(timer);
  return yields;
}

describe('the node host yield (issue 16)', () => {
  it('resolves only after a deep microtask chain started before it has run to its end', async () => {
    for (const turnEvery of [TURN_EVERY, 1]) {
      const yieldOnce = hostYield(turnEvery);
      const chain = startChain(5_000);
      await yieldOnce();
      expect(chain.finished()).toBe(true);
    }
  });

  it('drains completely even when yielded synchronously from a macrotask, where a bare tick would not', async () => {
    expect(await drainedFromTimer(hostYield())).toBe(true);
    expect(await drainedFromTimer(hostYield(1))).toBe(true);
    // The negative control: a tick queued straight from a timer callback runs before the queued microtasks.
    const bareTick = (): Promise<void> => new Promise((done) => process.nextTick(done));
    expect(await drainedFromTimer(bareTick)).toBe(false);
  });

  it('lets a due host timer fire within two turns of TURN_EVERY yields, which ticks alone never do', async () => {
    const within = await yieldsBeforeTimer(hostYield(), 10 * TURN_EVERY);
    expect(within).toBeGreaterThan(0);
    expect(within).toBeLessThanOrEqual(2 * TURN_EVERY);
    expect(await yieldsBeforeTimer(hostYield(1), 10)).toBeLessThanOrEqual(2);
    // The negative control: a yield that never turns the loop starves the timer for as long as it yields.
    expect(await yieldsBeforeTimer(hostYield(1_000_000), 10 * TURN_EVERY)).toBe(10 * TURN_EVERY);
  });

  it('gives a swarm run the trace hash an immediate after every drain gives, whichever yields turn the loop', async () => {
    const hashWith = async (yieldOnce: () => Promise<void>): Promise<{ hash: string; yields: number }> => {
      let yields = 0;
      const counted = (): Promise<void> => {
        yields += 1;
        return yieldOnce();
      };
      const run = await runScenario(swarm, undefined, '3', { yieldToHost: counted });
      return { hash: run.traceHash, yields };
    };
    const immediate = await hashWith(hostYield(1));
    expect(immediate.yields).toBeGreaterThan(10 * TURN_EVERY); // long enough for many turns of the loop between ticks
    expect((await hashWith(hostYield())).hash).toBe(immediate.hash);
    expect((await hashWith(hostYield(7))).hash).toBe(immediate.hash);
    // The negative control: a yield that does not drain (one microtask hop) runs continuations late: the run
    // breaks, stalls (since reads are hedged, it waits for ever after a few yields: no virtual timer is due
    // and no real one is pending), or its hash differs. A stall is taken after STALL_MS of real time.
    const stalled = new Promise<string>((done) => setTimeout(() => done('stalled'), STALL_MS).unref());
    const undrained = await Promise.race([hashWith(() => Promise.resolve()).then((run) => run.hash, (error: unknown) => String(error)), stalled]);
    expect(undrained).not.toBe(immediate.hash);
  });

  it('refuses a turn period that is not a whole number of at least 1', () => {
    expect(() => hostYield(0)).toThrow('turnEvery 0 must be a whole number of at least 1');
    expect(() => hostYield(2.5)).toThrow(RangeError);
  });
});
