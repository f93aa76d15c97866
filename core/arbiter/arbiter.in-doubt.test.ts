// Grants whose outcome the arbiter did not see (issue 11, L1/L2), on real etcd: the grant txn commits but
// its answer is lost (a timeout: indeterminate). The arbiter must resolve that by reading the holder key,
// as releases in doubt are, never guess: not report wait-timeout or a refusal while the caller's live
// session holds the key, and not re-join a durable line behind the waiter that waits for it.
import { authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { createRealClock } from '../../src/clock/index.js';
import { ALICE, BOB, CAROL, DURABLE, FENCED, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { DelegatingLockLog } from '../../src/testing/delegating-lock-log.js';
import { HOLDER_PREFIX, parseLockKey, waiterPrefixOf } from '../lock-key.js';
import { LockLogError } from '../ports/lock-log-error.js';
import type { RangeRequest, RangeResponse, TxnRequest, TxnResponse } from '../ports/lock-log.js';
import { packToken } from '../token.js';
import { EPOCH_KEY, parseEpochRecord } from './records.js';

const world = useArbiterWorld();
const clock = createRealClock();
const SETTLE_MS = 200;
const GRANT_AFTER_RELEASE_MS = 2_000;

const isGrant = (request: TxnRequest): boolean => request.success.some((op) => op.type === 'put' && op.key.startsWith(HOLDER_PREFIX));
const isRead = (request: TxnRequest): boolean => [...request.success, ...request.failure].every((op) => op.type === 'range');

/**
 * A log that loses the answers of the next committed grant txns (each after `answerAfterMs`); with
 * `silentAfterLoss` it answers nothing at all after the first loss (writes time out, reads fail).
 */
class LostAnswerLog extends DelegatingLockLog {
  loseGrants = 0;
  answerAfterMs = 0;
  silentAfterLoss = false;
  lost = 0;

  private get silent(): boolean {
    return this.silentAfterLoss && this.lost > 0;
  }

  override async txn(request: TxnRequest): Promise<TxnResponse> {
    if (this.silent) throw isRead(request) ? new LockLogError('unavailable', 'no answer (test)') : new LockLogError('timeout', 'no answer (test)', { outcome: 'indeterminate' });
    const response = await super.txn(request);
    if (response.succeeded && isGrant(request) && this.loseGrants > 0) {
      this.loseGrants -= 1;
      this.lost += 1;
      if (this.answerAfterMs > 0) await clock.sleep(this.answerAfterMs);
      throw new LockLogError('timeout', 'the answer was lost (test)', { outcome: 'indeterminate' });
    }
    return response;
  }

  override range(request: RangeRequest): Promise<RangeResponse> {
    if (this.silent) return Promise.reject(new LockLogError('unavailable', 'no answer (test)'));
    return super.range(request);
  }
}

/**
 * A log that holds the next grant txn on its way, as a paused member holds a request it already took:
 * the arbiter is told `timeout` after `answerAfterMs`, and the txn reaches etcd only after `deliverAfterMs`.
 */
class LateGrantLog extends DelegatingLockLog {
  holdNext = false;
  answerAfterMs = 300;
  deliverAfterMs = 1_200;
  /** Whether the held txn committed once it reached etcd; undefined until it did. */
  late: Promise<boolean> | undefined;

  override txn(request: TxnRequest): Promise<TxnResponse> {
    if (!this.holdNext || !isGrant(request)) return super.txn(request);
    this.holdNext = false;
    this.late = clock.sleep(this.deliverAfterMs).then(() => super.txn(request)).then((response) => response.succeeded);
    return clock.sleep(this.answerAfterMs).then(() => Promise.reject(new LockLogError('timeout', 'no answer yet (test: the txn is on its way)', { outcome: 'indeterminate' })));
  }
}

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, clock.sleep(ms).then(() => Promise.reject(new Error(`${what} did not happen within ${ms} ms`)))]);

async function currentEpoch(): Promise<number> {
  return parseEpochRecord((await world.log().range({ key: EPOCH_KEY })).kvs[0]?.value ?? '')?.epoch ?? -1;
}

