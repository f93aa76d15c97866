// What only the client does (like src/etcd/etcd-lock-log.test.ts does for the real adapter): failover
// only while nothing was sent, outcomes of broken calls, watches that break, close.
import { describe, expect, it } from 'vitest';
import { isLockLogError, type LockLogError } from '../../core/ports/lock-log-error.js';
import type { TxnRequest, WatchBatch } from '../../core/ports/lock-log.js';
import { HEDGE_AFTER_MS, KEEPALIVE_TIMEOUT_MS } from '../../core/ports/hedge.js';
import { UNHEDGED_KEEPALIVE, clusterWorld, rejectionOf, settledLeader } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const put = (key: string, value: string): TxnRequest => ({ compare: [], success: [{ type: 'put', key, value }], failure: [] });

async function twoEndpointWorld(seed: string, options: { hedgeAfterMs?: number } = {}) {
  const world = clusterWorld(yieldToHost, seed, {}, true);
  const leader = await settledLeader(world);
  const [first, second] = world.cluster.members.filter((m) => m.name !== leader);
  const { log, process } = world.client('client', { endpoints: [first!, second!], ...options });
  // One call opens the connection to the first endpoint.
  await world.driver.wait(log.status());
  return { world, leader, first: first!, second: second!, log, process };
}

describe('SimLockLog endpoints', () => {
  it('fails over at once when the connection to its member was reset by a crash (nothing is sent there)', async () => {
    const { world, first, second, log } = await twoEndpointWorld('failover-reset');
    world.cluster.crash(first.name);
    await world.driver.runFor(5);
    const started = world.kernel.now();
    const status = await world.driver.wait(log.status());
    expect(status.header.memberId).toBe(second.memberId);
    expect(world.kernel.now() - started).toBeLessThan(20);
    expect(log.currentEndpoint).toBe(second.name);
  });

  it('fails a write in flight when the member crashes: unavailable, outcome unknown', async () => {
    const { world, first, log } = await twoEndpointWorld('inflight-reset');
    const write = log.txn(put('/k', 'v'));
    world.cluster.crash(first.name);
    const error = (await world.driver.wait(rejectionOf(write))) as LockLogError;
    expect([error.code, error.outcome]).toEqual(['unavailable', 'indeterminate']);
    expect(error.message).toContain('reset');
  });

  it('fails at once a write on the wire when its member crashes, the first call of a new connection (issue 32, model 3)', async () => {
    // The member never took this client's connection, so only the kernel's answer to the message on the
    // wire tells the client: before model 3 the write waited out its 8 s deadline.
    const world = clusterWorld(yieldToHost, 'wire-reset', {}, true);
    const leader = await settledLeader(world);
    const first = world.cluster.members.find((m) => m.name !== leader)!;
    const { log } = world.client('fresh', { endpoints: [first] });
    const started = world.kernel.now();
    const write = log.txn(put('/k', 'v'));
    world.cluster.crash(first.name);
    const error = (await world.driver.wait(rejectionOf(write))) as LockLogError;
    expect([error.code, error.outcome]).toEqual(['unavailable', 'indeterminate']);
    expect(error.message).toContain('reset');
    expect(world.kernel.now() - started).toBeLessThan(50);
  });

  it('times out a write on a member that lost power (no reset arrives), then the next call moves on', async () => {
    const { world, first, second, log } = await twoEndpointWorld('power-loss');
    world.cluster.crash(first.name, { powerLoss: true });
    const started = world.kernel.now();
    const error = (await world.driver.wait(rejectionOf(log.txn(put('/k', 'v'))))) as LockLogError;
    expect([error.code, error.outcome]).toEqual(['timeout', 'indeterminate']);
    expect(world.kernel.now() - started).toBeCloseTo(8_000, 0);
    const next = await world.driver.wait(log.range({ key: '/k' }));
    expect(next.header.memberId).toBe(second.memberId);
  });

  it('a read on a member that lost power is answered by the next one after the hedge delay, which serves later calls (issue 35)', async () => {
    const { world, first, second, log } = await twoEndpointWorld('power-loss-read');
    world.cluster.crash(first.name, { powerLoss: true });
    const started = world.kernel.now();
    const read = await world.driver.wait(log.range({ key: '/k' }));
    expect(read.header.memberId).toBe(second.memberId);
    expect(world.kernel.now() - started).toBeGreaterThanOrEqual(HEDGE_AFTER_MS);
    expect(world.kernel.now() - started).toBeLessThan(HEDGE_AFTER_MS + 100);
    expect(log.currentEndpoint).toBe(second.name);
  });

  it('negative control: unhedged, the same read waits out its whole deadline on the silent member', async () => {
    const { world, first, log } = await twoEndpointWorld('power-loss-read-unhedged', { hedgeAfterMs: Number.POSITIVE_INFINITY });
    world.cluster.crash(first.name, { powerLoss: true });
    const started = world.kernel.now();
    const error = (await world.driver.wait(rejectionOf(log.range({ key: '/k' })))) as LockLogError;
    expect([error.code, error.outcome]).toEqual(['timeout', 'failed']);
    expect(world.kernel.now() - started).toBeCloseTo(8_000, 0);
  });

  it('a txn with its own shorter deadline times out at it (indeterminate), and the next call moves on (issue 12)', async () => {
    const { world, first, second, log } = await twoEndpointWorld('own-deadline');
    world.cluster.crash(first.name, { powerLoss: true });
    const started = world.kernel.now();
    const error = (await world.driver.wait(rejectionOf(log.txn({ ...put('/k', 'v'), timeoutMs: 750 })))) as LockLogError;
    expect([error.code, error.outcome]).toEqual(['timeout', 'indeterminate']);
    expect(world.kernel.now() - started).toBeCloseTo(750, 0);
    const next = await world.driver.wait(log.txn({ ...put('/k', 'v'), timeoutMs: 60_000 })); // a longer one is capped at the client's own
    expect(next.header.memberId).toBe(second.memberId);
  });

  it('refuses calls after close, and close fails the calls in flight with cancelled', async () => {
    const { world, log } = await twoEndpointWorld('close');
    const pending = log.txn(put('/k', 'v'));
    await world.driver.wait(log.close());
    expect(isLockLogError(await world.driver.wait(rejectionOf(pending)), 'cancelled')).toBe(true);
    expect(isLockLogError(await world.driver.wait(rejectionOf(log.range({ key: '/k' }))), 'cancelled')).toBe(true);
  });
});

