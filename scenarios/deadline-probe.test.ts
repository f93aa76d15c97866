import { describe, expect, it } from 'vitest';
import { World } from '../sim/world/world.js';
import { LEDGER_CLASS, arbiterName, fencedAtMs, ledgerPolicy, probedClient } from './cluster-fault-kit.js';
import { DeadlineProbe } from './deadline-probe.js';
import { type Fault, scheduleFaults } from './faults.js';
import { type HolderResult, runHolder } from './holder.js';
import { SCENARIOS } from './registry.js';
import { runScenario } from './runner.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const plan = { key: 'payments/ledger-7', className: LEDGER_CLASS, ttlSeconds: 5, waitMs: 0, units: 40, prepareMs: 300, gapMs: 200 } as const;

/** alice holds the key and is cut off from her arbiter at 2 s; bob pauses from 1 s to 3 s; carol crashes at 4 s. */
async function run(probed: boolean): Promise<{ world: World; probe: DeadlineProbe; alice: HolderResult | undefined }> {
  const world = new World({ seed: 'deadline-probe', yieldToHost, ...ledgerPolicy(5, ['alice', 'bob', 'carol']) });
  const probe = new DeadlineProbe(world);
  await world.start();
  const options = probed ? { wrapApi: probe.wrapApi } : {};
  const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((name) => world.addClient(name, options));
  const faults: Fault[] = [
    { atMs: 1_000, kind: 'pause', target: 'bob', forMs: 2_000 },
    { atMs: 2_000, kind: 'partition', id: 'dark', from: ['alice'], to: [arbiterName(world, 0)] },
    { atMs: 4_000, kind: 'crash', target: 'carol' },
  ];
  scheduleFaults(world, faults);
  let result: HolderResult | undefined;
  void runHolder(alice!, plan, []).then((r) => (result = r));
  void runHolder(bob!, { ...plan, key: 'payments/ledger-8', units: 2 }, []);
  void runHolder(carol!, { ...plan, key: 'payments/ledger-9', units: 40 }, []);
  await world.runUntil(world.kernel.now() + 20_000);
  return { world, probe, alice: result };
}

describe('the deadline probe', () => {
  it('leaves the run as it was: the same trace hash with and without it', async () => {
    const plain = await run(false);
    const probed = await run(true);
    expect(probed.world.kernel.trace.hash()).toBe(plain.world.kernel.trace.hash());
  });

  it("gives a hold its library's fence, though the holder had released the handle and was never called back", async () => {
    const world = new World({ seed: 'deadline-probe', yieldToHost, ...ledgerPolicy(5, ['alice']) });
    const probe = new DeadlineProbe(world);
    await world.start();
    const alice = probedClient(world, probe, 'alice');
    scheduleFaults(world, [{ atMs: 2_000, kind: 'partition', id: 'dark', from: ['alice'], to: [arbiterName(world, 0)] }]);
    let result: HolderResult | undefined;
    void runHolder(alice.node, plan, []).then((r) => (result = r));
    await world.runUntil(world.kernel.now() + 20_000);
    const hold = world.log.grants[0];
    expect(hold?.endReason).toBe('expiry');
    expect(result?.fenced).toBe(false); // runHolder released when canStart() said no: onFence never came
    const { fences } = probe.records(world.log.grants);
    expect(fences).toEqual([{ holder: alice.node.identity, key: plan.key, token: hold?.token, atMs: fencedAtMs(alice.calls) }]);
    expect(fences[0]?.atMs).toBeLessThan(hold?.endedAtMs ?? 0); // ADR-12: before the log expired it
  });

  it('records when each client could not run: a pause until its resume, a crash for good', async () => {
    const { world, probe } = await run(true);
    const { outages } = probe.records(world.log.grants);
    const paused = outages.find((o) => o.holder === 'spiffe://sim/bob');
    expect(paused?.kind).toBe('pause');
    expect((paused?.toMs ?? 0) - (paused?.fromMs ?? 0)).toBeCloseTo(2_000, 6); // virtual ms are floats
    expect(outages.find((o) => o.holder === 'spiffe://sim/carol')).toMatchObject({ kind: 'crash' });
    expect(outages.find((o) => o.holder === 'spiffe://sim/carol')?.toMs).toBeUndefined();
    expect(outages.filter((o) => o.holder === 'spiffe://sim/alice')).toEqual([]);
  });

  it('refuses a run whose lock holders were not all probed: their expiries would read as fences never called', async () => {
    const { world, probe } = await run(false);
    expect(() => probe.records(world.log.grants)).toThrow(/clients alice, bob, carol hold locks but were added without DeadlineProbe.wrapApi/);
  });
});

describe('the deadline checker over every scenario', () => {
  // Seed 2 is one on which a 250,000 ppm slow clock fenced before the log's expiry (clock-drift.ts).
  const passing = SCENARIOS.flatMap((scenario) => scenario.variants.filter((v) => v.expect === 'pass').map((variant) => ({ scenario, variant })));

  it.each(passing.map(({ scenario, variant }) => [`${scenario.name}/${variant.name}`, scenario, variant.name] as const))('%s, declared to pass, passes it (seeds 1 and 2)', async (_name, scenario, variant) => {
    for (const seed of ['1', '2']) {
      const artifact = await runScenario(scenario, variant, seed, { yieldToHost });
      const deadline = artifact.checks.find((c) => c.name === 'deadline');
      expect(deadline, `seed ${seed}: the run records its fences`).toBeDefined();
      expect(deadline?.ok, `seed ${seed}: ${deadline?.detail}`).toBe(true);
      expect(artifact.asDeclared, `seed ${seed}`).toBe(true);
    }
  });
});