describe('grants in doubt on real etcd (L1/L2)', () => {
  it('answers an arrival whose grant committed unseen with that grant, read from the holder key', async () => {
    const log = new LostAnswerLog(world.log());
    const arbiter = world.arbiter({ log });
    const key = world.key('arrival-in-doubt');
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    log.loseGrants = 1;
    // Before the fix the caller was told indeterminate, and the hold stayed on her live session unowned.
    const grant = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    const held = await world.holder(key);
    expect(log.lost).toBe(1);
    expect([grant.revision, grant.token, grant.reentered]).toEqual([held?.createRevision, packToken(await currentEpoch(), held?.createRevision ?? 0n), false]);
  });

  it('grants a waiter whose grant committed but was answered after its deadline, instead of wait-timeout with the key held', async () => {
    const log = new LostAnswerLog(world.log());
    const arbiter = world.arbiter({ log });
    const key = world.key('queued-in-doubt');
    const [alice, bob] = await Promise.all([ALICE, BOB].map((identity) => world.session(arbiter, identity, FENCED.ttlSeconds)));
    if (alice === undefined || bob === undefined) throw new Error('two sessions were opened');
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    const waiting = arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 1_000 });
    await clock.sleep(SETTLE_MS);
    log.loseGrants = 1;
    log.answerAfterMs = 1_200; // the (lost) answer comes after Bob's deadline
    await arbiter.release(authenticated(ALICE), { sessionId: alice.sessionId, key, token: held.token });
    const grant = await waiting;
    expect(log.lost).toBe(1);
    expect([grant.identity, grant.revision]).toEqual([BOB, (await world.holder(key))?.createRevision]);
  });

  it('answers indeterminate, never wait-timeout, when neither the grant nor a read of the holder key answered by the deadline', async () => {
    const log = new LostAnswerLog(world.log());
    const arbiter = world.arbiter({ log });
    const key = world.key('unresolved');
    const [alice, bob] = await Promise.all([ALICE, BOB].map((identity) => world.session(arbiter, identity, FENCED.ttlSeconds)));
    if (alice === undefined || bob === undefined) throw new Error('two sessions were opened');
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    const waiting = lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 600 }));
    await clock.sleep(SETTLE_MS);
    log.loseGrants = 1;
    log.silentAfterLoss = true;
    await arbiter.release(authenticated(ALICE), { sessionId: alice.sessionId, key, token: held.token });
    expect((await waiting).code).toBe('indeterminate');
    expect((await world.holder(key))?.lease).toBe(bob.sessionId); // it did commit: only "indeterminate" was honest
  });

  it('settles a grant txn still on its way so that it can no longer commit after the caller was refused (L2, swarm seed 617)', async () => {
    const log = new LateGrantLog(world.log());
    const arbiter = world.arbiter({ log });
    const key = world.key('late-grant');
    const [alice, bob] = await Promise.all([ALICE, BOB].map((identity) => world.session(arbiter, identity, FENCED.ttlSeconds)));
    if (alice === undefined || bob === undefined) throw new Error('two sessions were opened');
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    log.holdNext = true;
    // Bob's try-lock: its grant txn is held on the way; the settle finds Alice holding, so Bob is told contended.
    expect((await lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 0 }))).code).toBe('contended');
    await arbiter.release(authenticated(ALICE), { sessionId: alice.sessionId, key, token: held.token });
    // The held copy reaches etcd with the key free. Before the fix it committed: a hold on Bob's live
    // session that nobody was handed. The settle bumped Bob's grant guard, which the copy compares.
    expect(await log.late).toBe(false);
    expect(await world.holder(key)).toBeUndefined();
    // Bob can still be granted: the arbiter knows the guard's new version.
    expect((await arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 0 })).identity).toBe(BOB);
  });

  it('keeps a durable line moving after a grant that committed unseen: no re-join behind the waiter that waits for it (L1)', async () => {
    const log = new LostAnswerLog(world.log());
    const arbiter = world.arbiter({ log });
    const key = world.key('durable-in-doubt');
    const [alice, bob, carol] = await Promise.all([ALICE, BOB, CAROL].map((identity) => world.session(arbiter, identity, DURABLE.ttlSeconds)));
    if (alice === undefined || bob === undefined || carol === undefined) throw new Error('three sessions were opened');
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: DURABLE.name, waitMs: 0 });
    const bobWaits = arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: DURABLE.name, waitMs: 10_000 });
    await clock.sleep(SETTLE_MS);
    const carolWaits = arbiter.acquire(authenticated(CAROL), { sessionId: carol.sessionId, key, className: DURABLE.name, waitMs: 10_000 });
    await clock.sleep(SETTLE_MS);
    log.loseGrants = 1; // Bob's grant: it also deleted his waiter key
    await arbiter.release(authenticated(ALICE), { sessionId: alice.sessionId, key, token: held.token });
    // Before the fix Bob found his place gone, re-joined behind Carol, and both waited out their waits.
    const bobGrant = await within(bobWaits, GRANT_AFTER_RELEASE_MS, 'the grant to Bob');
    expect(log.lost).toBe(1);
    expect(bobGrant.revision).toBe((await world.holder(key))?.createRevision);
    await arbiter.release(authenticated(BOB), { sessionId: bob.sessionId, key, token: bobGrant.token });
    expect((await within(carolWaits, GRANT_AFTER_RELEASE_MS, 'the grant to Carol')).identity).toBe(CAROL);
    expect((await world.log().range({ key: waiterPrefixOf(parseLockKey(key)), prefix: true })).kvs).toEqual([]);
  });
});
