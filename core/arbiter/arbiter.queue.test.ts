// Waiting in line on real etcd (ADR-14/15): FIFO order without overlap, the wait deadline, and the
// jittered one-second poll that rescues a waiter whose watch misses the release.
import { authenticated } from '../ports/caller.js';
import { describe, expect, it } from 'vitest';
import { createRealClock } from '../../src/clock/index.js';
import { ALICE, BOB, CAROL, DAVE, FENCED, lockErrorOf, useArbiterWorld } from '../../src/testing/arbiter-fixture.js';
import { DelegatingLockLog } from '../../src/testing/delegating-lock-log.js';
import { holderKeyOf, parseLockKey } from '../lock-key.js';
import type { Grant } from '../ports/arbiter-api.js';
import type { LockLog, TxnRequest, TxnResponse, Watch, WatchEvent, WatchHandlers, WatchRequest } from '../ports/lock-log.js';
import { revision } from '../units.js';
import { parseHolderValue } from './records.js';

const world = useArbiterWorld();
const clock = createRealClock();
const LONG_WAIT_MS = 20_000;
/** Long enough for an acquire to reach the queue (one txn on a local etcd) before the next one starts. */
const QUEUE_SETTLE_MS = 150;
/** A release wakes the head of the line at once (ADR-14); a second is generous on a local etcd. */
const GRANT_AFTER_RELEASE_MS = 1_000;

/** `promise`, or a failure naming `what` after `ms`: a waiter granted out of turn fails fast, not at the test timeout. */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([promise, clock.sleep(ms).then(() => Promise.reject(new Error(`${what} did not happen within ${ms} ms`)))]);
}

/** Every event on the holder key from `fromRevision` on, as etcd's own watch reports it. */
async function recordHolderEvents(log: LockLog, key: string, fromRevision: bigint): Promise<{ events: WatchEvent[]; watch: Watch }> {
  const events: WatchEvent[] = [];
  const watch = await log.watch(
    { key: holderKeyOf(parseLockKey(key)), startRevision: revision(fromRevision) },
    { onEvents: (batch) => events.push(...batch.events), onError: () => {} },
  );
  return { events, watch };
}

/** A log whose watches are opened for real but deliver nothing: every notification is lost (ADR-15). */
class BlindWatchLog extends DelegatingLockLog {
  droppedDeletes = 0;

  override watch(request: WatchRequest, _handlers: WatchHandlers): Promise<Watch> {
    this.calls.push('watch');
    const drop = (events: readonly WatchEvent[]) => void (this.droppedDeletes += events.filter((event) => event.type === 'delete').length);
    return this.target.watch(request, { onEvents: (batch) => drop(batch.events), onError: () => {} });
  }
}

/** A blind log (BlindWatchLog) whose next txn, once gated, waits until the test opens the gate. */
class GatedBlindLog extends BlindWatchLog {
  private gate: Promise<void> | undefined;

  gateNextTxn(): () => void {
    let open = (): void => {};
    this.gate = new Promise<void>((resolve) => (open = resolve));
    return open;
  }

  override async txn(request: TxnRequest): Promise<TxnResponse> {
    const gate = this.gate;
    this.gate = undefined;
    if (gate !== undefined) await gate;
    return super.txn(request);
  }
}