describe('SimLockLog watches that break', () => {
  async function watching(seed: string) {
    const setup = await twoEndpointWorld(seed);
    const batches: WatchBatch[] = [];
    const errors: LockLogError[] = [];
    await setup.world.driver.wait(setup.log.watch({ key: '/w', prefix: true }, { onEvents: (b) => batches.push(b), onError: (e) => errors.push(e) }));
    const writer = setup.world.driver.lockLog(setup.world.client('writer', { endpoints: [setup.second] }).log);
    await writer.txn(put('/w/1', 'a'));
    await setup.world.driver.runUntil(() => batches.length === 1, 1_000);
    return { ...setup, batches, errors, writer };
  }

  it('ends with unavailable moments after its member crashes', async () => {
    const { world, first, errors } = await watching('watch-crash');
    world.cluster.crash(first.name);
    await world.driver.runFor(10);
    expect(errors.map((e) => e.code)).toEqual(['unavailable']);
  });

  it('ends with unavailable within keepalive time + timeout (15 s) when a partition cuts it off', async () => {
    const { world, first, errors, writer, batches } = await watching('watch-partition');
    const cutAt = world.kernel.now();
    world.cluster.partition({ from: ['client'], to: [first.name] });
    await writer.txn(put('/w/2', 'lost'));
    await world.driver.runUntil(() => errors.length > 0, 20_000);
    expect(errors.map((e) => e.code)).toEqual(['unavailable']);
    expect(world.kernel.now() - cutAt).toBeLessThanOrEqual(15_000);
    expect(batches).toHaveLength(1);
  });

  it('ends with unavailable when a message of the stream was lost and a later one arrives', async () => {
    const { world, first, errors, writer, batches } = await watching('watch-gap');
    const partition = world.cluster.partition({ from: [first.name], to: ['client'], direction: 'one-way' });
    await writer.txn(put('/w/2', 'lost'));
    await world.driver.runFor(50);
    world.cluster.heal(partition);
    await writer.txn(put('/w/3', 'after the gap'));
    await world.driver.runUntil(() => errors.length > 0, 1_000);
    expect(errors.map((e) => e.code)).toEqual(['unavailable']);
    expect(errors[0]?.message).toContain('lost messages');
    expect(batches).toHaveLength(1);
  });

  it('is cancelled on the member when the client process dies (its machine resets the connection)', async () => {
    const { world, first, process } = await watching('watch-client-crash');
    expect(first.current?.watches.open).toBe(1);
    process.crash();
    await world.driver.runFor(10);
    expect(first.current?.watches.open).toBe(0);
    expect(first.state?.watches.counts).toEqual({ synced: 0, unsynced: 0 });
  });
});

