import { describe, expect, it } from 'vitest';
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { ClassRegistry } from '../../core/classes/index.js';
import type { LockHandle } from '../../core/client/lock-client.js';
import { World } from './world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const CLASS = { namespace: 'orders', name: 'writes', purpose: 'correctness', enforcement: 'fenced', resource: 'db://orders', ttlSeconds: 5, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' } as const;

async function world(seed: string): Promise<World> {
  const w = new World({
    seed,
    yieldToHost,
    classes: new ClassRegistry([CLASS]),
    authorizer: new PrefixGrants(['spiffe://sim/alice', 'spiffe://sim/bob'].map((identity) => namespaceGrant(identity, 'orders'))),
  });
  await w.start();
  return w;
}

describe('a simulated lock service from production parts', () => {
  it('grants in turn with rising tokens: core arbiter and client on simulated etcd', async () => {
    const w = await world('world-turns');
    const alice = w.addClient('alice');
    const bob = w.addClient('bob');
    const events: string[] = [];
    const hold = async (node: typeof alice, label: string, holdMs: number): Promise<bigint> => {
      const handle = await node.client.acquire({ key: 'orders/o-1', className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, waitMs: 30_000, onFence: () => events.push(`${label} fenced`) });
      events.push(`${label} start`);
      await node.process.clock().sleep(holdMs);
      events.push(`${label} end`);
      await handle.release();
      return handle.token;
    };
    const tokens: bigint[] = [];
    void hold(alice, 'alice', 2_000).then((t) => tokens.push(t));
    void w.kernel.sleep(100).then(() => hold(bob, 'bob', 500).then((t) => tokens.push(t)));
    await w.runUntil(20_000);
    expect(events).toEqual(['alice start', 'alice end', 'bob start', 'bob end']);
    expect(tokens).toHaveLength(2);
    expect(tokens[1]).toBeGreaterThan(tokens[0] ?? 0n);
    // The log saw the same two holds, each ended by its release, the second granted after the first ended.
    const holds = w.log.grants.filter((g) => g.key === 'orders/o-1');
    expect(holds.map((g) => [g.token, g.endReason])).toEqual(tokens.map((t) => [t, 'release']));
    expect(holds[1]?.grantedAtMs).toBeGreaterThanOrEqual(holds[0]?.endedAtMs ?? Infinity);
  });

  it('fences a paused holder: its lease expires while it is stopped, another holder gets the key with a higher token', async () => {
    const w = await world('world-pause');
    const alice = w.addClient('alice');
    const bob = w.addClient('bob');
    let aliceHandle: LockHandle | undefined;
    let fencedAtMs = -1;
    void alice.client
      .acquire({ key: 'orders/o-2', className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, onFence: () => (fencedAtMs = w.kernel.now()) })
      .then((h) => (aliceHandle = h));
    await w.runUntil(1_000);
    expect(aliceHandle).toBeDefined();
    alice.process.pause(); // a stop-the-world pause longer than the TTL
    let bobToken: bigint | undefined;
    void bob.client.acquire({ key: 'orders/o-2', className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, waitMs: 20_000, onFence: () => {} }).then((h) => (bobToken = h.token));
    await w.runUntil(12_000);
    expect(bobToken).toBeDefined();
    expect(bobToken).toBeGreaterThan(aliceHandle?.token ?? 0n);
    alice.process.resume();
    await w.runUntil(12_100);
    expect(fencedAtMs).toBeGreaterThanOrEqual(12_000); // it learns at resume, when its deadline has long passed
    expect(aliceHandle?.canStart()).toBe(false);
    // The log: alice's hold ended by expiry (her session lease), before bob's was granted.
    const [first, second] = w.log.grants.filter((g) => g.key === 'orders/o-2');
    expect(first?.endReason).toBe('expiry');
    expect(second?.token).toBe(bobToken);
  });

  it('is deterministic: the same seed gives the same trace hash, another seed another', async () => {
    const hashOf = async (seed: string): Promise<string> => {
      const w = await world(seed);
      const alice = w.addClient('alice');
      const acquired = alice.client.acquire({ key: 'orders/o-3', className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, onFence: () => {} });
      await w.runUntil(8_000);
      expect((await acquired).token).toBeGreaterThan(0n);
      return w.kernel.trace.hash();
    };
    const first = await hashOf('seed-a');
    expect(await hashOf('seed-a')).toBe(first);
    expect(await hashOf('seed-b')).not.toBe(first);
  });
});
