// An arbiter that shuts down (serve's drain ends its waits, arbiter.close()) while a waiter's grant is in
// doubt: its grant txn committed, the answer was lost, and the settle's read failed too. On the simulator,
// with two arbiter replicas and the production client library, so the run is deterministic and shows what
// the waiter is told, what the log holds, and what becomes of the key (ADR-05/07: an answer says what is
// known; core/lock-error.ts: `unavailable` means nothing happened).
import { describe, expect, it } from 'vitest';
import { PrefixGrants, namespaceGrant } from '../authz/index.js';
import { ClassRegistry } from '../classes/index.js';
import type { LockHandle } from '../client/lock-client.js';
import { HOLDER_PREFIX } from '../lock-key.js';
import { isLockError } from '../lock-error.js';
import { LockLogError } from '../ports/lock-log-error.js';
import type { LockLog, RangeRequest, RangeResponse, TxnRequest, TxnResponse } from '../ports/lock-log.js';
import { World } from '../../sim/world/world.js';
import { DelegatingLockLog } from '../../src/testing/delegating-lock-log.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const CLASS = { namespace: 'orders', name: 'writes', purpose: 'correctness', enforcement: 'fenced', resource: 'db://orders', ttlSeconds: 5, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' } as const;
const KEY = 'orders/o-1';
const WAIT_MS = 20_000;
/** From the lost answer until the arbiter shuts down: the settle's budget (log-retry.ts, 2 s) has run out, no poll has found the hold yet. */
const IN_DOUBT_MS = 2_500;

const isGrant = (request: TxnRequest): boolean => request.success.some((op) => op.type === 'put' && op.key.startsWith(HOLDER_PREFIX));

/**
 * arbiter-1's log: when `loseNextGrant` is set, the next grant txn commits and its answer is lost, and from
 * then on every txn and read fails (`unavailable`) until the test ends the silence. Leases are untouched,
 * so the sessions stay alive (the key is then blocked by a hold on a live session, not an expiring one).
 */
class LostGrantLog extends DelegatingLockLog {
  loseNextGrant = false;
  silent = false;
  lost = 0;

  override async txn(request: TxnRequest): Promise<TxnResponse> {
    if (this.silent) throw new LockLogError('unavailable', 'no answer (test)');
    const response = await super.txn(request);
    if (response.succeeded && isGrant(request) && this.loseNextGrant) {
      this.loseNextGrant = false;
      this.silent = true;
      this.lost += 1;
      throw new LockLogError('timeout', 'the answer was lost (test)', { outcome: 'indeterminate' });
    }
    return response;
  }

  override range(request: RangeRequest): Promise<RangeResponse> {
    if (this.silent) return Promise.reject(new LockLogError('unavailable', 'no answer (test)'));
    return super.range(request);
  }
}

interface Run {
  readonly world: World;
  readonly faulty: LostGrantLog;
}

async function twoReplicas(seed: string): Promise<Run> {
  let faulty: LostGrantLog | undefined;
  const world = new World({
    seed,
    yieldToHost,
    arbiters: 2,
    classes: new ClassRegistry([CLASS]),
    authorizer: new PrefixGrants(['alice', 'bob', 'carol'].map((name) => namespaceGrant(`spiffe://sim/${name}`, CLASS.namespace))),
    wrapArbiterLog: (log: LockLog, process) => (process.name === 'arbiter-1' ? (faulty = new LostGrantLog(log)) : log),
  });
  await world.start();
  if (faulty === undefined) throw new Error('arbiter-1 speaks the faulty log');
  return { world, faulty };
}

const acquireOptions = (waitMs: number) => ({ key: KEY, className: CLASS.name, ttlSeconds: CLASS.ttlSeconds, waitMs, onFence: () => {} });

/** What an acquire came to: its handle, or the code it was refused with; undefined while it is still waiting. */
function outcome(acquiring: Promise<LockHandle>): { readonly value: () => LockHandle | string | undefined } {
  let settled: LockHandle | string | undefined;
  acquiring.then((handle) => (settled = handle), (error: unknown) => (settled = isLockError(error) ? error.code : `not a LockError: ${String(error)}`));
  return { value: () => settled };
}

