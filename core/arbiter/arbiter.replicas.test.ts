// Several arbiter replicas on one log (ADR-18: stateless arbiters) after an epoch advance made through
// one of them (ADR-03/09). Each replica caches the epoch record; every answer that packs or compares an
// epoch must be checked against the record in the same txn, not against that cache (issue 11, S2).
import { advanceEpochByTwo } from './two-person.js';
import { authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, DURABLE, FENCED, useArbiterWorld, OPERATORS } from '../../src/testing/arbiter-fixture.js';
import { formatToken, packToken, unpackToken } from '../token.js';
import type { Arbiter } from './arbiter.js';

const world = useArbiterWorld();
const REASON = 'moving the orders range to a new shard (CHG-5120)';

/** Two replicas that have both read the epoch record, then an advance through the first: the second's cache is stale. */
async function replicasAfterAdvance(): Promise<{ through: Arbiter; stale: Arbiter; epoch: number }> {
  const through = world.arbiter();
  const stale = world.arbiter();
  const before = [(await through.status()).epoch, (await stale.status()).epoch];
  const { epoch } = await advanceEpochByTwo(through, OPERATORS, REASON);
  expect(before).toEqual([epoch - 1, epoch - 1]);
  expect((await stale.status()).epoch).toBe(epoch - 1); // what it cached: nothing made it look again
  return { through, stale, epoch };
}

describe('arbiter replicas after an epoch advance through one of them (S2)', () => {
  it('releases, through the stale replica, a hold granted in the new epoch', async () => {
    const { through, stale, epoch } = await replicasAfterAdvance();
    const key = world.key('release-stale');
    const alice = await world.session(through, ALICE, FENCED.ttlSeconds);
    const grant = await through.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect(grant.epoch).toBe(epoch);

    // Before the fix the stale replica compared the token's epoch with its cache and answered
    // released:false without touching the log: the hold stayed on a live session.
    expect(await stale.release(authenticated(ALICE), { sessionId: alice.sessionId, key, token: grant.token })).toEqual({ released: true });
    expect(await world.holder(key)).toBeUndefined();
  });

  it('validates, through the stale replica, the current token and not the same revision under the old epoch', async () => {
    const { through, stale, epoch } = await replicasAfterAdvance();
    const key = world.key('validate-stale');
    const alice = await world.session(through, ALICE, FENCED.ttlSeconds);
    const grant = await through.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    const oldEpochToken = packToken(epoch - 1, grant.revision);

    // Before the fix: the current token invalid, the old-epoch one current.
    expect(await stale.validate(authenticated(BOB), { key, token: formatToken(grant.token) })).toEqual({ valid: true, currentToken: grant.token });
    expect(await stale.validate(authenticated(BOB), { key, token: formatToken(oldEpochToken) })).toEqual({ valid: false, currentToken: grant.token });
    expect((await stale.inspect(OPERATORS[0], key)).holder?.token).toBe(grant.token);
  });

  it('answers a re-acquire through the stale replica with the hold\'s own token, never one packed with the old epoch', async () => {
    const { through, stale, epoch } = await replicasAfterAdvance();
    const key = world.key('reacquire-stale');
    const alice = await world.session(through, ALICE, DURABLE.ttlSeconds);
    const grant = await through.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: DURABLE.name, waitMs: 0 });

    // A durable wait looks for the caller's own hold first (ownHold); before the fix it packed that hold
    // with the stale replica's cached epoch: a token below the one the holder already had.
    const again = await stale.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: DURABLE.name, waitMs: 1_000 });
    expect([again.token, again.epoch, again.reentered]).toEqual([grant.token, epoch, true]);
    expect(unpackToken(again.token).epoch).toBe(epoch);
  });
});
