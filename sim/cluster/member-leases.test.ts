// Lease timing as etcd's lessor and server make it (design/etcd-behaviour.md 1.2-1.7, 1.11, 2.1).
import { describe, expect, it } from 'vitest';
import { leaseId } from '../../core/units.js';
import type { TraceRecord } from '../trace/trace.js';
import { nextTickAt } from './member-leases.js';
import { UNHEDGED_KEEPALIVE, clusterWorld, settledLeader, type ClusterWorld } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

function firstRecord(world: ClusterWorld, kind: string, match: (record: TraceRecord) => boolean): TraceRecord | undefined {
  return world.kernel.trace.records().find((record) => record.kind === kind && match(record));
}

describe('lease expiry and promotion', () => {
  it('revokes a lease without keepalives about TTL after the leader applied its grant, within one 500 ms scan', async () => {
    const world = clusterWorld(yieldToHost, 'lease-expiry', {}, true);
    const leader = await settledLeader(world);
    const { driver, cluster } = world;
    const { log } = world.client('holder');
    const lease = await driver.wait(log.leaseGrant(3));
    await driver.wait(log.txn({ compare: [], success: [{ type: 'put', key: '/leased', value: 'v', lease: lease.id }], failure: [] }));
    await driver.runUntil(() => cluster.members.every((m) => m.state?.lessor.has(lease.id) === false), 10_000);
    const granted = firstRecord(world, 'etcd.lease.grant', (r) => r.process === leader && r.fields['id'] === lease.id)!;
    const revoked = firstRecord(world, 'etcd.lease.revoke', (r) => r.process === leader && r.fields['id'] === lease.id)!;
    const lifetime = revoked.timeMs - granted.timeMs;
    expect(lifetime).toBeGreaterThanOrEqual(3_000);
    expect(lifetime).toBeLessThan(3_000 + 500 + 50);
    expect((await driver.wait(log.range({ key: '/leased' }))).kvs).toEqual([]);
  });

  it('after a leader change, the lease lives TTL + 1 s from the new leader\'s promote', async () => {
    const world = clusterWorld(yieldToHost, 'lease-leader-change', {}, true);
    const leader = await settledLeader(world);
    const { driver, cluster, kernel } = world;
    const survivors = cluster.members.filter((m) => m.name !== leader);
    const { log } = world.client('holder', { endpoints: survivors });
    const lease = await driver.wait(log.leaseGrant(4));
    await driver.runFor(2_000);
    const crashedAt = kernel.now();
    cluster.crash(leader);
    await driver.runUntil(() => survivors.every((m) => m.state?.lessor.has(lease.id) === false), 15_000);
    const promote = firstRecord(world, 'etcd.lease.promote', (r) => r.timeMs > crashedAt)!;
    const revoked = firstRecord(world, 'etcd.lease.revoke', (r) => r.process === promote.process && r.fields['id'] === lease.id)!;
    const lifetime = revoked.timeMs - promote.timeMs;
    // Promote: every lease gets now + extend (1 s, the election timeout) + its full TTL.
    expect(lifetime).toBeGreaterThanOrEqual(5_000);
    expect(lifetime).toBeLessThan(5_000 + 500 + 50);
    // So it outlived its TTL measured from the last grant by the time the old leader had left.
    expect(revoked.timeMs - crashedAt).toBeGreaterThan(4_000);
    expect(cluster.violations).toEqual([]);
  });

  it('a restarted member holds every lease forever until it leads and promotes', async () => {
    const world = clusterWorld(yieldToHost, 'lease-restart');
    const leader = await settledLeader(world);
    const { driver, cluster, kernel } = world;
    const { log } = world.client('holder');
    const lease = await driver.wait(log.leaseGrant(30));
    await driver.runFor(1_000);
    const follower = cluster.members.find((m) => m.name !== leader)!;
    cluster.crash(follower.name);
    cluster.restart(follower.name);
    await driver.runUntil(() => follower.state?.lessor.has(lease.id) === true, 2_000);
    expect(follower.state?.lessor.lookup(lease.id)?.expiryMs).toBeUndefined();
    expect(follower.state?.lessor.timeToLive(lease.id, kernel.now())?.ttlSeconds).toBe(9_223_372_036);
    expect(cluster.member(leader).state?.lessor.lookup(lease.id)?.expiryMs).toBeDefined();
  });
});