/**
 * Alice (through arbiter-2) holds the key; Bob waits in arbiter-1's line. With `grantInDoubt`, Alice's
 * release lets Bob's grant commit unseen (arbiter-1 cannot settle it: the waiter is in doubt); without, Alice
 * keeps the key. Then the silence ends and arbiter-1 shuts down. Answers Bob's outcome and the open holds.
 */
async function shutdownWithBobWaiting(grantInDoubt: boolean) {
  const { world, faulty } = await twoReplicas(grantInDoubt ? 'shutdown-in-doubt' : 'shutdown-not-in-doubt');
  const alice = world.addClient('alice', { arbiter: 1 });
  const bob = world.addClient('bob', { arbiter: 0 });
  const held = await settledWithin(world, alice.client.acquire(acquireOptions(0)), 2_000);
  const bobWaits = outcome(bob.client.acquire(acquireOptions(WAIT_MS)));
  await world.runUntil(world.kernel.now() + 500);
  if (grantInDoubt) {
    faulty.loseNextGrant = true;
    void held.release();
  }
  await world.runUntil(world.kernel.now() + IN_DOUBT_MS);
  const beforeShutdown = bobWaits.value();
  faulty.silent = false;
  (world.arbiters[0]?.arbiter ?? assertNever('arbiter-1')).close(); // serve's drain: endWaits
  await world.runUntil(world.kernel.now() + 1_000);
  const open = world.log.grants.filter((g) => g.key === KEY && g.endReason === undefined);
  return { world, alice, bob, held, lost: faulty.lost, beforeShutdown, bobAnswer: bobWaits.value(), open };
}

async function settledWithin<T>(world: World, promise: Promise<T>, ms: number): Promise<T> {
  let done = false;
  const watched = promise.finally(() => (done = true));
  await world.kernel.runUntilCondition(() => done, { untilMs: world.kernel.now() + ms });
  return watched;
}

function assertNever(what: string): never {
  throw new Error(`the world has no ${what}`);
}

describe('an arbiter shutting down while a waiter\'s grant is in doubt', () => {
  it('answers the waiter with the grant it made, not unavailable: the hold is owned and the key moves on', async () => {
    const { world, bob, lost, beforeShutdown, bobAnswer, open } = await shutdownWithBobWaiting(true);
    expect(lost).toBe(1);
    expect(beforeShutdown).toBeUndefined(); // still waiting, in doubt, when the arbiter shut down
    // The log holds Bob's grant, on his live session.
    expect(open.map((g) => g.holder)).toEqual(['spiffe://sim/bob']);
    // Before the fix Bob was told `unavailable` ("nothing happened"): his library gave up without settling,
    // and the hold stayed on his live session, owned by nobody, blocking the key for as long as he ran.
    expect(typeof bobAnswer).toBe('object');
    const handle = bobAnswer as LockHandle;
    expect(handle.token).toBe(open[0]?.token);
    // The key moves on: Bob releases, and Carol (through the other replica) is granted it.
    const carol = world.addClient('carol', { arbiter: 1 });
    const carolWaits = outcome(carol.client.acquire(acquireOptions(5_000)));
    await settledWithin(world, handle.release(), 2_000);
    await world.runUntil(world.kernel.now() + 2_000);
    expect(typeof carolWaits.value()).toBe('object');
    expect(bob.client.holdCount(KEY)).toBe(0);
  });

  it('its negative control: a waiter with nothing in doubt is told unavailable at once, and holds nothing', async () => {
    const { lost, bobAnswer, open } = await shutdownWithBobWaiting(false);
    expect(lost).toBe(0);
    expect(bobAnswer).toBe('unavailable');
    expect(open.map((g) => g.holder)).toEqual(['spiffe://sim/alice']);
  });
});
