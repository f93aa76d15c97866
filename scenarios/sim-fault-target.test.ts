import { describe, expect, it } from 'vitest';
import { World } from '../sim/world/world.js';
import { scheduleTargetFaults } from './apply-target-fault.js';
import { LEDGER_CLASS, ledgerPolicy } from './cluster-fault-kit.js';
import { SimFaultTarget } from './sim-fault-target.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

async function started(): Promise<World> {
  const world = new World({ seed: 'sim-fault-target', yieldToHost, ...ledgerPolicy(5, ['alice']) });
  await world.start();
  world.addClient('alice');
  return world;
}

describe('SimFaultTarget: the simulated world under the shared fault rules', () => {
  it('pauses the leader the role named when the fault fired and resumes that member after forMs', async () => {
    const world = await started();
    const target = new SimFaultTarget(world);
    const leader = world.cluster.leader()?.name;
    expect(leader).toBeDefined();
    const log = scheduleTargetFaults(target, [{ atMs: 1_000, kind: 'pause', target: '@leader', forMs: 8_000 }]);
    await world.runUntil(target.startMs + 5_000);
    expect(target.stateOf(leader ?? '')).toBe('paused');
    const successor = world.cluster.leader()?.name;
    expect(successor).toBeDefined();
    expect(successor).not.toBe(leader); // the role moved: a resume by role would wake the wrong member
    await world.runUntil(target.startMs + 10_000);
    expect(target.stateOf(leader ?? '')).toBe('running');
    expect(log[1]).toMatch(new RegExp(`: resume ${leader} \\(at `));
  });

  it('knows every kind of process the world has, and no other', async () => {
    const world = await started();
    const target = new SimFaultTarget(world);
    for (const name of ['alice', world.arbiters[0]?.process.name ?? '', ...world.cluster.members.map((m) => m.name)]) expect(target.stateOf(name)).toBe('running');
    expect(target.stateOf('mallory')).toBeUndefined();
    expect(target.cannot('brownout')).toBeUndefined();
  });

  it('cuts links in the world: a client partitioned from its arbiter gets no grant; the control, unpartitioned, does', async () => {
    const grantsWithin1s = async (partitioned: boolean): Promise<number> => {
      const world = await started();
      const target = new SimFaultTarget(world);
      expect(target.resolve('@holder')).toBe(''); // alice holds nothing yet
      if (partitioned) target.partition(['alice'], [world.arbiters[0]?.process.name ?? ''], false);
      void world.clients[0]?.client.acquire({ key: 'payments/ledger-1', className: LEDGER_CLASS, ttlSeconds: 5, waitMs: 0, onFence: () => undefined }).catch(() => undefined);
      await world.runUntil(world.kernel.now() + 1_000);
      if (!partitioned) expect(target.resolve('@holder')).toBe('alice');
      return world.grants.length;
    };
    expect(await grantsWithin1s(true)).toBe(0);
    expect(await grantsWithin1s(false)).toBe(1);
  });
});
