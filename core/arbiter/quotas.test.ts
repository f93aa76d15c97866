// Issue 28: each per-identity quota refuses its identity at the limit, names the limit, and leaves every
// other identity alone; the renewal path is never refused; counts end with the session or the hold. The
// controls: the same call under a raised limit goes through, so the limit is what refused.
import { describe, expect, it } from 'vitest';
import { DEFAULT_IDENTITY_LIMITS, type IdentityLimits } from '../limits.js';
import { LockError, isLockError } from '../lock-error.js';
import { type ArbiterService, authenticated } from '../ports/caller.js';
import type { Clock } from '../ports/clock.js';
import { leaseId } from '../units.js';
import { QuotaGate } from './quotas.js';

const MALLORY = authenticated('spiffe://t/mallory');
const VICTOR = authenticated('spiffe://t/victor');

function manualClock(): Clock & { advance(ms: number): void } {
  let nowMs = 0;
  return { now: () => nowMs, sleep: async () => undefined, advance: (ms) => void (nowMs += ms) };
}

/** An arbiter that grants everything at once, except acquires with waitMs > 0, which wait until `wake`. */
function stubArbiter() {
  let next = 1n;
  const waiting: Array<() => void> = [];
  const expired = new Set<bigint>();
  const inner = {
    openSession: async (caller: { identity: string }, request: { ttlSeconds: number }) => ({ sessionId: leaseId(next++), identity: caller.identity, ttlSeconds: request.ttlSeconds }),
    keepAlive: async (_caller: unknown, request: { sessionId: bigint }) => {
      if (expired.has(request.sessionId)) throw new LockError('session-expired', 'gone');
      return { ttlSeconds: 15 };
    },
    closeSession: async () => undefined,
    acquire: async (caller: { identity: string }, request: { key: string; sessionId: bigint; waitMs: number }) => {
      if (request.waitMs > 0) await new Promise<void>((resolve) => waiting.push(resolve));
      return { key: request.key, token: 1n, epoch: 1, revision: 1n, sessionId: request.sessionId, identity: caller.identity, className: 'c', reentered: false };
    },
    release: async () => ({ released: true }),
    validate: async () => ({ valid: true, currentToken: 1n }),
    status: async () => ({ epoch: 1, clusterId: 1n, sealed: undefined }),
  } as unknown as ArbiterService;
  return { inner, wake: () => waiting.splice(0).forEach((resolve) => resolve()), expire: (id: bigint) => expired.add(id) };
}

function gate(limits: Partial<IdentityLimits>, raised: Partial<IdentityLimits> = {}) {
  const clock = manualClock();
  const stub = stubArbiter();
  const limitsOf = (identity: string): IdentityLimits => ({ ...DEFAULT_IDENTITY_LIMITS, ...limits, ...(identity === 'spiffe://t/raised' ? raised : {}) });
  return { clock, stub, quotas: new QuotaGate(stub.inner, { clock, limitsOf }) };
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  return promise.then(() => 'ok', (error: unknown) => (isLockError(error) ? `${error.code}: ${error.message}` : String(error)));
}

