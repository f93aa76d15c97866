// Bad input on real etcd: every refusal is a typed LockError decided before anything is written (the
// cluster's revision is the same before and after), authorisation is decided before any read and says
// the same whether or not the key exists (ADR-19), and a key homed to another region is redirected
// before the log is touched at all (ADR-08).
import { advanceEpochByTwo } from './two-person.js';
import { authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { ALICE, BILLER, BOB, FENCED, FENCED_SHORT, OTHER_NAMESPACE, lockErrorOf, useArbiterWorld, OPERATORS } from '../../src/testing/arbiter-fixture.js';
import { DelegatingLockLog } from '../../src/testing/delegating-lock-log.js';
import type { LockError } from '../lock-error.js';
import type { LockLog } from '../ports/lock-log.js';
import { type ShardMap, placementFor } from '../shards/shard-map.js';
import { EPOCH_LIMIT, REVISION_BITS, formatToken, packToken } from '../token.js';
import { EPOCH_KEY } from './records.js';

const world = useArbiterWorld();

/** The LockError of `call`, checking that the cluster's revision did not move: nothing was written. */
async function refusedWithoutWrite(call: () => Promise<unknown>, log: LockLog = world.log()): Promise<LockError> {
  const before = await world.revision(log);
  const error = await lockErrorOf(call());
  expect(await world.revision(log)).toBe(before);
  return error;
}

const BAD_KEYS: ReadonlyArray<[string, string]> = [
  ['empty', ''],
  ['over 256 characters', `orders/${'x'.repeat(260)}`],
  ['a BEL control character', 'orders/ring\u0007bell'],
  ['a newline', 'orders/line\nbreak'],
  ['a C1 control character', 'orders/c1\u0085next'],
];

const BAD_TOKENS: ReadonlyArray<[string, string]> = [
  ['empty', ''],
  ['non-numeric', 'abc'],
  ['negative', '-1'],
  ['signed', '+7'],
  ['leading zero', '0123'],
  ['fractional', '1.5'],
  ['padded', ' 42'],
  ['epoch 2^15', ((1n << 15n) << REVISION_BITS).toString()],
  ['over 2^63', '99999999999999999999'],
];

describe('bad input on real etcd', () => {
  it.each(BAD_KEYS)('refuses a key that is %s with invalid-argument, in acquire, validate and inspect', async (_label, key) => {
    const arbiter = world.arbiter();
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    expect((await refusedWithoutWrite(() => arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 }))).code).toBe('invalid-argument');
    expect((await refusedWithoutWrite(() => arbiter.validate(authenticated(ALICE), { key, token: '1' }))).code).toBe('invalid-argument');
    expect((await refusedWithoutWrite(() => arbiter.inspect(OPERATORS[0], key))).code).toBe('invalid-argument');
  });

  it('denies a key outside the identity’s grants with one message, whether or not the key exists or its class does', async () => {
    const arbiter = world.arbiter();
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const key = world.key('invoice', OTHER_NAMESPACE);
    const attempt = (className: string) => arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className, waitMs: 0 });

    const whileFree = await refusedWithoutWrite(() => attempt(FENCED.name));
    const biller = await world.session(arbiter, BILLER, FENCED.ttlSeconds);
    await arbiter.acquire(authenticated(BILLER), { sessionId: biller.sessionId, key, className: FENCED.name, waitMs: 0 });
    const whileHeld = await refusedWithoutWrite(() => attempt(FENCED.name));
    const unknownClass = await refusedWithoutWrite(() => attempt('no-such-class'));

    expect(whileFree.code).toBe('denied');
    expect([whileHeld.code, whileHeld.message]).toEqual([whileFree.code, whileFree.message]);
    expect([unknownClass.code, unknownClass.message]).toEqual([whileFree.code, whileFree.message]);
  });

  it('denies validate() outside the asker’s grants before any read, with the same message whether or not the key is held (ADR-16/19)', async () => {
    const arbiter = world.arbiter();
    const key = world.key('ledger', OTHER_NAMESPACE);
    const validate = (token: string) => arbiter.validate(authenticated(ALICE), { key, token });
    const whileFree = await refusedWithoutWrite(() => validate('281474976710657'));
    const biller = await world.session(arbiter, BILLER, FENCED.ttlSeconds);
    const held = await arbiter.acquire(authenticated(BILLER), { sessionId: biller.sessionId, key, className: FENCED.name, waitMs: 0 });
    const whileHeld = await refusedWithoutWrite(() => validate(formatToken(held.token)));
    expect(whileFree.code).toBe('denied');
    expect([whileHeld.code, whileHeld.message]).toEqual([whileFree.code, whileFree.message]);
    // The namespace's own identity gets the answer.
    expect(await arbiter.validate(authenticated(BILLER), { key, token: formatToken(held.token) })).toEqual({ valid: true, currentToken: held.token });
  });

  it('refuses a class the key’s namespace does not declare with unknown-class', async () => {
    const arbiter = world.arbiter();
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const error = await refusedWithoutWrite(() => arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key: world.key('classless'), className: 'no-such-class', waitMs: 0 }));
    expect(error.code).toBe('unknown-class');
  });

  it.each(BAD_TOKENS)('refuses a token that is %s with invalid-argument, in validate and force-release', async (_label, token) => {
    const arbiter = world.arbiter();
    const key = world.key('token');
    expect((await refusedWithoutWrite(() => arbiter.validate(authenticated(ALICE), { key, token }))).code).toBe('invalid-argument');
    const force = { key, reason: 'checking token parsing', expectedToken: token };
    expect((await refusedWithoutWrite(() => arbiter.requestForceRelease(OPERATORS[0], force))).code).toBe('invalid-argument');
  });

  it('accepts the largest well-formed token (epoch 2^15 - 1) as a token, just not a valid one', async () => {
    const arbiter = world.arbiter();
    const largest = formatToken(packToken(EPOCH_LIMIT - 1, (1n << REVISION_BITS) - 1n));
    expect(await arbiter.validate(authenticated(ALICE), { key: world.key('largest'), token: largest })).toEqual({ valid: false, currentToken: undefined });
  });

  it.each([0, 4, 301, 5.5, Number.NaN, -15])('refuses a session TTL of %s s (outside 5..300) with invalid-argument', async (ttlSeconds) => {
    const arbiter = world.arbiter();
    expect((await refusedWithoutWrite(() => arbiter.openSession(authenticated(ALICE), { ttlSeconds }))).code).toBe('invalid-argument');
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY])('refuses waitMs %s with invalid-argument', async (waitMs) => {
    const arbiter = world.arbiter();
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const error = await refusedWithoutWrite(() => arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key: world.key('wait'), className: FENCED.name, waitMs }));
    expect(error.code).toBe('invalid-argument');
  });

  it('refuses a session used by another identity with session-mismatch, and the session stays its owner’s', async () => {
    const arbiter = world.arbiter();
    const bob = await world.session(arbiter, BOB, FENCED.ttlSeconds);
    const key = world.key('borrowed');
    const bobsGrant = await arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 0 });
    const alice = authenticated(ALICE);
    const bobs = { sessionId: bob.sessionId };

    const refusals = [
      await refusedWithoutWrite(() => arbiter.acquire(alice, { ...bobs, key: world.key('borrowed-other'), className: FENCED.name, waitMs: 0 })),
      await refusedWithoutWrite(() => arbiter.keepAlive(alice, bobs)),
      await refusedWithoutWrite(() => arbiter.release(alice, { ...bobs, key, token: bobsGrant.token })),
      await refusedWithoutWrite(() => arbiter.closeSession(alice, bobs)),
    ];
    expect(refusals.map((e) => e.code)).toEqual(['session-mismatch', 'session-mismatch', 'session-mismatch', 'session-mismatch']);
    expect((await arbiter.keepAlive(authenticated(BOB), { sessionId: bob.sessionId })).ttlSeconds).toBe(FENCED.ttlSeconds);
    expect((await world.holder(key))?.lease).toBe(bob.sessionId);
  });

  it('refuses a session whose TTL is not the class’s (one session per identity and TTL, ADR-10/11)', async () => {
    const arbiter = world.arbiter();
    const short = await world.session(arbiter, ALICE, FENCED_SHORT.ttlSeconds);
    const error = await refusedWithoutWrite(() => arbiter.acquire(authenticated(ALICE), { sessionId: short.sessionId, key: world.key('ttl'), className: FENCED.name, waitMs: 0 }));
    expect(error.code).toBe('invalid-argument');
    expect(error.message).toContain(`${FENCED.ttlSeconds} s`);
  });

  it('writes nothing on a brand-new log either, not even the epoch record, when the first calls are bad input or read-only (issue 11, H1)', async () => {
    const fresh = await world.startCluster({ init: false });
    const log = world.openLog(fresh.endpoints);
    const arbiter = world.arbiter({ log });
    const force = { key: world.key('fresh'), reason: 'checking token parsing', expectedToken: '007' };

    expect((await refusedWithoutWrite(() => arbiter.openSession(authenticated(ALICE), { ttlSeconds: 4 }), log)).code).toBe('invalid-argument');
    expect((await refusedWithoutWrite(() => arbiter.openSession(authenticated(''), { ttlSeconds: FENCED.ttlSeconds }), log)).code).toBe('invalid-argument');
    expect((await refusedWithoutWrite(() => arbiter.requestForceRelease(OPERATORS[0], force), log)).code).toBe('invalid-argument');
    expect((await refusedWithoutWrite(() => advanceEpochByTwo(arbiter, [OPERATORS[0], OPERATORS[0]], 'checking approvals'), log)).code).toBe('approval-required');
    // Well-formed requests on a log no operator has initialised are refused too, naming the fix, and write
    // nothing: no arbiter bootstraps an epoch record (S3), so reads cannot write one either (H1).
    const uninitialised = [
      () => arbiter.openSession(authenticated(ALICE), { ttlSeconds: FENCED.ttlSeconds }),
      () => arbiter.inspect(OPERATORS[0], force.key),
      () => arbiter.validate(authenticated(ALICE), { key: force.key, token: '7' }),
      () => arbiter.requestForceRelease(OPERATORS[0], { ...force, expectedToken: '7' }),
    ];
    for (const call of uninitialised) {
      const error = await refusedWithoutWrite(call, log);
      expect([error.code, error.seal?.kind]).toEqual(['sealed', 'no-epoch-record']);
      expect(error.message).toContain('lockstep init');
    }
    expect((await log.range({ key: EPOCH_KEY })).count).toBe(0);
  });

  it('redirects a key homed to another region, naming it, before any call to the log (ADR-08)', async () => {
    const map: ShardMap = {
      version: 3,
      regions: { eu: { coord: 'eu-coord', entity: ['eu-e1', 'eu-e2'] }, us: { coord: 'us-coord', entity: ['us-e1'] } },
      namespaces: { orders: 'eu', [OTHER_NAMESPACE]: 'us' },
    };
    const counting = new DelegatingLockLog(world.log());
    const arbiter = world.arbiter({ log: counting, placement: placementFor(map, 'eu') });
    const biller = await world.session(arbiter, BILLER, FENCED.ttlSeconds);
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const callsBefore = counting.calls.length;

    const error = await lockErrorOf(arbiter.acquire(authenticated(BILLER), { sessionId: biller.sessionId, key: world.key('abroad', OTHER_NAMESPACE), className: FENCED.name, waitMs: 0 }));
    expect([error.code, error.region]).toEqual(['redirect', 'us']);
    expect(error.message).toContain('us');
    expect(counting.calls.slice(callsBefore)).toEqual([]);

    // A key homed here is served by the same arbiter.
    const local = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key: world.key('at-home'), className: FENCED.name, waitMs: 0 });
    expect(local.reentered).toBe(false);
  });
});