describe('keepalive and time-to-live paths', () => {
  it('a follower forwards keepalive and time-to-live to the leader over leasehttp', async () => {
    const world = clusterWorld(yieldToHost, 'lease-forward', {}, true);
    const leader = await settledLeader(world);
    const { driver, cluster } = world;
    const follower = cluster.members.find((m) => m.name !== leader)!;
    const { log } = world.client('holder', { endpoints: [follower] });
    const lease = await driver.wait(log.leaseGrant(10));
    await driver.runFor(3_000);
    const renewed = await driver.wait(log.leaseKeepAlive(lease.id));
    expect(renewed.ttlSeconds).toBe(10);
    expect(renewed.header.memberId).toBe(follower.memberId);
    const ttl = await driver.wait(log.leaseTimeToLive(lease.id));
    expect(ttl.ttlSeconds).toBe(9);
    const renewRecords = world.kernel.trace.records().filter((r) => r.kind === 'etcd.lease.renew');
    expect(renewRecords.map((r) => r.process)).toEqual([leader]);
    const missing = await driver.wait(log.leaseTimeToLive(leaseId(lease.id + 1n)));
    expect(missing.ttlSeconds).toBe(-1);
  });

  it('a keepalive of an expired lease waits for its revoke and then answers TTL 0', async () => {
    const world = clusterWorld(yieldToHost, 'lease-expired-wait');
    const leader = world.cluster.member(await settledLeader(world));
    const { driver, kernel } = world;
    const { log } = world.client('holder', { endpoints: [leader] });
    const lease = await driver.wait(log.leaseGrant(2));
    const expiryMs = leader.state!.lessor.lookup(lease.id)!.expiryMs!;
    await driver.runUntil(() => kernel.now() > expiryMs + 1, 5_000);
    // Expired but not revoked yet: the next expiry scan is up to 500 ms away.
    expect(leader.state!.lessor.has(lease.id)).toBe(true);
    const sentAt = kernel.now();
    const answer = await driver.wait(log.leaseKeepAlive(lease.id));
    expect(answer.ttlSeconds).toBe(0);
    expect(kernel.now() - sentAt).toBeGreaterThan(5);
    expect(leader.state!.lessor.has(lease.id)).toBe(false);
  });

  it('a follower forwarding to a leader whose process died retries on the refused connection and renews with the next leader', async () => {
    for (const powerLoss of [false, true]) {
      const world = clusterWorld(yieldToHost, `lease-forward-dead-leader-${powerLoss}`);
      const leader = await settledLeader(world);
      const { driver, cluster, kernel } = world;
      const follower = cluster.members.find((m) => m.name !== leader)!;
      const { log } = world.client('holder', { endpoints: [follower], ...UNHEDGED_KEEPALIVE });
      const lease = await driver.wait(log.leaseGrant(10));
      cluster.crash(leader, { powerLoss });
      const sentAt = kernel.now();
      const answer = await driver.wait(log.leaseKeepAlive(lease.id).then((r) => r.ttlSeconds, (e: unknown) => (e as Error).message));
      const elapsed = kernel.now() - sentAt;
      if (!powerLoss) {
        // etcd 3.4 retries the refused POST until the follower learns the new leader (1-2 s election).
        expect(answer).toBe(10);
        expect(elapsed).toBeGreaterThan(900);
        expect(elapsed).toBeLessThan(3_000);
      } else {
        // A dead machine answers nothing: the POST hangs until the 7 s ReqTimeout.
        expect(answer).toContain('etcdserver: request timed out');
        expect(elapsed).toBeGreaterThanOrEqual(7_000);
        expect(elapsed).toBeLessThan(7_100);
      }
    }
  });
});

describe('the lessor loop ticker', () => {
  it('arms the next tick strictly after now, even where rounding puts start + k * period at now', () => {
    const start = 6334.022642892416; // a restored member's start, from the restore scenario
    const now = start + 21 * 500; // tick 21 fires here, yet (now - start) / 500 rounds to 20.999999999999996
    expect(Math.floor((now - start) / 500)).toBe(20);
    expect(nextTickAt(start, now, 500)).toBe(start + 22 * 500);
    expect(nextTickAt(0, 1_250, 500)).toBe(1_500);
    expect(nextTickAt(100, 100, 500)).toBe(600);
  });
});
