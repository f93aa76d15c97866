import { describe, expect, it } from 'vitest';
import { AssertionError } from '../assert.js';
import type { ReleaseRequest } from '../ports/arbiter-api.js';
import { leaseId, type FencingToken } from '../units.js';
import type { ClientSession } from './client-session.js';
import { KeyTraffic } from './key-traffic.js';

const session = {} as ClientSession; // KeyTraffic only keeps it
const release = (key: string, token: bigint): ReleaseRequest => ({ sessionId: leaseId(7n), key, token: token as FencingToken });
const token = (value: bigint): FencingToken => value as FencingToken;

describe('KeyTraffic', () => {
  it('names a token as being released when its release was sent while the acquire was in flight', () => {
    const traffic = new KeyTraffic();
    const ticket = traffic.beginAcquire('k');
    const pending = traffic.beginRelease(release('k', 10n), session);
    expect(traffic.releasedDuring(ticket, token(10n))).toBe(true);
    expect(traffic.releasedDuring(ticket, token(11n))).toBe(false); // another hold: a fresh grant
    traffic.settled(pending);
    expect(traffic.releasedDuring(ticket, token(10n))).toBe(true); // settled, but still the hold the release deleted
    traffic.endAcquire(ticket);
    expect(traffic.size).toBe(0);
  });

  it('counts a release still pending when the acquire is sent, and not one settled before it', () => {
    const traffic = new KeyTraffic();
    const settledBefore = traffic.beginRelease(release('k', 5n), session);
    traffic.settled(settledBefore);
    const stillPending = traffic.beginRelease(release('k', 9n), session);
    const ticket = traffic.beginAcquire('k');
    expect(traffic.releasedDuring(ticket, token(9n))).toBe(true);
    expect(traffic.releasedDuring(ticket, token(5n))).toBe(false);
    traffic.settled(stillPending);
    traffic.endAcquire(ticket);
  });

  it('keeps one pending release per key, and asserts the client never sends a second', () => {
    const traffic = new KeyTraffic();
    const pending = traffic.beginRelease(release('k', 5n), session);
    expect(traffic.pendingRelease('k')).toBe(pending);
    expect(() => traffic.beginRelease(release('k', 6n), session)).toThrow(AssertionError);
    expect(traffic.beginRelease(release('other', 6n), session)).toBeDefined();
    traffic.settled(pending);
    expect(traffic.pendingRelease('k')).toBeUndefined();
  });

  it('records one acquire in doubt per key until it is resolved, and forgets idle keys', () => {
    const traffic = new KeyTraffic();
    expect(traffic.doubtAcquire('k', session)).toBe(true);
    expect(traffic.doubtAcquire('k', session)).toBe(false);
    expect(traffic.acquireInDoubt('k')).toBe(session);
    traffic.resolvedAcquire('k');
    expect([traffic.acquireInDoubt('k'), traffic.size]).toEqual([undefined, 0]);
  });

  it('asserts an acquire ends only once', () => {
    const traffic = new KeyTraffic();
    const ticket = traffic.beginAcquire('k');
    traffic.endAcquire(ticket);
    expect(() => traffic.endAcquire(ticket)).toThrow(AssertionError);
  });
});
