// The arbiter's grants on real etcd (ADR-02/13/16): exclusivity, token order and encoding, the
// idempotent re-acquire of one session, the leak refusal, and validate().
import { authenticated } from '../ports/caller.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALICE, BOB, CAROL, FENCED, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { formatToken, unpackToken } from '../token.js';
import type { FencingToken } from '../units.js';
import { EPOCH_KEY, parseEpochRecord, parseHolderValue } from './records.js';

const world = useArbiterWorld();

describe('arbiter grants on real etcd', () => {
  it('grants a key to one session at a time: another identity gets contended at once with waitMs 0', async () => {
    const arbiter = world.arbiter();
    const key = world.key('exclusive');
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const bob = await world.session(arbiter, BOB, FENCED.ttlSeconds);
    const grant = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });

    const error = await lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 0 }));
    expect(error.code).toBe('contended');

    // The refusal changed nothing: etcd still holds Alice's grant, on her session's lease.
    const held = await world.holder(key);
    expect(held?.lease).toBe(alice.sessionId);
    expect(held?.createRevision).toBe(grant.revision);
    expect(parseHolderValue(held?.value ?? '')?.identity).toBe(ALICE);
  });

  it('mints strictly increasing tokens over many acquire/release cycles by several identities, each decoding to the epoch and its grant revision', async () => {
    const arbiter = world.arbiter();
    const identities = [ALICE, BOB, CAROL];
    const sessions = await Promise.all(identities.map((identity) => world.session(arbiter, identity, FENCED.ttlSeconds)));
    const keys = [world.key('order-a'), world.key('order-b'), world.key('order-c')];
    const tokens: FencingToken[] = [];

    const cycle = fc.record({ who: fc.integer({ min: 0, max: identities.length - 1 }), key: fc.integer({ min: 0, max: keys.length - 1 }) });
    await fc.assert(
      fc.asyncProperty(fc.array(cycle, { minLength: 4, maxLength: 10 }), async (cycles) => {
        for (const { who, key: keyIndex } of cycles) {
          const session = sessions[who];
          const key = keys[keyIndex];
          if (session === undefined || key === undefined) throw new Error('the generator drew out of range');
          const grant = await arbiter.acquire(authenticated(session.identity), { sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 });
          const held = await world.holder(key);
          const epoch = parseEpochRecord((await world.log().range({ key: EPOCH_KEY })).kvs[0]?.value ?? '')?.epoch;
          // ADR-02: token = epoch * 2^48 + the revision of the granting txn, which created the holder key.
          expect(unpackToken(grant.token)).toEqual({ epoch, revision: held?.createRevision });
          expect(grant.revision).toBe(held?.createRevision);
          expect(grant.epoch).toBe(epoch);
          const previous = tokens.at(-1);
          if (previous !== undefined) expect(grant.token).toBeGreaterThan(previous);
          tokens.push(grant.token);
          expect((await arbiter.release(authenticated(session.identity), { sessionId: session.sessionId, key, token: grant.token })).released).toBe(true);
        }
      }),
      { numRuns: 4 },
    );
    expect(tokens.length).toBeGreaterThanOrEqual(16);
  });

  it('answers a second acquire on the same session with the same grant, reentered, writing nothing', async () => {
    const arbiter = world.arbiter();
    const key = world.key('reenter');
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const first = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    const bob = await world.session(arbiter, BOB, FENCED.ttlSeconds); // moves the revision past the grant's
    await arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key: world.key('elsewhere'), className: FENCED.name, waitMs: 0 });
    const revisionBefore = await world.revision();
    expect(revisionBefore).toBeGreaterThan(first.revision);

    const second = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });

    expect(first.reentered).toBe(false);
    expect(second.reentered).toBe(true);
    expect(second.token).toBe(first.token);
    expect(await world.revision()).toBe(revisionBefore);
  });

  it('refuses the same identity under a second session with leak, not contended (ADR-13)', async () => {
    const arbiter = world.arbiter();
    const key = world.key('leak');
    const first = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const second = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    await arbiter.acquire(authenticated(ALICE), { sessionId: first.sessionId, key, className: FENCED.name, waitMs: 0 });

    const error = await lockErrorOf(arbiter.acquire(authenticated(ALICE), { sessionId: second.sessionId, key, className: FENCED.name, waitMs: 0 }));
    expect(error.code).toBe('leak');
    expect(error.message).toContain(String(first.sessionId));
    expect((await world.holder(key))?.lease).toBe(first.sessionId);
  });

  it('validates the current token, and neither a released one nor an older one', async () => {
    const arbiter = world.arbiter();
    const key = world.key('validate');
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const bob = await world.session(arbiter, BOB, FENCED.ttlSeconds);
    const older = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect(await arbiter.validate(authenticated(ALICE), { key, token: formatToken(older.token) })).toEqual({ valid: true, currentToken: older.token });

    await arbiter.release(authenticated(ALICE), { sessionId: alice.sessionId, key, token: older.token });
    expect(await arbiter.validate(authenticated(ALICE), { key, token: formatToken(older.token) })).toEqual({ valid: false, currentToken: undefined });

    const current = await arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 0 });
    expect(await arbiter.validate(authenticated(ALICE), { key, token: formatToken(older.token) })).toEqual({ valid: false, currentToken: current.token });
    expect(await arbiter.validate(authenticated(ALICE), { key, token: formatToken(current.token) })).toEqual({ valid: true, currentToken: current.token });
  });
});