describe('per-identity quotas (issue 28)', () => {
  it('sessions: refused at the limit, naming it; another identity and a raised grant are not; an expired session frees its place', async () => {
    const { clock, quotas } = gate({ sessions: 2 }, { sessions: 3 });
    await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    expect(await refusal(quotas.openSession(MALLORY, { ttlSeconds: 15 }))).toMatch(/^resource-exhausted: .*limit \(sessions 2\)/);
    expect(await refusal(quotas.openSession(VICTOR, { ttlSeconds: 15 }))).toBe('ok');
    const raised = authenticated('spiffe://t/raised');
    for (let i = 0; i < 3; i++) expect(await refusal(quotas.openSession(raised, { ttlSeconds: 15 }))).toBe('ok'); // the control
    clock.advance(15_001); // not renewed within its TTL: the lease is gone
    expect(await refusal(quotas.openSession(MALLORY, { ttlSeconds: 15 }))).toBe('ok');
  });

  it('sessions: a closed one, or one the arbiter says expired, frees its place; a renewed one keeps it', async () => {
    const { clock, stub, quotas } = gate({ sessions: 2 });
    const a = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    const b = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    clock.advance(10_000);
    await quotas.keepAlive(MALLORY, { sessionId: a.sessionId });
    stub.expire(b.sessionId);
    expect(await refusal(quotas.keepAlive(MALLORY, { sessionId: b.sessionId }))).toMatch(/^session-expired/);
    clock.advance(10_000); // a was renewed 10 s ago: still counted
    await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    expect(await refusal(quotas.openSession(MALLORY, { ttlSeconds: 15 }))).toMatch(/sessions 2/);
    await quotas.closeSession(MALLORY, { sessionId: a.sessionId });
    expect(await refusal(quotas.openSession(MALLORY, { ttlSeconds: 15 }))).toBe('ok');
  });

  it('holds: refused at the limit (a key already held is not a new hold); a release frees it', async () => {
    const { quotas } = gate({ holds: 2 });
    const s = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    const acquire = (key: string) => quotas.acquire(MALLORY, { sessionId: s.sessionId, key, className: 'c', waitMs: 0 });
    await acquire('ns/a');
    await acquire('ns/b');
    expect(await refusal(acquire('ns/c'))).toMatch(/limit \(holds 2\)/);
    expect(await refusal(acquire('ns/a'))).toBe('ok'); // re-entry
    await quotas.release(MALLORY, { sessionId: s.sessionId, key: 'ns/a', token: 1n as never });
    expect(await refusal(acquire('ns/c'))).toBe('ok');
  });

  it('holds: a closed or expired session frees its holds; a session renewed past its first expiry keeps them', async () => {
    const { clock, quotas } = gate({ holds: 2 });
    const kept = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    const closed = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    const acquire = (sessionId: typeof kept.sessionId, key: string) => quotas.acquire(MALLORY, { sessionId, key, className: 'c', waitMs: 0 });
    await acquire(kept.sessionId, 'ns/kept');
    await acquire(closed.sessionId, 'ns/closed');
    expect(await refusal(acquire(kept.sessionId, 'ns/x'))).toMatch(/limit \(holds 2\)/);
    await quotas.closeSession(MALLORY, { sessionId: closed.sessionId });
    expect(await refusal(acquire(kept.sessionId, 'ns/x'))).toBe('ok'); // the closed session's hold is gone
    expect(await refusal(acquire(kept.sessionId, 'ns/y'))).toMatch(/limit \(holds 2\)/);
    clock.advance(10_000);
    await quotas.keepAlive(MALLORY, { sessionId: kept.sessionId }); // now expires at 25 s, not 15 s
    clock.advance(10_000); // past the first expiry: the renewed session and its two holds still count
    expect(await refusal(acquire(kept.sessionId, 'ns/y'))).toMatch(/limit \(holds 2\)/);
    clock.advance(5_001); // not renewed again: its holds end with it
    const fresh = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    expect(await refusal(acquire(fresh.sessionId, 'ns/y'))).toBe('ok');
  });

  it('waiters: refused at the limit while the others wait; another identity waits; the renewal path is exempt', async () => {
    const { stub, quotas } = gate({ waiters: 2 });
    const s = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    const v = await quotas.openSession(VICTOR, { ttlSeconds: 15 });
    const wait = (caller: typeof MALLORY, sessionId: typeof s.sessionId, key: string) => quotas.acquire(caller, { sessionId, key, className: 'c', waitMs: 1000 });
    const waiting = [wait(MALLORY, s.sessionId, 'ns/a'), wait(MALLORY, s.sessionId, 'ns/b'), wait(VICTOR, v.sessionId, 'ns/v')];
    expect(await refusal(wait(MALLORY, s.sessionId, 'ns/c'))).toMatch(/limit \(waiters 2\)/);
    expect(await refusal(quotas.acquire(MALLORY, { sessionId: s.sessionId, key: 'ns/d', className: 'c', waitMs: 0 }))).toBe('ok'); // not a waiter
    expect(await refusal(quotas.keepAlive(MALLORY, { sessionId: s.sessionId }))).toBe('ok');
    stub.wake();
    await Promise.all(waiting);
    const again = wait(MALLORY, s.sessionId, 'ns/c'); // the answered waiters freed their places
    stub.wake();
    expect(await refusal(again)).toBe('ok');
  });

  it('calls in flight: refused at the limit; another identity is served, and keepalives are exempt', async () => {
    const { stub, quotas } = gate({ concurrentCalls: 2 });
    const s = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    const waiting = ['ns/a', 'ns/b'].map((key) => quotas.acquire(MALLORY, { sessionId: s.sessionId, key, className: 'c', waitMs: 1000 }));
    expect(await refusal(quotas.validate(MALLORY, { key: 'ns/a', token: '1' }))).toMatch(/limit \(concurrentCalls 2\)/);
    expect(await refusal(quotas.validate(VICTOR, { key: 'ns/a', token: '1' }))).toBe('ok');
    expect(await refusal(quotas.keepAlive(MALLORY, { sessionId: s.sessionId }))).toBe('ok');
    stub.wake();
    await Promise.all(waiting);
    expect(await refusal(quotas.validate(MALLORY, { key: 'ns/a', token: '1' }))).toBe('ok');
  });

  it('call rate: the burst, then refused naming the rate; refilled with time; keepalives never refused', async () => {
    const { clock, quotas } = gate({ callsPerSecond: 10, callBurst: 5 });
    const s = await quotas.openSession(MALLORY, { ttlSeconds: 15 }); // one of the burst
    const validate = (caller = MALLORY) => refusal(quotas.validate(caller, { key: 'ns/a', token: '1' }));
    for (let i = 0; i < 4; i++) expect(await validate()).toBe('ok');
    expect(await validate()).toMatch(/callsPerSecond 10, callBurst 5/);
    expect(await validate(VICTOR)).toBe('ok');
    for (let i = 0; i < 20; i++) expect(await refusal(quotas.keepAlive(MALLORY, { sessionId: s.sessionId }))).toBe('ok');
    clock.advance(100);
    expect(await validate()).toBe('ok');
  });

  it('forgets identities that have nothing counted and a full bucket, so the table holds only the active', async () => {
    const { clock, quotas } = gate({});
    for (let i = 0; i < 1000; i++) {
      await quotas.validate(authenticated(`spiffe://t/passer-by-${i}`), { key: 'ns/a', token: '1' });
      clock.advance(1); // a bucket refills a call in 0.2 ms at the default rate
    }
    expect(quotas.trackedIdentities).toBeLessThan(300); // swept as the table doubled (the control: no sweep kept all 1,000)
    const s = await quotas.openSession(MALLORY, { ttlSeconds: 15 });
    clock.advance(60_000);
    for (let i = 0; i < 300; i++) {
      await quotas.validate(authenticated(`spiffe://t/later-${i}`), { key: 'ns/a', token: '1' });
      clock.advance(1);
    }
    await quotas.keepAlive(MALLORY, { sessionId: s.sessionId });
    expect(quotas.trackedIdentities).toBeLessThan(600);
  });
});
