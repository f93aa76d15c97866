// LockHandle.fenceDeadlineMs (ADR-12) on a simulated clock: the deadline a process outside the client
// (src/lock's fence supervisor) holds the command to. It must be the very deadline at which onFence
// fires, move forward only when a keepalive succeeds, and count from the keepalive's send time.
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../sim/kernel/kernel.js';
import { SimProcess } from '../../sim/process/process.js';
import type { ArbiterApi, Grant } from '../ports/arbiter-api.js';
import { packToken } from '../token.js';
import { leaseId } from '../units.js';
import { LockClient } from './lock-client.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const TTL_SECONDS = 6;
const MARGIN_MS = 1_000;

describe('LockHandle.fenceDeadlineMs (ADR-12)', () => {
  it('is send time of the last successful keepalive + TTL - margin, and fences exactly there', async () => {
    const kernel = new Kernel({ seed: 'fence-deadline', yieldToHost });
    const clock = new SimProcess(kernel, { name: 'client' }).clock();
    let keepalives = 0;
    const arbiter = {
      openSession: async () => ({ sessionId: leaseId(1n), identity: 'a', ttlSeconds: TTL_SECONDS }),
      acquire: async (): Promise<Grant> => ({
        key: 'payments/x', token: packToken(1, 7n), epoch: 1, revision: 7n, sessionId: leaseId(1n), identity: 'a', className: 'c', reentered: false,
      }),
      keepAlive: async () => {
        keepalives += 1;
        // The first keepalive (sent at 2,000 ms) is answered 700 ms late; the second (4,000 ms) fails; the
        // retry (4,500 ms) never comes back.
        if (keepalives === 1) await clock.sleep(700);
        if (keepalives === 2) throw new Error('unavailable');
        if (keepalives >= 3) await clock.sleep(60_000);
        return { ttlSeconds: TTL_SECONDS };
      },
      closeSession: async () => undefined,
    } as unknown as ArbiterApi;
    const client = new LockClient({ arbiter, clock, identity: 'a', fenceMarginMs: MARGIN_MS });
    const seen: Array<[atMs: number, deadlineMs: number]> = [];
    let fencedAtMs: number | undefined;
    void client.acquire({ key: 'payments/x', className: 'c', ttlSeconds: TTL_SECONDS, onFence: () => (fencedAtMs = kernel.now()) }).then(async (handle) => {
      while (fencedAtMs === undefined) {
        seen.push([kernel.now(), handle.fenceDeadlineMs()]);
        await clock.sleep(250);
      }
    });
    await kernel.runUntil(20_000);
    const deadlines = seen.map(([, deadlineMs]) => deadlineMs);
    expect(deadlines[0]).toBe(0 + TTL_SECONDS * 1000 - MARGIN_MS); // from the open's send time, 0
    // From the send (2,000 ms), not the late answer (2,700 ms); the failed second keepalive moves nothing.
    expect([...new Set(deadlines)]).toEqual([5_000, 2_000 + TTL_SECONDS * 1000 - MARGIN_MS]);
    expect(deadlines.every((d, i) => i === 0 || d >= (deadlines[i - 1] ?? 0))).toBe(true);
    expect(seen.find(([, d]) => d === 7_000)?.[0]).toBeGreaterThanOrEqual(2_700); // moved only once answered
    expect(fencedAtMs).toBe(7_000);
  });
});
