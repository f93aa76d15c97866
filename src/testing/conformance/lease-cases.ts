// Leases as etcd's lessor keeps them (etcd-behaviour.md section 1): minimum TTL, keepalive answers,
// attached keys, revoke and expiry deleting every attached key at one revision.
import { expect, it } from 'vitest';
import { isLockLogError } from '../../../core/ports/lock-log-error.js';
import { leaseId } from '../../../core/units.js';
import { type SuiteContext, plus, put, recordWatch, settle, shortKeys, waitUntil } from './context.js';

const MIN_TTL_SECONDS = 2; // etcd's minLeaseTTL with default timing (etcd-behaviour.md 0)
const EXPIRY_WAIT_MS = 10_000; // TTL 2 s + 500 ms expiry scan + a revoke proposal, with room to spare

export function registerLeaseCases(ctx: SuiteContext): void {
  it('raises a TTL below the minimum to 2 s and grants larger TTLs as asked', async () => {
    const { log } = ctx.target();
    const short = await log.leaseGrant(1);
    const long = await log.leaseGrant(17);
    expect([short.ttlSeconds, long.ttlSeconds]).toEqual([MIN_TTL_SECONDS, 17]);
    expect(short.id).not.toBe(long.id);
    expect(short.id).not.toBe(0n);
    await log.leaseRevoke(short.id);
    await log.leaseRevoke(long.id);
  });

  it('answers a keepalive with the granted TTL, and with 0 once the lease is gone', async () => {
    const { log } = ctx.target();
    const lease = await log.leaseGrant(10);
    const renewed = await log.leaseKeepAlive(lease.id);
    expect([renewed.id, renewed.ttlSeconds]).toEqual([lease.id, 10]);
    await log.leaseRevoke(lease.id);
    const afterRevoke = await log.leaseKeepAlive(lease.id);
    expect([afterRevoke.id, afterRevoke.ttlSeconds]).toEqual([lease.id, 0]);
    const neverGranted = leaseId(0x7e57_0000_0002n);
    expect((await log.leaseKeepAlive(neverGranted)).ttlSeconds).toBe(0);
  });

  it('lists attached keys in time-to-live, and revoke deletes them all at one revision', async () => {
    const { log, clock } = ctx.target();
    const prefix = ctx.prefix('lease-revoke');
    const lease = await log.leaseGrant(30);
    await put(log, `${prefix}a`, '1', lease.id);
    const last = await put(log, `${prefix}b`, '2', lease.id);
    expect((await log.range({ key: prefix, prefix: true })).kvs.map((kv) => kv.lease)).toEqual([lease.id, lease.id]);

    const ttl = await log.leaseTimeToLive(lease.id, { keys: true });
    expect([ttl.id, ttl.grantedTtlSeconds]).toEqual([lease.id, 30]);
    expect(ttl.ttlSeconds).toBeGreaterThan(0);
    expect(ttl.ttlSeconds).toBeLessThanOrEqual(30);
    expect([...ttl.keys].sort()).toEqual([`${prefix}a`, `${prefix}b`]); // etcd lists them in no fixed order
    expect((await log.leaseTimeToLive(lease.id)).keys).toEqual([]); // keys only when asked

    const watched = await recordWatch(log, { key: prefix, prefix: true, startRevision: plus(last, 1) });
    const revoked = await log.leaseRevoke(lease.id);
    expect(revoked.header.revision).toBe(plus(last, 1));
    await waitUntil(clock, 'the delete events of the revoke', () => watched.batches.length > 0);
    await settle(clock);
    expect(watched.lines().sort()).toEqual([`delete ${prefix}a@${plus(last, 1)}`, `delete ${prefix}b@${plus(last, 1)}`]);
    expect(watched.batches).toHaveLength(1);
    await watched.watch.cancel();

    expect((await log.range({ key: prefix, prefix: true })).kvs).toEqual([]);
    expect((await log.leaseTimeToLive(lease.id)).ttlSeconds).toBe(-1);
    const again = await log.leaseRevoke(lease.id).catch((e: unknown) => e);
    expect(isLockLogError(again, 'lease-not-found')).toBe(true);
  });

  it('expires a lease that is not kept alive, deleting its keys at one revision', async () => {
    const { log, clock } = ctx.target();
    const prefix = ctx.prefix('lease-expiry');
    const grantedAt = clock.now();
    const lease = await log.leaseGrant(1);
    expect(lease.ttlSeconds).toBe(MIN_TTL_SECONDS);
    await put(log, `${prefix}a`, '1', lease.id);
    const last = await put(log, `${prefix}b`, '2', lease.id);
    const watched = await recordWatch(log, { key: prefix, prefix: true, startRevision: plus(last, 1) });

    await waitUntil(clock, 'the leased keys to expire', async () => (await log.range({ key: prefix, prefix: true })).count === 0, EXPIRY_WAIT_MS);
    // Not before the TTL (the leader's clock runs the lessor; allow for the test's clock being a bit off).
    expect(clock.now() - grantedAt).toBeGreaterThan(MIN_TTL_SECONDS * 1000 * 0.75);
    await waitUntil(clock, 'the delete events of the expiry', () => watched.batches.length > 0);
    await settle(clock);
    expect(watched.batches).toHaveLength(1);
    const deletedAt = watched.batches[0]?.events[0]?.kv.modRevision;
    expect(watched.batches[0]?.events.every((e) => e.type === 'delete' && e.kv.modRevision === deletedAt)).toBe(true);
    expect(shortKeys(prefix, watched.batches[0]?.events.map((e) => e.kv) ?? []).sort()).toEqual(['a', 'b']);
    expect(watched.errors).toEqual([]);
    await watched.watch.cancel();

    expect((await log.leaseTimeToLive(lease.id)).ttlSeconds).toBe(-1);
    expect((await log.leaseKeepAlive(lease.id)).ttlSeconds).toBe(0);
  });
}
