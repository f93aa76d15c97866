// The member's write and read paths under leader failure (design/etcd-behaviour.md 2.2-2.4).
import { describe, expect, it } from 'vitest';
import { isLockLogError } from '../../core/ports/lock-log-error.js';
import type { TxnRequest } from '../../core/ports/lock-log.js';
import { clusterWorld, rejectionOf, settledLeader } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const put = (key: string, value: string): TxnRequest => ({ compare: [], success: [{ type: 'put', key, value }], failure: [] });

describe('writes when the leader fails', () => {
  it('a write through a follower right after the leader crashed times out at 7 s (indeterminate), then writes succeed', async () => {
    const world = clusterWorld(yieldToHost, 'leader-crash-write');
    const leader = await settledLeader(world);
    const { cluster, driver, kernel } = world;
    const follower = cluster.members.find((m) => m.name !== leader)!;
    const { log } = world.client('writer', { endpoints: [follower] });
    await driver.wait(log.txn(put('/k', 'before')));
    cluster.crash(leader);
    const sentAt = kernel.now();
    // The follower still knows the old leader, forwards the proposal to it, and the MsgProp is lost.
    const error = await driver.wait(rejectionOf(log.txn(put('/k', 'lost'))));
    const elapsed = kernel.now() - sentAt;
    expect(isLockLogError(error, 'timeout')).toBe(true);
    expect(isLockLogError(error) && error.outcome).toBe('indeterminate');
    expect(isLockLogError(error) && error.message).toContain('possibly due to previous leader failure');
    expect(elapsed).toBeGreaterThanOrEqual(7_000);
    expect(elapsed).toBeLessThan(7_100);
    // A new leader was elected meanwhile; the next write commits and the lost one never applied.
    expect(cluster.leader()?.name).not.toBe(leader);
    const after = await driver.wait(log.txn(put('/k', 'after')));
    const read = await driver.wait(log.range({ key: '/k' }));
    expect(read.kvs.map((kv) => kv.value)).toEqual(['after']);
    expect(read.kvs[0]?.version).toBe(2n);
    expect(after.header.raftTerm).toBeGreaterThan(2n);
    expect(cluster.violations).toEqual([]);
  });

  it('holds a write while there is no leader and proposes it once one appears, within the 7 s', async () => {
    const world = clusterWorld(yieldToHost, 'no-leader-hold');
    const leader = await settledLeader(world);
    const { cluster, driver, kernel } = world;
    const survivor = cluster.members.find((m) => m.name !== leader)!;
    for (const member of cluster.members) if (member !== survivor) cluster.crash(member.name);
    const { log } = world.client('writer', { endpoints: [survivor] });
    // The survivor loses its leader within about two election timeouts and then campaigns in vain.
    await driver.runUntil(() => survivor.current?.lead === null, 5_000);
    expect(survivor.current?.lead).toBeNull();
    const sentAt = kernel.now();
    const write = log.txn(put('/held', 'v'));
    await driver.runFor(2_000);
    for (const member of cluster.members) if (member !== survivor) cluster.restart(member.name);
    const response = await driver.wait(write);
    expect(response.succeeded).toBe(true);
    expect(kernel.now() - sentAt).toBeLessThan(7_000);
    expect(kernel.now() - sentAt).toBeGreaterThan(2_000);
    expect(cluster.violations).toEqual([]);
  });

  it('a write to a member cut off from the others times out; a serializable read still answers at once', async () => {
    const world = clusterWorld(yieldToHost, 'isolated-member');
    const leader = await settledLeader(world);
    const { cluster, driver, kernel } = world;
    const follower = cluster.members.find((m) => m.name !== leader)!;
    const { log } = world.client('writer', { endpoints: [follower] });
    await driver.wait(log.txn(put('/k', 'v1')));
    await driver.runFor(100);
    cluster.isolateFromPeers(follower.name);
    await driver.runFor(3_000);
    const started = kernel.now();
    const stale = await driver.wait(log.range({ key: '/k', serializable: true }));
    expect(stale.kvs.map((kv) => kv.value)).toEqual(['v1']);
    expect(kernel.now() - started).toBeLessThan(5);
    const readError = await driver.wait(rejectionOf(log.range({ key: '/k' })));
    // The ReadIndex round finds no leader and gives up after ReqTimeout: a read, so the outcome is 'failed'.
    expect(isLockLogError(readError, 'timeout') && readError.outcome).toBe('failed');
    expect(kernel.now() - started).toBeGreaterThanOrEqual(7_000);
    const writeError = await driver.wait(rejectionOf(log.txn(put('/k', 'v2'))));
    expect(isLockLogError(writeError, 'timeout') && writeError.outcome).toBe('indeterminate');
  });

  it('moves leadership on request (MoveLeader), and writes go on under the new leader', async () => {
    const world = clusterWorld(yieldToHost, 'move-leader');
    const leader = await settledLeader(world);
    const { cluster, driver } = world;
    const target = cluster.members.find((m) => m.name !== leader)!;
    const { log } = world.client('writer');
    await driver.wait(log.txn(put('/k', '1')));
    expect(cluster.moveLeader(target.name)).toBe(true);
    expect(await driver.runUntil(() => cluster.leader()?.name === target.name, 2_000)).toBe(true);
    const write = await driver.wait(log.txn(put('/k', '2')));
    expect(write.succeeded).toBe(true);
    expect(cluster.violations).toEqual([]);
  });

  it('refuses writes with too-many-requests while apply lags commit by more than maxApplyGap', async () => {
    const world = clusterWorld(yieldToHost, 'apply-gap', { timing: { applyCostMs: 20, maxApplyGap: 3 } });
    const leader = await settledLeader(world);
    const { driver, cluster } = world;
    const { log } = world.client('writer', { endpoints: [cluster.member(leader)] });
    // Writes every 2 ms commit far faster than a 20 ms apply keeps up with.
    const results: Promise<string>[] = [];
    for (let i = 0; i < 20; i++) {
      results.push(log.txn(put(`/burst/${i}`, 'v')).then(() => 'ok', (e: unknown) => (isLockLogError(e) ? `${e.code}/${e.outcome}` : String(e))));
      await driver.runFor(2);
    }
    const outcomes = await driver.wait(Promise.all(results));
    expect(outcomes).toContain('ok');
    expect(outcomes).toContain('too-many-requests/failed');
  });
});