describe('SimLockLog keepalive hedge (core/ports/hedge.ts, issue 11 L6)', () => {
  /** The first endpoint takes requests and answers none (the swarm's stuck-member fault); the second is healthy. */
  async function stuckFirst(seed: string, options: { hedgeAfterMs?: number; keepAliveTimeoutMs?: number } = {}) {
    const world = clusterWorld(yieldToHost, seed, {}, true);
    const leader = await settledLeader(world);
    const [first, second] = world.cluster.members.filter((m) => m.name !== leader);
    const { log, process } = world.client('client', { endpoints: [first!, second!], ...options });
    const lease = await world.driver.wait(log.leaseGrant(5));
    world.cluster.partition({ from: [first!.name], to: [process.name], direction: 'one-way' });
    return { world, log, lease, second: second! };
  }

  it('renews through the next member when the first is stuck, soon after the hedge delay, and stays there', async () => {
    const { world, log, lease, second } = await stuckFirst('hedge-stuck');
    const sentAt = world.kernel.now();
    const renewed = await world.driver.wait(log.leaseKeepAlive(lease.id));
    const tookMs = world.kernel.now() - sentAt;
    expect(renewed.ttlSeconds).toBe(5);
    expect(tookMs).toBeGreaterThanOrEqual(HEDGE_AFTER_MS);
    expect(tookMs).toBeLessThan(KEEPALIVE_TIMEOUT_MS);
    expect(log.currentEndpoint).toBe(second.name); // the member that answered serves the next call
  });

  it('negative control: unhedged, the keepalive waits on the stuck member past a TTL-5 s fence budget', async () => {
    const { world, log, lease } = await stuckFirst('hedge-off', UNHEDGED_KEEPALIVE);
    const sentAt = world.kernel.now();
    const error = (await world.driver.wait(rejectionOf(log.leaseKeepAlive(lease.id)))) as LockLogError;
    expect(error.code).toBe('timeout');
    expect(world.kernel.now() - sentAt).toBeGreaterThan(2 * 5_000 / 3 - 1_000); // ADR-12: the fence would come first
  });

  it('ends at the keepalive deadline when no member answers', async () => {
    const { world, log, lease } = await stuckFirst('hedge-none');
    world.cluster.partition({ from: world.cluster.members.map((m) => m.name), to: ['client'], direction: 'one-way' });
    const sentAt = world.kernel.now();
    const error = (await world.driver.wait(rejectionOf(log.leaseKeepAlive(lease.id)))) as LockLogError;
    expect(error.code).toBe('timeout');
    expect(world.kernel.now() - sentAt).toBeGreaterThanOrEqual(KEEPALIVE_TIMEOUT_MS);
    expect(world.kernel.now() - sentAt).toBeLessThan(KEEPALIVE_TIMEOUT_MS + 50);
  });
});
