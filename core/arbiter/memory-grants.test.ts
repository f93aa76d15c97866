import { describe, expect, it } from 'vitest';
import { Kernel } from '../../sim/kernel/kernel.js';
import { LockError, isLockError } from '../lock-error.js';
import { leaseId } from '../units.js';
import { type MemoryAsk, MemoryGrants } from './memory-grants.js';

const ask = (session: bigint, key = 'cache/k'): MemoryAsk => ({ key, namespace: 'cache', className: 'warm', identity: `id-${session}`, instance: '', sessionId: leaseId(session) });

function setUp() {
  const kernel = new Kernel({ seed: 'memory-grants', yieldToHost: () => new Promise((done) => setImmediate(done)) });
  const log: string[] = [];
  let id = 0;
  const grants = new MemoryGrants({
    clock: kernel,
    newId: () => `g${++id}`,
    record: async (hold) => void log.push(`grant ${hold.grantId} ${hold.ask.sessionId}`),
    recordEnd: async (hold, reason) => void log.push(`end ${hold.grantId} ${reason}`),
  });
  return { kernel, grants, log };
}

const codeOf = (promise: Promise<unknown>): Promise<string> => promise.then(() => 'granted', (error: unknown) => (isLockError(error) ? error.code : Promise.reject(error)));

describe('MemoryGrants (ADR-04)', () => {
  it('hands a key on in arrival order, recording each end before the next grant', async () => {
    const { kernel, grants, log } = setUp();
    await grants.acquire(ask(1n), 0);
    const second = grants.acquire(ask(2n), 10_000);
    const third = grants.acquire(ask(3n), 10_000);
    await kernel.runUntil(10);
    expect(await grants.end('cache/k', leaseId(1n), 'release')).toBe(true);
    expect((await second).hold.ask.sessionId).toBe(2n);
    await grants.end('cache/k', leaseId(2n), 'expiry');
    expect((await third).hold.ask.sessionId).toBe(3n);
    expect(log).toEqual(['grant g1 1', 'end g1 release', 'grant g2 2', 'end g2 expiry', 'grant g3 3']);
  });

  it('refuses a waiter whose wait ran out, and one whose session ended, and ends nothing of another session', async () => {
    const { kernel, grants } = setUp();
    await grants.acquire(ask(1n), 0);
    const late = codeOf(grants.acquire(ask(2n), 500));
    const gone = codeOf(grants.acquire(ask(3n), 60_000));
    await kernel.runUntil(1_000);
    expect(await late).toBe('wait-timeout');
    await grants.endSession(leaseId(3n), new LockError('session-expired', 'gone'), 'expiry');
    expect(await gone).toBe('session-expired');
    expect(await grants.end('cache/k', leaseId(2n), 'release')).toBe(false);
    expect(grants.holds.map((h) => h.ask.sessionId)).toEqual([1n]);
  });

  it('at recovery ends every hold and refuses every waiter; the table is empty after', async () => {
    const { grants, log } = setUp();
    await grants.acquire(ask(1n, 'cache/a'), 0);
    await grants.acquire(ask(2n, 'cache/b'), 0);
    const waiting = codeOf(grants.acquire(ask(3n, 'cache/a'), 60_000));
    await grants.endAll(new LockError('unavailable', 'the quorum is back'));
    expect(await waiting).toBe('unavailable');
    expect(log.filter((l) => l.startsWith('end'))).toEqual(['end g1 recovery', 'end g2 recovery']);
    expect(grants.holds).toEqual([]);
  });
});
