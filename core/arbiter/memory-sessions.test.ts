import { describe, expect, it } from 'vitest';
import { Kernel } from '../../sim/kernel/kernel.js';
import { leaseId } from '../units.js';
import { MemorySessions, isMemorySessionId } from './memory-sessions.js';

const kernel = (): Kernel => new Kernel({ seed: 'memory-sessions', yieldToHost: () => new Promise((done) => setImmediate(done)) });

describe('MemorySessions (ADR-04)', () => {
  it('hands out negative ids, different for two arbiters or runs, which no etcd lease has', () => {
    const clock = kernel();
    const a = new MemorySessions(clock, 'arbiter-1/1').open('alice', '', 5).sessionId;
    const b = new MemorySessions(clock, 'arbiter-1/2').open('alice', '', 5).sessionId;
    expect([isMemorySessionId(a), isMemorySessionId(b), a === b, isMemorySessionId(leaseId(7n))]).toEqual([true, true, false, false]);
  });

  it('expires a session its owner stops renewing, and refuses another identity', async () => {
    const clock = kernel();
    const sessions = new MemorySessions(clock, 'arbiter-1/1');
    const kept = sessions.open('alice', '', 5).sessionId;
    const dropped = sessions.open('bob', '', 5).sessionId;
    await clock.runUntil(4_000);
    expect(sessions.renew(kept, 'alice')).toBe(5);
    expect(() => sessions.renew(kept, 'bob')).toThrow(/session-mismatch/);
    await clock.runUntil(6_000);
    expect(sessions.takeExpired()).toEqual([dropped]);
    expect(() => sessions.ownedBy(dropped, 'bob')).toThrow(/session-expired/);
    sessions.clear();
    expect(() => sessions.ownedBy(kept, 'alice')).toThrow(/session-expired/);
  });
});
