import { describe, expect, it } from 'vitest';
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { ClassRegistry } from '../../core/classes/index.js';
import { isLockError } from '../../core/lock-error.js';
import { unpackToken } from '../../core/token.js';
import { World } from './world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const CLASS = { namespace: 'orders', name: 'writes', purpose: 'correctness', enforcement: 'fenced', resource: 'db://orders', ttlSeconds: 5, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' } as const;
const policy = {
  classes: new ClassRegistry([CLASS]),
  authorizer: new PrefixGrants(['spiffe://sim/alice', 'spiffe://sim/bob'].map((identity) => namespaceGrant(identity, 'orders'))),
};
const acquire = { className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, onFence: () => {} };

describe('a world of several clusters', () => {
  it('runs a second cluster with its own arbiter; each log records its own grants under its name', async () => {
    const world = new World({ seed: 'two-clusters', yieldToHost, ...policy, clusterName: 'shard-a', cluster: { namePrefix: 'shard-a-' } });
    world.addCluster('shard-b');
    const arbiterB = world.addArbiter({ cluster: 'shard-b' });
    await world.start();
    expect(world.clusters.map((c) => [c.name, c.cluster.members.map((m) => m.name)])).toEqual([
      ['shard-a', ['shard-a-1', 'shard-a-2', 'shard-a-3']],
      ['shard-b', ['shard-b-1', 'shard-b-2', 'shard-b-3']],
    ]);
    expect(world.clusters[0]?.cluster.clusterId).not.toBe(world.clusters[1]?.cluster.clusterId);
    expect(arbiterB.cluster).toBe('shard-b');
    const alice = world.addClient('alice');
    const bob = world.addClient('bob', { arbiter: world.arbiters.indexOf(arbiterB) });
    // The same key on two clusters is two locks: each cluster grants it (what a shard map must prevent).
    const both = Promise.all([alice.client.acquire({ key: 'orders/o-1', ...acquire }), bob.client.acquire({ key: 'orders/o-1', ...acquire })]);
    await world.runUntil(world.kernel.now() + 3_000);
    const [a, b] = await both;
    expect(world.grants.map((g) => [g.cluster, g.holder, g.token])).toEqual([
      ['shard-a', alice.identity, a.token],
      ['shard-b', bob.identity, b.token],
    ]);
  });
});

describe('restoring a cluster from a snapshot', () => {
  async function restored(clusterToken: string, arbiters: 'reconnect' | 'restart') {
    const world = new World({ seed: `restore-${clusterToken}-${arbiters}`, yieldToHost, ...policy, cluster: { clusterToken: 'orders' } });
    await world.start();
    const alice = world.addClient('alice');
    const holdOnce = async (): Promise<void> => {
      const held = alice.client.acquire({ key: 'orders/o-1', ...acquire }).then((handle) => handle.release());
      await world.runUntil(world.kernel.now() + 1_000);
      await held;
    };
    await holdOnce();
    const snapshot = world.cluster.snapshot();
    await holdOnce(); // a grant the snapshot does not have
    const before = world.cluster;
    world.restoreCluster({ snapshot, clusterToken, arbiters });
    await world.runUntil(world.kernel.now() + 500); // the restored members start; the arbiters turn to them
    return { world, alice, snapshot, before };
  }

  it('keeps the cluster ID with the same token; the arbiter that lived through it seals on the revision going back', async () => {
    const { world, alice, snapshot, before } = await restored('orders', 'reconnect');
    expect(world.cluster).not.toBe(before);
    expect(world.cluster.clusterId).toBe(before.clusterId);
    expect(world.cluster.members.map((m) => m.name)).toEqual(['etcd-1-r1', 'etcd-2-r1', 'etcd-3-r1']);
    expect(world.cluster.members.map((m) => m.peerUrl)).toEqual(before.members.map((m) => m.peerUrl));
    expect(before.members.every((m) => m.process.state === 'crashed')).toBe(true);
    expect(world.clusters.map((c) => c.name)).toEqual(['cluster-1', 'cluster-1/restored-1']);
    const second = alice.client.acquire({ key: 'orders/o-1', ...acquire, waitMs: 5_000 }).catch((error: unknown) => error);
    await world.runUntil(world.kernel.now() + 15_000);
    const outcome = await second;
    expect(isLockError(outcome, 'sealed') && outcome.seal?.kind).toBe('revision-regression');
    // The recorder of the restored log starts at the snapshot: its first write is the snapshot's revision + 1.
    expect(world.clusters[1]?.log.revision).toBeGreaterThan(Number(snapshot.revision));
  });

  it('changes the cluster ID with a new token: the arbiter seals on cluster-id-mismatch', async () => {
    const { world, alice, before } = await restored('orders-restored', 'reconnect');
    expect(world.cluster.clusterId).not.toBe(before.clusterId);
    const second = alice.client.acquire({ key: 'orders/o-1', ...acquire, waitMs: 5_000 }).catch((error: unknown) => error);
    await world.runUntil(world.kernel.now() + 15_000);
    const outcome = await second;
    expect(isLockError(outcome, 'sealed') && outcome.seal?.kind).toBe('cluster-id-mismatch');
  });

  it('a restarted arbiter has no floor to compare with: it grants again from the snapshot, in the snapshot\'s epoch', async () => {
    const { world, alice, snapshot } = await restored('orders', 'restart');
    const second = alice.client.acquire({ key: 'orders/o-1', ...acquire, waitMs: 5_000 });
    await world.runUntil(world.kernel.now() + 15_000);
    const { token } = await second;
    expect(unpackToken(token).epoch).toBe(1);
    expect(unpackToken(token).revision).toBeGreaterThan(snapshot.revision);
    const [original, after] = world.clusters;
    expect(after?.log.grants.map((g) => g.token)).toEqual([token]);
    // The very token the original log granted the same key after the snapshot: the restored log's first
    // write has the same revision as the original's first write after the snapshot (ADR-02's "never reused").
    expect(original?.log.grants).toHaveLength(2);
    expect(token).toBe(original?.log.grants[1]?.token);
  });
});
