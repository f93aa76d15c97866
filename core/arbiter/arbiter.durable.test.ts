// ADR-14's `fairness: durable` on real etcd: the line is kept in the log, so it survives an arbiter
// restart and spans arbiter replicas; waiter keys leave with a grant or a timeout.
import { type ArbiterService, authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { createRealClock } from '../../src/clock/index.js';
import { ALICE, BOB, CAROL, DURABLE, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { parseLockKey, waiterPrefixOf } from '../lock-key.js';
import type { Grant, Session } from '../ports/arbiter-api.js';
import { LockLogError } from '../ports/lock-log-error.js';
import type { TxnRequest, TxnResponse } from '../ports/lock-log.js';
import { DelegatingLockLog } from '../../src/testing/delegating-lock-log.js';

const world = useArbiterWorld();
const clock = createRealClock();
const LONG_WAIT_MS = 20_000;
const SETTLE_MS = 200;

async function waiterKeys(key: string): Promise<string[]> {
  return (await world.log().range({ key: waiterPrefixOf(parseLockKey(key)), prefix: true })).kvs.map((kv) => kv.key);
}

/** Keeps `session` renewed through `arbiter` until the returned function is called: a waiter whose client lives on. */
function keepRenewing(arbiter: ArbiterService, session: Session): () => void {
  let stopped = false;
  void (async () => {
    while (!stopped) {
      await arbiter.keepAlive(authenticated(session.identity), { sessionId: session.sessionId }).catch(() => undefined);
      await clock.sleep(1_000);
    }
  })();
  return () => {
    stopped = true;
  };
}

/** A log whose next txn that only deletes a waiter key (a waiter leaving its line) fails: nothing happened. */
class FailsNextLeave extends DelegatingLockLog {
  failed = 0;
  armed = true;

  override txn(request: TxnRequest): Promise<TxnResponse> {
    const leave = request.success.length === 1 && request.success[0]?.type === 'delete' && request.success[0].key.startsWith('/q/');
    if (this.armed && leave) {
      this.armed = false;
      this.failed += 1;
      return Promise.reject(new LockLogError('unavailable', 'the leave did not reach the log (test)'));
    }
    return super.txn(request);
  }
}

/** A log on which every txn that puts a waiter key (a waiter joining its line) commits, but its answer is lost. */
class LosesJoinAnswers extends DelegatingLockLog {
  lost = 0;
  losing = true;

  override async txn(request: TxnRequest): Promise<TxnResponse> {
    const join = request.success.length === 1 && request.success[0]?.type === 'put' && request.success[0].key.startsWith('/q/');
    const response = await super.txn(request);
    if (join && this.losing) {
      this.lost += 1;
      throw new LockLogError('timeout', 'the join committed but its answer was lost (test)', { outcome: 'indeterminate' });
    }
    return response;
  }
}

describe('durable fairness (ADR-14) on real etcd', () => {
  it('keeps a waiter ahead after its arbiter restarts, across replicas', async () => {
    const restarted = world.arbiter();
    const other = world.arbiter();
    const key = world.key('durable-line');
    const [a, b, c] = await Promise.all([ALICE, BOB, CAROL].map((identity) => world.session(other, identity, DURABLE.ttlSeconds)));
    if (a === undefined || b === undefined || c === undefined) throw new Error('three sessions were opened');
    const held = await other.acquire(authenticated(ALICE), { sessionId: a.sessionId, key, className: DURABLE.name, waitMs: 0 });

    const bobFirstTry = restarted.acquire(authenticated(BOB), { sessionId: b.sessionId, key, className: DURABLE.name, waitMs: LONG_WAIT_MS });
    await clock.sleep(SETTLE_MS);
    const order: string[] = [];
    const carol = other.acquire(authenticated(CAROL), { sessionId: c.sessionId, key, className: DURABLE.name, waitMs: LONG_WAIT_MS }).then((g) => (order.push('carol'), g));
    await clock.sleep(SETTLE_MS);
    expect(await waiterKeys(key)).toHaveLength(2);

    restarted.close(); // the arbiter holding Bob's in-memory place goes away...
    expect((await lockErrorOf(bobFirstTry)).code).toBe('unavailable');
    expect(await waiterKeys(key)).toHaveLength(2); // ...but not his place in the log (it is on his session)
    const comeback = world.arbiter();
    const bob = comeback.acquire(authenticated(BOB), { sessionId: b.sessionId, key, className: DURABLE.name, waitMs: LONG_WAIT_MS }).then((g) => (order.push('bob'), g));
    await clock.sleep(SETTLE_MS);

    await other.release(authenticated(ALICE), { sessionId: a.sessionId, key, token: held.token }); // wakes Carol's arbiter at once
    const bobGrant: Grant = await bob;
    expect(order).toEqual(['bob']);
    await comeback.release(authenticated(BOB), { sessionId: b.sessionId, key, token: bobGrant.token });
    const carolGrant = await carol;
    expect(order).toEqual(['bob', 'carol']);
    expect(carolGrant.token).toBeGreaterThan(bobGrant.token);
    expect(await waiterKeys(key)).toEqual([]); // each grant deleted its waiter key in the granting txn
  });

  it('grants a free parent key at once while a waiter waits for a key below it: the two lines are disjoint (L4)', async () => {
    const arbiter = world.arbiter();
    const parent = world.key('durable-parent');
    const child = `${parent}/b`;
    const [a, b, c] = await Promise.all([ALICE, BOB, CAROL].map((identity) => world.session(arbiter, identity, DURABLE.ttlSeconds)));
    if (a === undefined || b === undefined || c === undefined) throw new Error('three sessions were opened');
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: a.sessionId, key: child, className: DURABLE.name, waitMs: 0 });
    const bobWaits = arbiter.acquire(authenticated(BOB), { sessionId: b.sessionId, key: child, className: DURABLE.name, waitMs: LONG_WAIT_MS });
    await clock.sleep(SETTLE_MS);
    expect(await waiterKeys(child)).toHaveLength(1);

    // Before the fix the parent's line (/q/<parent>/) held Bob's key, ahead of Carol: she waited out her wait on a free key.
    const carol = await arbiter.acquire(authenticated(CAROL), { sessionId: c.sessionId, key: parent, className: DURABLE.name, waitMs: 2_000 });
    expect(carol.identity).toBe(CAROL);
    expect(await waiterKeys(parent)).toEqual([]); // the parent's line does not hold the child's waiter
    await arbiter.release(authenticated(ALICE), { sessionId: a.sessionId, key: child, token: held.token });
    expect((await bobWaits).identity).toBe(BOB);
  });

  it('removes a waiter key when the wait times out', async () => {
    const arbiter = world.arbiter();
    const key = world.key('durable-timeout');
    const [a, b] = await Promise.all([ALICE, BOB].map((identity) => world.session(arbiter, identity, DURABLE.ttlSeconds)));
    if (a === undefined || b === undefined) throw new Error('two sessions were opened');
    await arbiter.acquire(authenticated(ALICE), { sessionId: a.sessionId, key, className: DURABLE.name, waitMs: 0 });
    expect((await lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: b.sessionId, key, className: DURABLE.name, waitMs: 300 }))).code).toBe('wait-timeout');
    expect(await waiterKeys(key)).toEqual([]);
  });

  describe('an orphaned place does not block the line for as long as its waiter\'s session lives (L5)', () => {
    it('after its arbiter shut down and the waiter never came back', async () => {
      const gone = world.arbiter();
      const other = world.arbiter();
      const key = world.key('orphan-shutdown');
      const [a, b, c] = await Promise.all([ALICE, BOB, CAROL].map((identity) => world.session(other, identity, DURABLE.ttlSeconds)));
      if (a === undefined || b === undefined || c === undefined) throw new Error('three sessions were opened');
      const stopRenewing = keepRenewing(other, b); // Bob's client lives on, renewing his session elsewhere
      try {
        const held = await other.acquire(authenticated(ALICE), { sessionId: a.sessionId, key, className: DURABLE.name, waitMs: 0 });
        const bobWaits = lockErrorOf(gone.acquire(authenticated(BOB), { sessionId: b.sessionId, key, className: DURABLE.name, waitMs: LONG_WAIT_MS }));
        await clock.sleep(SETTLE_MS);
        const carol = other.acquire(authenticated(CAROL), { sessionId: c.sessionId, key, className: DURABLE.name, waitMs: 12_000 });
        await clock.sleep(SETTLE_MS);
        gone.close(); // Bob's arbiter shuts down; Bob gives up and never asks again
        expect((await bobWaits).code).toBe('unavailable');
        await other.release(authenticated(ALICE), { sessionId: a.sessionId, key, token: held.token });
        // Before the fix Bob's place lived on his session, first in line: Carol waited out her wait on a free
        // key, told "the key stayed held". Now it lives on the stopped arbiter's waiting lease and ends with it.
        expect((await carol).identity).toBe(CAROL);
        expect(await waiterKeys(key)).toEqual([]);
      } finally {
        stopRenewing();
      }
    });

    it('after its join committed but the answer was lost (swarm seed 131)', async () => {
      const lossy = new LosesJoinAnswers(world.log());
      const arbiter = world.arbiter({ log: lossy });
      const key = world.key('orphan-join');
      const [a, b, c] = await Promise.all([ALICE, BOB, CAROL].map((identity) => world.session(arbiter, identity, DURABLE.ttlSeconds)));
      if (a === undefined || b === undefined || c === undefined) throw new Error('three sessions were opened');
      const held = await arbiter.acquire(authenticated(ALICE), { sessionId: a.sessionId, key, className: DURABLE.name, waitMs: 0 });
      // Every copy of Bob's join commits and is not answered: his wait ends before he knows his place.
      expect((await lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: b.sessionId, key, className: DURABLE.name, waitMs: 600 }))).code).toBe('wait-timeout');
      expect(lossy.lost).toBeGreaterThanOrEqual(1);
      // Carol waits through the same arbiter, so its waiting lease stays renewed: before the fix Bob's place,
      // put by the join nobody heard back from and never left, stayed first in line; Carol waited out her
      // wait on a free key. Now Bob's failed acquire leaves the place it may have put.
      lossy.losing = false; // Carol's join is answered
      const carol = arbiter.acquire(authenticated(CAROL), { sessionId: c.sessionId, key, className: DURABLE.name, waitMs: 8_000 });
      await clock.sleep(SETTLE_MS);
      await arbiter.release(authenticated(ALICE), { sessionId: a.sessionId, key, token: held.token });
      expect((await carol).identity).toBe(CAROL);
      expect(await waiterKeys(key)).toEqual([]);
    });

    it('after its leave() failed', async () => {
      const log = new FailsNextLeave(world.log());
      const arbiter = world.arbiter({ log });
      const key = world.key('orphan-leave');
      const [a, b, c] = await Promise.all([ALICE, BOB, CAROL].map((identity) => world.session(arbiter, identity, DURABLE.ttlSeconds)));
      if (a === undefined || b === undefined || c === undefined) throw new Error('three sessions were opened');
      const stopRenewing = keepRenewing(arbiter, b);
      try {
        const held = await arbiter.acquire(authenticated(ALICE), { sessionId: a.sessionId, key, className: DURABLE.name, waitMs: 0 });
        const bobWaits = lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: b.sessionId, key, className: DURABLE.name, waitMs: 600 }));
        await clock.sleep(SETTLE_MS);
        const carol = arbiter.acquire(authenticated(CAROL), { sessionId: c.sessionId, key, className: DURABLE.name, waitMs: 8_000 });
        expect((await bobWaits).code).toBe('wait-timeout');
        expect(log.failed).toBe(1); // Bob's leave did not reach the log
        await arbiter.release(authenticated(ALICE), { sessionId: a.sessionId, key, token: held.token });
        expect((await carol).identity).toBe(CAROL);
        expect(await waiterKeys(key)).toEqual([]);
      } finally {
        stopRenewing();
      }
    });
  });
});
