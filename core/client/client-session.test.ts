// ClientSession timing on a simulated clock (no etcd needed): the first keepalive counts from the
// open's send time, so a slow open is renewed at once instead of being fenced unused.
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../sim/kernel/kernel.js';
import { SimProcess } from '../../sim/process/process.js';
import type { ArbiterApi } from '../ports/arbiter-api.js';
import { leaseId } from '../units.js';
import { ClientSession } from './client-session.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

describe('ClientSession (ADR-12)', () => {
  it('renews a session whose open took longer than a keepalive period, before its fence deadline', async () => {
    const kernel = new Kernel({ seed: 'client-session', yieldToHost });
    const process = new SimProcess(kernel, { name: 'client' });
    const clock = process.clock();
    const keepalivesAtMs: number[] = [];
    const arbiter = {
      openSession: async () => {
        await clock.sleep(3_000); // a slow open: longer than TTL/3 and than TTL - margin - TTL/3
        return { sessionId: leaseId(1n), identity: 'a', ttlSeconds: 5 };
      },
      keepAlive: async () => {
        keepalivesAtMs.push(kernel.now());
        return { ttlSeconds: 5 };
      },
      closeSession: async () => undefined,
    } as unknown as ArbiterApi;
    let fencedAtMs: number | undefined;
    let session: ClientSession | undefined;
    void ClientSession.open({ arbiter, clock, identity: 'a', marginMs: 1_000, onFenced: () => (fencedAtMs = kernel.now()) }, 5).then((s) => (session = s));
    await kernel.runUntil(12_000);
    expect(keepalivesAtMs[0]).toBe(3_000); // due at send + TTL/3 = 1,667 ms: sent as soon as the open returned
    expect(fencedAtMs).toBeUndefined();
    expect(session?.canStart()).toBe(true);
  });

  it('fences at send time of the last good keepalive + TTL - margin when renewals stop', async () => {
    const kernel = new Kernel({ seed: 'client-session-2', yieldToHost });
    const process = new SimProcess(kernel, { name: 'client' });
    const clock = process.clock();
    let renewals = 0;
    const arbiter = {
      openSession: async () => ({ sessionId: leaseId(1n), identity: 'a', ttlSeconds: 6 }),
      keepAlive: async () => {
        renewals += 1;
        if (renewals > 1) await clock.sleep(60_000); // the second keepalive never comes back
        return { ttlSeconds: 6 };
      },
      closeSession: async () => undefined,
    } as unknown as ArbiterApi;
    let fencedAtMs: number | undefined;
    void ClientSession.open({ arbiter, clock, identity: 'a', marginMs: 1_000, onFenced: () => (fencedAtMs = kernel.now()) }, 6);
    await kernel.runUntil(20_000);
    // the first keepalive was sent at 2,000 ms (TTL/3) and answered: deadline 2,000 + 6,000 - 1,000
    expect(fencedAtMs).toBe(7_000);
  });
});
