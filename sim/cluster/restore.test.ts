// Snapshot and restore (design/etcd-behaviour.md 5): ids follow the peer URLs and the cluster token;
// revisions continue from the snapshot (or jump with 3.5's --bump-revision --mark-compacted); leases
// come back without expiry until the new cluster's first leader promotes.
import { describe, expect, it } from 'vitest';
import { isLockLogError } from '../../core/ports/lock-log-error.js';
import { revision, type LeaseId } from '../../core/units.js';
import { stateDigest } from '../etcd/apply.js';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { createClusterNetwork, createSimCluster, restoreSimCluster, type SimClusterOptions } from './cluster.js';
import { SimDriver } from './driver.js';
import { createSimLockLog } from './lock-log.js';
import type { EtcdSnapshot } from './snapshot.js';
import { clusterWorld, rejectionOf, settledLeader } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

/** A cluster with some history: keys, an overwrite, a delete, a leased key and a compaction. */
async function snapshotWithHistory(): Promise<{ snapshot: EtcdSnapshot; clusterId: bigint; leaseTtl: number }> {
  const world = clusterWorld(yieldToHost, 'restore-source', { clusterToken: 'prod-token' });
  await settledLeader(world);
  const log = world.driver.lockLog(world.client('writer').log);
  const put = (key: string, value: string, lease?: LeaseId) =>
    log.txn({ compare: [], success: [{ type: 'put', key, value, ...(lease === undefined ? {} : { lease }) }], failure: [] });
  await put('/a', '1');
  const second = await put('/a', '2');
  await put('/b', '1');
  await log.txn({ compare: [], success: [{ type: 'delete', key: '/b' }], failure: [] });
  const lease = await log.leaseGrant(5);
  await put('/leased', 'x', lease.id);
  await log.compact(second.header.revision);
  await world.driver.runFor(200);
  const snapshot = world.cluster.snapshot();
  world.driver.stop();
  return { snapshot, clusterId: world.cluster.clusterId, leaseTtl: 5 };
}

function restoredWorld(seed: string, snapshot: EtcdSnapshot, options: Omit<SimClusterOptions, 'restoreFrom'>) {
  const kernel = new Kernel({ seed, yieldToHost, trace: { keepRecords: true } });
  const network = createClusterNetwork(kernel);
  const cluster = restoreSimCluster(kernel, network, snapshot, options);
  const driver = new SimDriver(kernel);
  const client = new SimProcess(kernel, { name: 'client' });
  const log = driver.lockLog(createSimLockLog({ kernel, network, client, endpoints: cluster.members }));
  return { kernel, cluster, driver, log };
}

describe('snapshot restore', () => {
  it('keeps the cluster id with the same token and peer URLs, and changes it with a new token', async () => {
    const { snapshot, clusterId } = await snapshotWithHistory();
    const same = restoredWorld('restore-same', snapshot, { clusterToken: 'prod-token' });
    const renamed = restoredWorld('restore-new', snapshot, { clusterToken: 'restored-2026-11-30' });
    expect(same.cluster.clusterId).toBe(clusterId);
    expect(renamed.cluster.clusterId).not.toBe(clusterId);
    // A fresh cluster with those URLs and that token has exactly those ids too (etcd-behaviour 5.1).
    const kernel = new Kernel({ seed: 'fresh', yieldToHost });
    expect(createSimCluster(kernel, createClusterNetwork(kernel), { clusterToken: 'prod-token' }).clusterId).toBe(clusterId);
    await same.driver.runUntil(() => same.cluster.leader() !== undefined, 5_000);
    expect((await same.log.status()).header.clusterId).toBe(clusterId);
  });

  it('continues the revisions from the snapshot, with its data, compaction point and leases', async () => {
    const { snapshot } = await snapshotWithHistory();
    const world = restoredWorld('restore-revisions', snapshot, { clusterToken: 'prod-token' });
    await world.driver.runUntil(() => world.cluster.leader()?.state?.lessor.isPrimary() === true, 5_000);
    for (const member of world.cluster.members) expect(stateDigest(member.state!)).toBe(snapshot.digest);
    // The first leader of a restored cluster has term 2: the bootstrap entries are term 1.
    expect(world.cluster.leader()!.raftStatus()!.term).toBe(2);
    const read = await world.log.range({ key: '/', prefix: true });
    expect(read.kvs.map((kv) => [kv.key, kv.value])).toEqual([['/a', '2'], ['/leased', 'x']]);
    expect(read.header.revision).toBe(snapshot.revision);
    const compacted = await rejectionOf(world.log.range({ key: '/a', revision: revision(BigInt(snapshot.compactRevision - 1)) }));
    expect(isLockLogError(compacted, 'compacted')).toBe(true);
    const next = await world.log.txn({ compare: [], success: [{ type: 'put', key: '/c', value: 'new' }], failure: [] });
    expect(next.header.revision).toBe(snapshot.revision + 1n);
  });

  it('brings leases back without expiry until the first leader promotes them to TTL + 1 s', async () => {
    const { snapshot, leaseTtl } = await snapshotWithHistory();
    const world = restoredWorld('restore-leases', snapshot, { clusterToken: 'prod-token' });
    const { kernel, cluster, driver } = world;
    await driver.runUntil(() => cluster.members.every((m) => m.state !== undefined), 1_000);
    const leaseOf = (state: NonNullable<(typeof cluster.members)[number]['state']>) => state.lessor.leases()[0];
    for (const member of cluster.members) expect(leaseOf(member.state!)?.expiryMs).toBeUndefined();
    await driver.runUntil(() => cluster.members.every((m) => m.state?.lessor.leases().length === 0), 15_000);
    const promote = kernel.trace.records().find((r) => r.kind === 'etcd.lease.promote')!;
    const revoke = kernel.trace.records().find((r) => r.kind === 'etcd.lease.revoke' && r.process === promote.process)!;
    expect(revoke.timeMs - promote.timeMs).toBeGreaterThanOrEqual((leaseTtl + 1) * 1_000);
    expect(revoke.timeMs - promote.timeMs).toBeLessThan((leaseTtl + 1) * 1_000 + 550);
    expect((await world.log.range({ key: '/leased' })).kvs).toEqual([]);
  });

  it('with bumpRevision, the revision jumps and everything below it counts as compacted', async () => {
    const { snapshot } = await snapshotWithHistory();
    const world = restoredWorld('restore-bump', snapshot, { clusterToken: 'prod-token', bumpRevision: 1_000 });
    await world.driver.runUntil(() => world.cluster.leader()?.state?.lessor.isPrimary() === true, 5_000);
    const bumped = snapshot.revision + 1_000n;
    const read = await world.log.range({ key: '/a' });
    expect(read.header.revision).toBe(bumped);
    expect(read.kvs.map((kv) => kv.value)).toEqual(['2']);
    const old = await rejectionOf(world.log.range({ key: '/a', revision: snapshot.revision }));
    expect(isLockLogError(old, 'compacted') && old.compactRevision).toBe(bumped);
    const errors: string[] = [];
    await world.log.watch({ key: '/a', startRevision: snapshot.revision }, { onEvents: () => errors.push('event'), onError: (e) => errors.push(e.code) });
    await world.driver.runFor(300);
    expect(errors).toEqual(['compacted']);
    const next = await world.log.txn({ compare: [], success: [{ type: 'put', key: '/a', value: '3' }], failure: [] });
    expect(next.header.revision).toBe(bumped + 1n);
  });
});