describe('arbiter wait queue on real etcd', () => {
  it('grants waiters in arrival order, each only after the previous holder released', async () => {
    const arbiter = world.arbiter();
    const key = world.key('fifo');
    const [a, b, c, d] = await Promise.all([ALICE, BOB, CAROL, DAVE].map((identity) => world.session(arbiter, identity, FENCED.ttlSeconds)));
    if (a === undefined || b === undefined || c === undefined || d === undefined) throw new Error('four sessions were opened');
    const first = await arbiter.acquire(authenticated(ALICE), { sessionId: a.sessionId, key, className: FENCED.name, waitMs: 0 });
    const recorder = await recordHolderEvents(world.log(), key, first.revision);

    const granted: string[] = [];
    const waiting = new Map<string, Promise<Grant>>();
    for (const session of [b, c, d]) {
      const pending = arbiter.acquire(authenticated(session.identity), { sessionId: session.sessionId, key, className: FENCED.name, waitMs: LONG_WAIT_MS });
      waiting.set(session.identity, pending.then((grant) => (granted.push(grant.identity), grant)));
      await clock.sleep(QUEUE_SETTLE_MS);
    }
    await clock.sleep(QUEUE_SETTLE_MS);
    expect(granted).toEqual([]); // nobody is granted while Alice holds

    let holder = first;
    for (const next of [BOB, CAROL, DAVE]) {
      const session = [a, b, c, d].find((s) => s.identity === holder.identity);
      if (session === undefined) throw new Error('the holder has a session');
      await arbiter.release(authenticated(holder.identity), { sessionId: session.sessionId, key, token: holder.token });
      const pending = waiting.get(next);
      if (pending === undefined) throw new Error(`${next} was waiting`);
      const grant = await within(pending, GRANT_AFTER_RELEASE_MS, `the grant to ${next}`);
      expect(grant.identity).toBe(next);
      expect(grant.token).toBeGreaterThan(holder.token);
      holder = grant;
    }
    await arbiter.release(authenticated(DAVE), { sessionId: d.sessionId, key, token: holder.token });
    await clock.sleep(QUEUE_SETTLE_MS); // let the last delete reach the recorder
    await recorder.watch.cancel();

    expect(granted).toEqual([BOB, CAROL, DAVE]);
    // The log itself shows no overlap: after Alice's grant, strictly delete, put, delete, put, ...
    const sequence = recorder.events.map((event) => (event.type === 'put' ? `put ${parseHolderValue(event.kv.value)?.identity}` : 'delete'));
    expect(sequence).toEqual(['put ' + ALICE, 'delete', `put ${BOB}`, 'delete', `put ${CAROL}`, 'delete', `put ${DAVE}`, 'delete']);
  });

  it('gives up with wait-timeout after the wait, leaving the holder untouched', async () => {
    const arbiter = world.arbiter();
    const key = world.key('deadline');
    const alice = await world.session(arbiter, ALICE, FENCED.ttlSeconds);
    const bob = await world.session(arbiter, BOB, FENCED.ttlSeconds);
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    const waitMs = 300;

    const start = clock.now();
    const error = await lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs }));
    const elapsedMs = clock.now() - start;

    expect(error.code).toBe('wait-timeout');
    expect(elapsedMs).toBeGreaterThanOrEqual(waitMs);
    expect(elapsedMs).toBeLessThan(waitMs + 250); // it gave up at the deadline, not at some later poll
    const kv = await world.holder(key);
    expect([kv?.createRevision, kv?.lease, parseHolderValue(kv?.value ?? '')?.identity]).toEqual([held.revision, alice.sessionId, ALICE]);
  });

  it('ends a wait at its own deadline even behind a waiter with a longer one', async () => {
    const arbiter = world.arbiter();
    const key = world.key('deadline-in-line');
    const [alice, bob, carol] = await Promise.all([ALICE, BOB, CAROL].map((identity) => world.session(arbiter, identity, FENCED.ttlSeconds)));
    if (alice === undefined || bob === undefined || carol === undefined) throw new Error('three sessions were opened');
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });
    const patient = arbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: LONG_WAIT_MS });
    await clock.sleep(QUEUE_SETTLE_MS);
    const waitMs = 300;

    const start = clock.now();
    const error = await lockErrorOf(arbiter.acquire(authenticated(CAROL), { sessionId: carol.sessionId, key, className: FENCED.name, waitMs }));
    const elapsedMs = clock.now() - start;

    expect(error.code).toBe('wait-timeout');
    expect(elapsedMs).toBeGreaterThanOrEqual(waitMs);
    expect(elapsedMs).toBeLessThan(waitMs + 250);
    // Carol left the line without disturbing it: Bob, still first, gets the key when Alice lets go.
    await arbiter.release(authenticated(ALICE), { sessionId: alice.sessionId, key, token: held.token });
    expect((await within(patient, GRANT_AFTER_RELEASE_MS, 'the grant to Bob')).identity).toBe(BOB);
  });

  it('grants a waiter whose watch misses the release within the jittered 1 s poll (ADR-15)', async () => {
    const blind = new BlindWatchLog(world.log());
    const waiterArbiter = world.arbiter({ log: blind });
    const holderArbiter = world.arbiter(); // the release goes through another arbiter: no local wake-up
    const key = world.key('blind');
    const alice = await world.session(holderArbiter, ALICE, FENCED.ttlSeconds);
    const bob = await world.session(waiterArbiter, BOB, FENCED.ttlSeconds);
    const held = await holderArbiter.acquire(authenticated(ALICE), { sessionId: alice.sessionId, key, className: FENCED.name, waitMs: 0 });

    const waiting = waiterArbiter.acquire(authenticated(BOB), { sessionId: bob.sessionId, key, className: FENCED.name, waitMs: 10_000 });
    await clock.sleep(QUEUE_SETTLE_MS);
    const releasedAt = clock.now();
    expect((await holderArbiter.release(authenticated(ALICE), { sessionId: alice.sessionId, key, token: held.token })).released).toBe(true);
    const grant = await waiting;
    const latencyMs = clock.now() - releasedAt;

    expect(grant.identity).toBe(BOB);
    expect(latencyMs).toBeLessThan(1_500); // poll interval 1 s + 20 % jitter, plus one txn
    expect(blind.calls).toContain('watch'); // the waiter did watch...
    expect(blind.droppedDeletes).toBe(1); // ...and the release's delete event was lost
  });
});

