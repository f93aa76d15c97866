// Issue 29, ADR-24: the arbiter tells a client which class governs a key, from its own registry, with the
// same refusal as acquire for a key outside the caller's grants (ADR-19).
import { authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { ALICE, BILLER, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';

const world = useArbiterWorld();

describe('describeKey', () => {
  it('answers the named class of the key\'s namespace with its TTL, enforcement and fairness', async () => {
    const arbiter = world.arbiter();
    expect(await arbiter.describeKey(authenticated(ALICE), { key: 'orders/o-1', className: 'fenced-durable' })).toEqual({
      key: 'orders/o-1', namespace: 'orders', className: 'fenced-durable', ttlSeconds: 15, enforcement: 'fenced', fairness: 'durable',
    });
  });

  it('refuses a key outside the caller\'s grants exactly as acquire does, whether or not its class exists', async () => {
    const arbiter = world.arbiter();
    const session = await world.session(arbiter, BILLER, 15);
    const described = await lockErrorOf(arbiter.describeKey(authenticated(BILLER), { key: 'orders/o-1', className: 'fenced-writes' }));
    const acquired = await lockErrorOf(arbiter.acquire(authenticated(BILLER), { sessionId: session.sessionId, key: 'orders/o-1', className: 'fenced-writes', waitMs: 0 }));
    expect([described.code, described.message]).toEqual([acquired.code, acquired.message]);
    expect(described.code).toBe('denied');
    // No class of that name: the same denial, so a denied caller learns nothing of the registry.
    expect((await lockErrorOf(arbiter.describeKey(authenticated(BILLER), { key: 'orders/o-1', className: 'no-such' }))).message).toBe(described.message);
  });
});
