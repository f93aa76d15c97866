// What the metrics decorator counts, against an arbiter stub whose answers the test chooses and a clock
// it moves by hand: grants and their latency, contention, holds and their duration, expiries without
// release (a session not renewed within its TTL, a release answered released:false), keepalive failures
// per class held, waiters, and the seal gauge. Undeclared classes share one label value.
import { describe, expect, it } from 'vitest';
import { ClassRegistry } from '../../core/classes/index.js';
import { LockError } from '../../core/lock-error.js';
import type { Grant } from '../../core/ports/arbiter-api.js';
import type { Clock } from '../../core/ports/clock.js';
import { type FencingToken, type LeaseId, leaseId } from '../../core/units.js';
import { createArbiterMetrics } from './arbiter-metrics.js';
import { type ArbiterService, authenticated } from '../../core/ports/caller.js';

const ALICE = 'spiffe://t/alice';
const SESSION = leaseId(7n);
const CLASSES = new ClassRegistry([
  { namespace: 'orders', name: 'writes', purpose: 'correctness', enforcement: 'fenced', resource: 'postgresql://db/orders', ttlSeconds: 15, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' },
]);

class HandClock implements Clock {
  nowMs = 1_000;
  now(): number {
    return this.nowMs;
  }
  sleep(): Promise<void> {
    return Promise.resolve();
  }
}

function grantOf(key: string, token: bigint): Grant {
  return { key, token: token as FencingToken, epoch: 1, revision: 5n, sessionId: SESSION, identity: ALICE, className: 'writes', reentered: false };
}

/** An arbiter whose acquire, release and keepAlive answers come from the test. */
function stubArbiter(clock: HandClock, script: { acquire?: () => Promise<Grant>; released?: boolean; keepAlive?: () => Promise<{ ttlSeconds: number }>; sealed?: boolean; heldBy?: () => LeaseId | undefined }): ArbiterService {
  const none = () => Promise.reject(new Error('not used'));
  return {
    openSession: async ({ identity }, { ttlSeconds }) => ({ sessionId: SESSION, identity, instance: '', ttlSeconds }),
    keepAlive: script.keepAlive ?? (async () => ({ ttlSeconds: 15 })),
    closeSession: async () => undefined,
    acquire: async () => {
      clock.nowMs += 4; // the grant takes 4 ms
      return (script.acquire ?? (async () => grantOf('orders/a', 1n << 48n)))();
    },
    release: async () => ({ released: script.released ?? true }),
    validate: none,
    inspect: script.heldBy === undefined ? none : async (_caller, key) => {
      const sessionId = script.heldBy?.();
      return { key, holder: sessionId === undefined ? undefined : { identity: ALICE, instance: '', sessionId, className: 'writes', token: (1n << 48n) as FencingToken }, enforcement: 'fenced' };
    },
    describeKey: none,
    requestForceRelease: none,
    approveForceRelease: none,
    requestEpochAdvance: none,
    approveEpochAdvance: none,
    status: async () => ({ epoch: 1, clusterId: 1n, sealed: script.sealed === true ? { kind: 'no-epoch-record' } : undefined }),
  };
}

async function value(metrics: ReturnType<typeof createArbiterMetrics>, name: string, labels: Record<string, string> = {}): Promise<number> {
  // A histogram's series are read from the histogram itself: `_sum` and `_count` name its parts.
  const metric = await metrics.registry.getSingleMetric(name.replace(/_(sum|count)$/, ''))?.get();
  const series = (metric?.values ?? []).filter((v) => (v as { metricName?: string }).metricName === undefined || (v as { metricName?: string }).metricName === name);
  const matching = series.filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return matching.reduce((sum, v) => sum + v.value, 0);
}

const ORDERS = { namespace: 'orders', class: 'writes', tier: 'entity', cluster: 'entity-1' };

describe('instrumentArbiter', () => {
  it('counts a grant, its latency and its hold; a release ends the hold with its duration', async () => {
    const clock = new HandClock();
    const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: CLASSES, clock });
    const api = metrics.instrument(stubArbiter(clock, {}));
    const session = await api.openSession(authenticated(ALICE), { ttlSeconds: 15 });
    const grant = await api.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: 'orders/a', className: 'writes', waitMs: 0 });
    expect(await value(metrics, 'lockstep_grants_total', ORDERS)).toBe(1);
    expect(await value(metrics, 'lockstep_holds', ORDERS)).toBe(1);
    expect(await value(metrics, 'lockstep_grant_latency_seconds_sum', ORDERS)).toBeCloseTo(0.004, 6);
    clock.nowMs += 2_500;
    await api.release(authenticated(ALICE), { sessionId: session.sessionId, key: 'orders/a', token: grant.token });
    expect(await value(metrics, 'lockstep_holds', ORDERS)).toBe(0);
    expect(await value(metrics, 'lockstep_hold_duration_seconds_sum', ORDERS)).toBeCloseTo(2.5, 6);
    expect(await value(metrics, 'lockstep_expiries_without_release_total')).toBe(0);
  });

  it('counts contention and wait-timeouts as contended, and undeclared classes under one label value', async () => {
    const clock = new HandClock();
    const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: CLASSES, clock });
    const refusals = [new LockError('contended', 'held'), new LockError('wait-timeout', 'held'), new LockError('denied', 'no grant')];
    const api = metrics.instrument(stubArbiter(clock, { acquire: () => Promise.reject(refusals.shift()) }));
    for (const key of ['orders/a', 'orders/b', 'other-ns/x']) {
      await api.acquire(authenticated(ALICE), { sessionId: SESSION, key, className: key.startsWith('orders') ? 'writes' : 'made-up', waitMs: 0 }).catch(() => undefined);
    }
    expect(await value(metrics, 'lockstep_contended_total', ORDERS)).toBe(2);
    expect(await value(metrics, 'lockstep_acquires_total', ORDERS)).toBe(2);
    expect(await value(metrics, 'lockstep_acquires_total', { namespace: '_undeclared', class: '_undeclared' })).toBe(1);
    expect(await metrics.registry.metrics()).not.toContain('other-ns');
  });

  it('a session not renewed within its TTL ends its holds as expiries without release; so does a release answered released:false', async () => {
    const clock = new HandClock();
    const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: CLASSES, clock });
    const keys = ['orders/a', 'orders/b'];
    const api = metrics.instrument(stubArbiter(clock, { acquire: async () => {
      const key = keys.shift();
      if (key === undefined) throw new LockError('contended', 'held');
      return grantOf(key, 1n << 48n);
    }, released: false }));
    const session = await api.openSession(authenticated(ALICE), { ttlSeconds: 15 });
    const first = await api.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: 'orders/a', className: 'writes', waitMs: 0 });
    await api.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: 'orders/b', className: 'writes', waitMs: 0 });
    await api.release(authenticated(ALICE), { sessionId: session.sessionId, key: first.key, token: first.token });
    expect(await value(metrics, 'lockstep_expiries_without_release_total', ORDERS)).toBe(1);
    clock.nowMs += 15_000; // within TTL + TTL/3 of the last renewal: not yet
    await api.acquire(authenticated(ALICE), { sessionId: SESSION, key: 'orders/c', className: 'writes', waitMs: 0 }).catch(() => undefined);
    expect(await value(metrics, 'lockstep_expiries_without_release_total', ORDERS)).toBe(1);
    clock.nowMs += 10_000;
    await api.acquire(authenticated(ALICE), { sessionId: SESSION, key: 'orders/c', className: 'writes', waitMs: 0 }).catch(() => undefined);
    expect(await value(metrics, 'lockstep_expiries_without_release_total', ORDERS)).toBe(2);
    expect(await value(metrics, 'lockstep_holds', ORDERS)).toBe(0);
  });

  it('a failed keepalive counts once per class the session holds; session-expired ends its holds', async () => {
    const clock = new HandClock();
    const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: CLASSES, clock });
    const api = metrics.instrument(stubArbiter(clock, { keepAlive: () => Promise.reject(new LockError('session-expired', 'gone')) }));
    const session = await api.openSession(authenticated(ALICE), { ttlSeconds: 15 });
    await api.keepAlive(authenticated(ALICE), { sessionId: session.sessionId }).catch(() => undefined);
    expect(await value(metrics, 'lockstep_keepalive_failures_total', { namespace: '_none' })).toBe(1);
    await api.openSession(authenticated(ALICE), { ttlSeconds: 15 });
    await api.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: 'orders/a', className: 'writes', waitMs: 0 });
    await api.keepAlive(authenticated(ALICE), { sessionId: session.sessionId }).catch(() => undefined);
    expect(await value(metrics, 'lockstep_keepalive_failures_total', ORDERS)).toBe(1);
    expect(await value(metrics, 'lockstep_expiries_without_release_total', ORDERS)).toBe(1);
  });

  it('counts a hold on the arbiter that granted it when the session was opened and is renewed on another (issue 29)', async () => {
    const clock = new HandClock();
    const sessionSide = createArbiterMetrics({ cluster: 'entity-1', classes: CLASSES, clock });
    const keySide = createArbiterMetrics({ cluster: 'entity-1', classes: CLASSES, clock });
    let inLog: LeaseId | undefined = SESSION;
    const keys = ['orders/a', 'orders/b'];
    const opener = sessionSide.instrument(stubArbiter(clock, {}));
    const granter = keySide.instrument(stubArbiter(clock, { acquire: async () => grantOf(keys.shift() ?? 'orders/z', 1n << 48n), heldBy: () => inLog }));
    const session = await opener.openSession(authenticated(ALICE), { ttlSeconds: 15 });
    await granter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key: 'orders/a', className: 'writes', waitMs: 0 });
    // Before the fix the granting arbiter knew no such session and counted nothing: 0 + 0 while a hold was active.
    expect([await value(sessionSide, 'lockstep_holds', ORDERS), await value(keySide, 'lockstep_holds', ORDERS)]).toEqual([0, 1]);
    await opener.keepAlive(authenticated(ALICE), { sessionId: session.sessionId });

    // A TTL on, the log still holds it (the control): it stays counted, and no expiry.
    clock.nowMs += 16_000;
    await granter.release(authenticated(ALICE), { sessionId: session.sessionId, key: 'orders/none', token: (1n << 48n) as FencingToken });
    await new Promise((resolve) => setImmediate(resolve));
    expect([await value(keySide, 'lockstep_holds', ORDERS), await value(keySide, 'lockstep_expiries_without_release_total', ORDERS)]).toEqual([1, 0]);

    // Another TTL on, the log no longer holds it: ended, once, as an expiry without release, with its duration.
    inLog = undefined;
    clock.nowMs += 16_000;
    await granter.release(authenticated(ALICE), { sessionId: session.sessionId, key: 'orders/none', token: (1n << 48n) as FencingToken });
    await new Promise((resolve) => setImmediate(resolve));
    expect([await value(keySide, 'lockstep_holds', ORDERS), await value(keySide, 'lockstep_expiries_without_release_total', ORDERS)]).toEqual([0, 1]);
    expect(await value(keySide, 'lockstep_hold_duration_seconds_sum', ORDERS)).toBeCloseTo(32, 0);
  });

  it('waiters count acquires in line, and the seal gauge follows status and sealed refusals', async () => {
    const clock = new HandClock();
    const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: CLASSES, clock });
    let finish: (grant: Grant) => void = () => undefined;
    const api = metrics.instrument(stubArbiter(clock, { acquire: () => new Promise((resolve) => (finish = resolve)), sealed: true }));
    const waiting = api.acquire(authenticated(ALICE), { sessionId: SESSION, key: 'orders/a', className: 'writes', waitMs: 5_000 });
    expect(await value(metrics, 'lockstep_waiters', ORDERS)).toBe(1);
    await Promise.resolve();
    finish(grantOf('orders/a', 1n << 48n));
    await waiting;
    expect(await value(metrics, 'lockstep_waiters', ORDERS)).toBe(0);
    expect(await value(metrics, 'lockstep_sealed', { cluster: 'entity-1' })).toBe(0);
    await api.status(authenticated(ALICE));
    expect(await value(metrics, 'lockstep_sealed', { cluster: 'entity-1' })).toBe(1);
  });
  it('counts a grant from memory (ADR-04) as unprotected, once, and an etcd grant not (the control)', async () => {
    const clock = new HandClock();
    const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: CLASSES, clock });
    const grants = [{ ...grantOf('orders/a', 0n), unprotected: true }, { ...grantOf('orders/a', 0n), unprotected: true, reentered: true }, grantOf('orders/b', 1n << 48n)];
    const api = metrics.instrument(stubArbiter(clock, { acquire: async () => grants.shift() ?? grantOf('orders/c', 1n << 48n) }));
    for (const key of ['orders/a', 'orders/a', 'orders/b']) await api.acquire(authenticated(ALICE), { sessionId: SESSION, key, className: 'writes', waitMs: 0 });
    expect(await value(metrics, 'lockstep_unprotected_grants_total', ORDERS)).toBe(1);
    expect(await value(metrics, 'lockstep_grants_total', ORDERS)).toBe(3);
  });
});