describe('one line per key on an arbiter', () => {
  it('keeps arrival order when the line empties while a newcomer is looking for its own hold (two KeyQueues for one key)', async () => {
    const log = new GatedBlindLog(world.log());
    // Watches deliver nothing and polls are a minute apart: only a release through this arbiter wakes a line.
    const arbiter = world.arbiter({ log, pollIntervalMs: 60_000 });
    const key = world.key('one-line');
    const [a, b, c, d] = await Promise.all([ALICE, BOB, CAROL, DAVE].map((identity) => world.session(arbiter, identity, FENCED.ttlSeconds)));
    if (a === undefined || b === undefined || c === undefined || d === undefined) throw new Error('four sessions were opened');
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: a.sessionId, key, className: FENCED.name, waitMs: 0 });
    const bob = arbiter.acquire(authenticated(BOB), { sessionId: b.sessionId, key, className: FENCED.name, waitMs: LONG_WAIT_MS });
    await clock.sleep(QUEUE_SETTLE_MS); // Bob's line exists

    // Carol arrives while Bob's line exists, so she first looks for a hold of her own: that read is held up...
    const openGate = log.gateNextTxn();
    const granted: string[] = [];
    const carol = arbiter.acquire(authenticated(CAROL), { sessionId: c.sessionId, key, className: FENCED.name, waitMs: LONG_WAIT_MS }).then((g) => (granted.push('carol'), g));
    await clock.sleep(QUEUE_SETTLE_MS);
    // ...while Alice releases and Bob is granted, which empties Bob's line: the arbiter forgets it.
    await arbiter.release(authenticated(ALICE), { sessionId: a.sessionId, key, token: held.token });
    const bobGrant = await within(bob, GRANT_AFTER_RELEASE_MS, 'the grant to Bob');
    openGate();
    await clock.sleep(QUEUE_SETTLE_MS); // Carol is in line now
    const dave = arbiter.acquire(authenticated(DAVE), { sessionId: d.sessionId, key, className: FENCED.name, waitMs: LONG_WAIT_MS }).then((g) => (granted.push('dave'), g));
    await clock.sleep(QUEUE_SETTLE_MS);

    // Before the fix Carol joined the forgotten line and Dave started a second one, which Bob's release
    // woke: Dave was granted ahead of Carol, who sat in a line nothing wakes until her wait ran out.
    await arbiter.release(authenticated(BOB), { sessionId: b.sessionId, key, token: bobGrant.token });
    const carolGrant = await within(carol, GRANT_AFTER_RELEASE_MS, 'the grant to Carol');
    expect(granted).toEqual(['carol']);
    await arbiter.release(authenticated(CAROL), { sessionId: c.sessionId, key, token: carolGrant.token });
    expect((await within(dave, GRANT_AFTER_RELEASE_MS, 'the grant to Dave')).identity).toBe(DAVE);
    expect(granted).toEqual(['carol', 'dave']);
  });
});

describe('a range that starts draining while waiters queue (ADR-09)', () => {
  it('refuses the queued waiter with draining instead of granting it during the move', async () => {
    let draining = false;
    const arbiter = world.arbiter({ placement: { check: (_key, tier) => (draining && tier !== undefined ? { kind: 'draining' } : undefined) } });
    const key = world.key('draining-line');
    const [a, b] = await Promise.all([ALICE, BOB].map((identity) => world.session(arbiter, identity, FENCED.ttlSeconds)));
    if (a === undefined || b === undefined) throw new Error('two sessions were opened');
    const held = await arbiter.acquire(authenticated(ALICE), { sessionId: a.sessionId, key, className: FENCED.name, waitMs: 0 });
    const waiting = lockErrorOf(arbiter.acquire(authenticated(BOB), { sessionId: b.sessionId, key, className: FENCED.name, waitMs: LONG_WAIT_MS }));
    await clock.sleep(QUEUE_SETTLE_MS);
    draining = true; // the move controller starts draining the range
    await arbiter.release(authenticated(ALICE), { sessionId: a.sessionId, key, token: held.token });
    expect((await within(waiting, GRANT_AFTER_RELEASE_MS, 'the waiter to be refused')).code).toBe('draining');
    expect((await world.log().range({ key: holderKeyOf(parseLockKey(key)) })).count).toBe(0); // nobody was granted
  });
});
