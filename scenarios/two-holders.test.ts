import { describe, expect, it } from 'vitest';
import { World } from '../sim/world/world.js';
import { ledgerPolicy, probedClient } from './cluster-fault-kit.js';
import { DeadlineProbe } from './deadline-probe.js';
import type { Fault } from './faults.js';
import type { ScenarioContext } from './scenario.js';
import { LEDGER_KEY, faultOutcome, ledgerHolds, ledgerWork, runTwoHolders, startFaults, unfencedLedger } from './two-holders.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const context = (faults?: readonly Fault[]): ScenarioContext => ({ seed: 'two-holders', variant: { name: 'default', expect: 'pass', description: '' }, yieldToHost, ...(faults === undefined ? {} : { faults }) });

async function ledgerWorld(): Promise<{ world: World; probe: DeadlineProbe; alice: ReturnType<typeof probedClient>; bob: ReturnType<typeof probedClient> }> {
  const world = new World({ seed: 'two-holders', yieldToHost, ...ledgerPolicy(5, ['alice', 'bob']) });
  const probe = new DeadlineProbe(world);
  await world.start();
  return { world, probe, alice: probedClient(world, probe, 'alice'), bob: probedClient(world, probe, 'bob') };
}

describe('two holders on the ledger row', () => {
  it('runs the first holder at once and the second later, waiting in line; the log shows the handover', async () => {
    const { world, alice, bob } = await ledgerWorld();
    const resource = unfencedLedger(world);
    const beliefs: Parameters<typeof runTwoHolders>[0]['beliefs'] = [];
    const events: string[] = [];
    const startMs = world.kernel.now();
    const run = await runTwoHolders({
      world,
      work: ledgerWork(resource, 5),
      beliefs,
      first: { node: alice.node, units: 3 },
      afterFirst: (stopped) => void stopped.then(() => events.push(`first stopped at ${world.kernel.now() - startMs >= 3 * 500 ? 'after its units' : 'early'}`)),
      second: { node: bob.node, atMs: 200, waitMs: 5_000, units: 2 },
      alongside: () => events.push(`alongside started at ${world.kernel.now() - startMs} ms`),
      untilMs: startMs + 10_000,
    });
    expect(run.first?.unitsDone).toBe(3);
    expect(run.second?.attempts).toBe(1);
    expect(run.second?.result.unitsDone).toBe(2);
    expect(run.second?.result.token).toBeGreaterThan(run.first?.token ?? 0n);
    expect(events).toEqual(['alongside started at 0 ms', 'first stopped at after its units']);
    expect(resource.writes.filter((w) => w.accepted).map((w) => w.holder)).toEqual([alice.node.identity, alice.node.identity, alice.node.identity, bob.node.identity, bob.node.identity]);

    const holds = ledgerHolds(world, beliefs, alice, bob);
    expect(holds.firstHold?.key).toBe(LEDGER_KEY);
    expect(holds.firstHold?.endReason).toBe('release');
    expect(holds.expiredMs).toBeUndefined(); // released, not expired
    expect(holds.secondGrantMs).toBeGreaterThanOrEqual(holds.firstHold?.endedAtMs ?? Number.POSITIVE_INFINITY);
    expect(holds.firstLastStartMs).toBe(beliefs.filter((b) => b.holder === alice.node.identity).at(-1)?.fromMs);
  });

  it('delays the first holder when asked to, so that faults at the start time fire first', async () => {
    const { world, alice, bob } = await ledgerWorld();
    const startMs = world.kernel.now();
    const run = await runTwoHolders({
      world,
      work: ledgerWork(unfencedLedger(world), 5),
      beliefs: [],
      first: { node: alice.node, units: 1, afterMs: 700 },
      second: { node: bob.node, atMs: 5_000, waitMs: 0, units: 1 },
      untilMs: startMs + 8_000,
    });
    expect((run.first?.grantedAtMs ?? 0) - startMs).toBeGreaterThanOrEqual(700);
  });

  it("uses the context's schedule when it has one (replay, exploration), else the scenario's own, counted from now", async () => {
    const own: Fault[] = [{ atMs: 1_000, kind: 'pause', target: 'alice', forMs: 500 }];
    const given: Fault[] = [{ atMs: 2_000, kind: 'pause', target: 'bob', forMs: 500 }];
    const first = await ledgerWorld();
    const mine = startFaults(first.world, context(), own);
    expect(mine.faults).toBe(own);
    expect(mine.startMs).toBe(first.world.kernel.now());
    await first.world.runUntil(mine.startMs + 3_000);
    expect(mine.appliedFaults).toEqual(['1000 ms: pause alice for 500 ms', '1000 ms: resume alice (at 1500 ms)']);

    const second = await ledgerWorld();
    const replayed = startFaults(second.world, context(given), own);
    await second.world.runUntil(replayed.startMs + 3_000);
    expect(replayed.faults).toBe(given);
    expect(replayed.appliedFaults).toEqual(['2000 ms: pause bob for 500 ms', '2000 ms: resume bob (at 2500 ms)']);
  });

  it('gives the outcome with the history for the checkers and the metrics rounded, those that never happened left out', async () => {
    const { world, probe } = await ledgerWorld();
    const schedule = startFaults(world, context(), []);
    const beliefs = [{ holder: 'a', key: LEDGER_KEY, token: 5n, fromMs: 1 }];
    const outcome = faultOutcome({ world, schedule, beliefs, probe }, { ttlSeconds: 5 }, { happened: 12.345, never: undefined });
    expect(outcome.metrics).toEqual({ happened: 12.3 });
    expect(outcome.parameters).toEqual({ ttlSeconds: 5 });
    expect(outcome.history.beliefs).toHaveLength(1);
    expect(outcome.history.grants).toBe(world.log.grants);
    expect(outcome.faults).toEqual([]);
    expect(outcome.history.fences).toEqual([]); // no session was fenced
  });
});
