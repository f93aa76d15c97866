// KeyQueue alone (ADR-14/15), on the simulator's kernel as its clock: the attempts are scripted, the
// watch never delivers (a persistently lossy watch), so what the queue does is decided by its wake and
// poll rules alone, in virtual time. The arbiter's own tests (arbiter.queue.test.ts) cover it on etcd.
import { describe, expect, it } from 'vitest';
import { Kernel } from '../../sim/kernel/kernel.js';
import { CancelSource } from '../cancel.js';
import { LockError, isLockError } from '../lock-error.js';
import type { Grant } from '../ports/arbiter-api.js';
import type { LockLog, Watch } from '../ports/lock-log.js';
import { clusterId, leaseId, memberId, revision, type Revision } from '../units.js';
import { type AttemptTrigger, KeyQueue } from './key-queue.js';
import { LogGateway } from './log-gateway.js';
import { SealGuard } from './seal-guard.js';

const POLL_MS = 100;
const header = { clusterId: clusterId(1n), memberId: memberId(1n), revision: revision(1n), raftTerm: 1n };

/** A log whose watches open and never deliver; nothing else is called by a KeyQueue. */
function blindLog(): LockLog {
  const unused = (): never => {
    throw new Error('a KeyQueue only watches');
  };
  const watch: Watch = { header, cancel: async () => {} };
  return { txn: unused, range: unused, leaseGrant: unused, leaseKeepAlive: unused, leaseRevoke: unused, leaseTimeToLive: unused, compact: unused, status: unused, close: unused, watch: async () => watch };
}

const grantAt = (at: bigint): Grant => ({ key: 'orders/o-1', token: at as Grant['token'], epoch: 0, revision: at, sessionId: leaseId(7n), identity: 'spiffe://t/alice', className: 'writes', reentered: false });

/** One scripted attempt; it may wake the queue it runs in, as a release or a watch event would. */
type Step = (queue: KeyQueue) => Promise<{ granted: Grant } | { contendedAt: Revision }>;

function setUp(steps: readonly Step[], resolve: () => Promise<Grant | undefined> = () => Promise.reject(new Error('nothing was in doubt'))) {
  const kernel = new Kernel({ seed: 'key-queue', yieldToHost: () => new Promise((done) => setImmediate(done)) });
  const shutdown = new CancelSource();
  const queue = new KeyQueue({
    gateway: new LogGateway(blindLog(), new SealGuard()),
    clock: kernel,
    random: kernel.rng.stream('jitter'),
    holderKey: '/l/orders/o-1',
    pollIntervalMs: POLL_MS,
    shutdown,
    onEmpty: () => {},
  });
  const triggers: AttemptTrigger[] = [];
  const attempt = (trigger: AttemptTrigger) => {
    const step = steps[triggers.length];
    triggers.push(trigger);
    if (step === undefined) throw new Error(`attempt ${triggers.length} was not scripted`);
    return step(queue);
  };
  const contender = { attempt, resolve };
  return { kernel, queue, triggers, contender, shutdown };
}

/** Settles `promise` while virtual time runs to `untilMs`: its value, or the LockError it rejected with. */
async function outcomeOf(kernel: Kernel, promise: Promise<Grant>, untilMs: number): Promise<Grant | LockError> {
  const settled = promise.then((g) => g, (error: unknown) => (isLockError(error) ? error : Promise.reject(error)));
  await kernel.runUntil(untilMs);
  return settled;
}

describe('KeyQueue', () => {
  it('keeps polling after a wake that named a revision: the poll fallback never goes stale (ADR-15, L3)', async () => {
    const { kernel, queue, triggers, contender } = setUp([
      // The first poll finds the key held at revision 10. A release through this arbiter then reports
      // the delete at 11 (a hint naming a revision), but another arbiter's waiter was granted first, at 12.
      async (queue) => {
        queue.wake('hint', 11n);
        return { contendedAt: revision(10n) };
      },
      async () => ({ contendedAt: revision(12n) }),
      // That holder released at 20; this watch is blind, so only a poll can find the key free.
      async () => ({ granted: grantAt(21n) }),
    ]);
    const waited = queue.join(contender, 10 * POLL_MS * 10, revision(5n));
    const outcome = await outcomeOf(kernel, waited, 20 * POLL_MS * 10);
    // Before the fix every later poll was discarded as stale (its revision was still the hint's 11,
    // already seen): the waiter sat on a free key until its deadline and was told wait-timeout.
    expect(outcome).toEqual(grantAt(21n));
    expect(triggers).toEqual(['poll', 'hint', 'poll']);
  });

  it('serves no pending wake after the waiter\'s deadline: the wait ends there, with no late attempt', async () => {
    const deadlineMs = 5 * POLL_MS;
    const { kernel, queue, triggers, contender } = setUp([
      // A wake arrives during a slow attempt that only returns after the deadline.
      async (queue) => {
        queue.wake('hint', 11n);
        await kernel.sleep(2 * deadlineMs);
        return { contendedAt: revision(10n) };
      },
      async () => ({ granted: grantAt(30n) }),
    ]);
    const outcome = await outcomeOf(kernel, queue.join(contender, deadlineMs, revision(5n)), 10 * deadlineMs);
    // Before the fix the pending wake was served at once, after the deadline, and granted the key to a
    // caller whose wait was over.
    expect(isLockError(outcome, 'wait-timeout')).toBe(true);
    expect(triggers).toEqual(['poll']);
  });

  it('its negative control: a wake before the deadline is served at once', async () => {
    const { kernel, queue, triggers, contender } = setUp([
      async (queue) => {
        queue.wake('hint', 11n);
        return { contendedAt: revision(10n) };
      },
      async () => ({ granted: grantAt(30n) }),
    ]);
    expect(await outcomeOf(kernel, queue.join(contender, 5 * POLL_MS, revision(5n)), 50 * POLL_MS)).toEqual(grantAt(30n));
    expect(triggers).toEqual(['poll', 'hint']);
  });

  describe('a wait whose last attempt is in doubt (L2)', () => {
    const inDoubt: Step = async () => {
      throw new LockError('indeterminate', 'the grant txn got no answer, nor did the read of the holder key (test)');
    };

    it('ends with the grant the holder key shows, not wait-timeout', async () => {
      let resolved = 0;
      const { kernel, queue, contender } = setUp([inDoubt], async () => ((resolved += 1), grantAt(44n)));
      expect(await outcomeOf(kernel, queue.join(contender, 3 * POLL_MS / 2, revision(5n)), 20 * POLL_MS)).toEqual(grantAt(44n));
      expect(resolved).toBe(1);
    });

    it('ends with indeterminate when the holder key cannot be read either, and wait-timeout once it shows the key is not ours', async () => {
      const unreadable = setUp([inDoubt], () => Promise.reject(new LockError('unavailable', 'no answer (test)')));
      const outcome = await outcomeOf(unreadable.kernel, unreadable.queue.join(unreadable.contender, 3 * POLL_MS / 2, revision(5n)), 20 * POLL_MS);
      expect(isLockError(outcome, 'indeterminate')).toBe(true);
      const notOurs = setUp([inDoubt], async () => undefined);
      expect(isLockError(await outcomeOf(notOurs.kernel, notOurs.queue.join(notOurs.contender, 3 * POLL_MS / 2, revision(5n)), 20 * POLL_MS), 'wait-timeout')).toBe(true);
    });
  });

  it('never times a waiter out of the line while its attempt is in flight: the attempt may grant (durable ranks)', async () => {
    const { kernel, queue } = setUp([]);
    const deadlineMs = 10 * POLL_MS;
    const calls: string[] = [];
    const contender = (name: string, attempt: () => Promise<{ granted: Grant } | { contendedAt: Revision }>) => ({
      attempt: () => (calls.push(name), attempt()),
      resolve: () => Promise.reject(new Error('nothing was in doubt')),
    });
    let late: Promise<Grant> | undefined;
    // A waits first (rank 10). B, earlier in the durable line (rank 5), arrives and goes ahead; its session
    // is gone, so it leaves, and A is the head again. A's attempt runs past A's deadline, and meanwhile C,
    // earlier still (rank 1), arrives: A is no longer the head while its attempt is granting.
    const a = queue.join(contender('a', async () => {
      late = queue.join(contender('c', async () => ({ contendedAt: revision(60n) })), 100 * POLL_MS, undefined, 1n);
      await kernel.sleep(2 * deadlineMs);
      return { granted: grantAt(50n) };
    }), deadlineMs, revision(5n), 10n);
    const b = queue.join(contender('b', async () => Promise.reject(new LockError('session-expired', 'gone (test)'))), 100 * POLL_MS, undefined, 5n);
    const bOutcome = b.then(() => 'granted', (error: unknown) => (isLockError(error) ? error.code : 'other'));
    // Before the fix A was told wait-timeout while its attempt granted it the key (a hold nobody was told
    // of), and removing A, already gone, took C out of the line instead.
    expect(await outcomeOf(kernel, a, 5 * deadlineMs)).toEqual(grantAt(50n));
    expect(await bOutcome).toBe('session-expired');
    expect(calls.slice(0, 2)).toEqual(['b', 'a']);
    expect(calls.slice(2).every((name) => name === 'c')).toBe(true);
    expect(queue.length).toBe(1); // C still waits, polling a key held by A
    expect(late).toBeDefined();
  });
});

describe('KeyQueue, durable lines: the line follows each waiter\'s place in the log (ADR-14)', () => {
  /** Carol (rank 10) heads this arbiter's line, but her place in the log went to the back; Dave (rank 20) is the log's first. */
  async function carolAndDave(carolReportsRank: boolean): Promise<{ carol: Grant | LockError; dave: Grant | LockError; daveAttempts: number }> {
    const { kernel, queue } = setUp([]);
    const deadlineMs = 20 * POLL_MS;
    let daveAttempts = 0;
    const carol = { attempt: async () => ({ contendedAt: revision(10n), aheadInLine: true, ...(carolReportsRank ? { rank: 30n } : {}) }), resolve: () => Promise.reject(new Error('nothing in doubt')) };
    const dave = { attempt: async () => ((daveAttempts += 1), { granted: grantAt(40n) }), resolve: () => Promise.reject(new Error('nothing in doubt')) };
    const carolWaits = queue.join(carol, deadlineMs, revision(5n), 10n);
    const daveWaits = queue.join(dave, deadlineMs, revision(5n), 20n);
    const settle = (p: Promise<Grant>) => p.then((g) => g, (error: unknown) => (isLockError(error) ? error : Promise.reject(error)));
    const outcomes = Promise.all([settle(carolWaits), settle(daveWaits)]);
    await kernel.runUntil(4 * deadlineMs);
    const [carolOutcome, daveOutcome] = await outcomes;
    return { carol: carolOutcome, dave: daveOutcome, daveAttempts };
  }

  it('lets the next waiter attempt when the head\'s place went to the back (the explorer\'s seed 25): it is granted', async () => {
    const { carol, dave, daveAttempts } = await carolAndDave(true);
    // Before the fix the head kept its old rank: only Carol attempted, each time told 'behind', and Dave,
    // the log's first waiter, never attempted before the deadline both had: both were told wait-timeout.
    expect(dave).toEqual(grantAt(40n));
    expect(daveAttempts).toBe(1);
    expect(isLockError(carol, 'wait-timeout')).toBe(true);
  });

  it('its negative control: a head that does not report its new place keeps the line, and the log\'s first waits out its wait', async () => {
    const { dave, daveAttempts } = await carolAndDave(false);
    expect(isLockError(dave, 'wait-timeout')).toBe(true);
    expect(daveAttempts).toBe(0);
  });
});

describe('KeyQueue polls (issue 12)', () => {
  it('a poll reads the holder first and attempts only when the key may be free', async () => {
    const { kernel, queue, triggers, contender } = setUp([async () => ({ granted: grantAt(30n) })]);
    const reads: Array<Revision | undefined> = [revision(10n), revision(11n), undefined];
    let readCount = 0;
    const heldAt = async () => {
      readCount += 1;
      return reads.shift();
    };
    const waited = queue.join({ ...contender, heldAt }, 20 * POLL_MS, revision(5n));
    expect(await outcomeOf(kernel, waited, 40 * POLL_MS)).toEqual(grantAt(30n));
    expect(readCount).toBe(3); // two polls found it held and sent no grant txn; the third attempted
    expect(triggers).toEqual(['poll']);
  });

  it('the control: a contender without the read attempts at every poll', async () => {
    const { kernel, queue, triggers, contender } = setUp([async () => ({ contendedAt: revision(10n) }), async () => ({ contendedAt: revision(11n) }), async () => ({ granted: grantAt(30n) })]);
    const waited = queue.join(contender, 20 * POLL_MS, revision(5n));
    expect(await outcomeOf(kernel, waited, 40 * POLL_MS)).toEqual(grantAt(30n));
    expect(triggers).toEqual(['poll', 'poll', 'poll']);
  });
});

describe('KeyQueue at the end of a wait (issue 11)', () => {
  it('answers a wait that ends while its session holds the key with that hold, not wait-timeout (seed 340)', async () => {
    // Another task of the same session was granted the key by a request whose answer was lost.
    const { kernel, queue, contender } = setUp([async () => ({ contendedAt: revision(10n) })]);
    const ownHold = async () => grantAt(12n);
    expect(await outcomeOf(kernel, queue.join({ ...contender, ownHold }, 3 * POLL_MS / 2, revision(5n)), 20 * POLL_MS)).toEqual(grantAt(12n));
    // The control: a session that holds nothing is told wait-timeout, and an unreadable key changes nothing.
    const none = setUp([async () => ({ contendedAt: revision(10n) })]);
    expect(isLockError(await outcomeOf(none.kernel, none.queue.join({ ...none.contender, ownHold: async () => undefined }, 3 * POLL_MS / 2, revision(5n)), 20 * POLL_MS), 'wait-timeout')).toBe(true);
    const unreadable = setUp([async () => ({ contendedAt: revision(10n) })]);
    const failing = () => Promise.reject(new LockError('unavailable', 'no answer (test)'));
    expect(isLockError(await outcomeOf(unreadable.kernel, unreadable.queue.join({ ...unreadable.contender, ownHold: failing }, 3 * POLL_MS / 2, revision(5n)), 20 * POLL_MS), 'wait-timeout')).toBe(true);
  });

  it('sends no grant after a poll whose read outlasted the wait (seed 371)', async () => {
    const { kernel, queue, triggers, contender } = setUp([async () => ({ granted: grantAt(30n) })]);
    // The read of the holder key takes longer than what is left of the wait (a stuck member), then finds it free.
    const heldAt = () => kernel.sleep(5 * POLL_MS).then(() => undefined);
    const outcome = await outcomeOf(kernel, queue.join({ ...contender, heldAt }, 2 * POLL_MS, revision(5n)), 40 * POLL_MS);
    expect(isLockError(outcome, 'wait-timeout')).toBe(true);
    expect(triggers).toEqual([]); // before the fix: ['poll'], a grant to a caller whose wait was over
  });
});

describe('KeyQueue, in-memory lines: arrival order, not join order (ADR-14)', () => {
  /**
   * Bob's acquire reached the arbiter first (arrival 2) but made its own grant attempt while the line was
   * forming; Carol (arrival 3) arrived later and only read, so she joined first. The key is then released:
   * the first waiter to attempt gets it.
   */
  async function bobJoinsAfterCarol(withArrivals: boolean): Promise<string[]> {
    const { kernel, queue } = setUp([]);
    const deadlineMs = 50 * POLL_MS;
    const granted: string[] = [];
    let released = false;
    const waiter = (name: string) => ({
      attempt: async () => (released ? (granted.push(name), { granted: grantAt(BigInt(40 + granted.length)) }) : { contendedAt: revision(10n) }),
      resolve: () => Promise.reject(new Error('nothing in doubt')),
    });
    const carol = queue.join(waiter('carol'), deadlineMs, revision(5n), undefined, withArrivals ? 3 : undefined);
    const bob = queue.join(waiter('bob'), deadlineMs, revision(5n), undefined, withArrivals ? 2 : undefined);
    await kernel.runUntil(POLL_MS / 2);
    released = true;
    queue.wake('hint', 20n);
    await outcomeOf(kernel, carol, 10 * POLL_MS);
    await outcomeOf(kernel, bob, 20 * POLL_MS);
    return granted;
  }

  it('puts a waiter that arrived earlier ahead of one that joined before it (hot-key, memory, seed 1)', async () => {
    // Before the fix the line kept join order: Carol, who arrived after Bob, was granted first.
    expect(await bobJoinsAfterCarol(true)).toEqual(['bob', 'carol']);
  });

  it('its negative control: waiters with no arrival are served in join order', async () => {
    expect(await bobJoinsAfterCarol(false)).toEqual(['carol', 'bob']);
  });
});

describe('KeyQueue, a refusal after an attempt in doubt (issue 11, seed 2311)', () => {
  const inDoubt: Step = async () => {
    throw new LockError('indeterminate', 'the grant txn got no answer, nor did its settle (test)');
  };
  const draining: Step = async () => {
    throw new LockError('draining', 'the range is moving (test)');
  };

  it('settles the attempt in doubt first, and answers with its grant if it made one', async () => {
    const { kernel, queue, contender } = setUp([inDoubt, draining], async () => grantAt(44n));
    queue.wake('hint');
    expect(await outcomeOf(kernel, queue.join(contender, 20 * POLL_MS, revision(5n)), 40 * POLL_MS)).toEqual(grantAt(44n));
  });

  it('its controls: the refusal stands when the attempt granted nothing, and indeterminate when it cannot be settled', async () => {
    const none = setUp([inDoubt, draining], async () => undefined);
    expect(isLockError(await outcomeOf(none.kernel, none.queue.join(none.contender, 20 * POLL_MS, revision(5n)), 40 * POLL_MS), 'draining')).toBe(true);
    const unsettled = setUp([inDoubt, draining], () => Promise.reject(new LockError('unavailable', 'no answer (test)')));
    expect(isLockError(await outcomeOf(unsettled.kernel, unsettled.queue.join(unsettled.contender, 20 * POLL_MS, revision(5n)), 40 * POLL_MS), 'indeterminate')).toBe(true);
    // Without an attempt in doubt, a refusal is passed on unread.
    const plain = setUp([draining], () => Promise.reject(new Error('nothing was in doubt: no settle')));
    expect(isLockError(await outcomeOf(plain.kernel, plain.queue.join(plain.contender, 20 * POLL_MS, revision(5n)), 40 * POLL_MS), 'draining')).toBe(true);
  });
});

describe('KeyQueue, the arbiter shutting down while a wait is in doubt (ADR-05/07)', () => {
  const inDoubt: Step = async () => {
    throw new LockError('indeterminate', 'the grant txn got no answer, nor did its settle (test)');
  };
  const held: Step = async () => ({ contendedAt: revision(10n) });

  /** One attempt (`step`), then the arbiter shuts down while the waiter sleeps until its next poll. */
  async function shutDownAfter(step: Step, resolve: () => Promise<Grant | undefined>): Promise<{ outcome: Grant | LockError; settles: number }> {
    let settles = 0;
    const { kernel, queue, contender, shutdown } = setUp([step], () => ((settles += 1), resolve()));
    queue.wake('hint');
    const waited = queue.join(contender, 20 * POLL_MS, revision(5n));
    await kernel.runUntil(POLL_MS / 2); // the attempt is made; the next poll is a whole interval away
    shutdown.cancel();
    return { outcome: await outcomeOf(kernel, waited, 40 * POLL_MS), settles };
  }

  it('settles the attempt in doubt first, and answers with its grant if it made one', async () => {
    // Before the fix: `unavailable` ("nothing happened"), unread, while the grant stood on the caller's live session.
    expect(await shutDownAfter(inDoubt, async () => grantAt(44n))).toEqual({ outcome: grantAt(44n), settles: 1 });
  });

  it('its controls: unavailable once settled as not granted, indeterminate when unsettled, and no read with nothing in doubt', async () => {
    const none = await shutDownAfter(inDoubt, async () => undefined);
    expect([isLockError(none.outcome, 'unavailable'), none.settles]).toEqual([true, 1]);
    const unsettled = await shutDownAfter(inDoubt, () => Promise.reject(new LockError('unavailable', 'no answer (test)')));
    expect([isLockError(unsettled.outcome, 'indeterminate'), unsettled.settles]).toEqual([true, 1]);
    const plain = await shutDownAfter(held, async () => grantAt(44n));
    expect([isLockError(plain.outcome, 'unavailable'), plain.settles]).toEqual([true, 0]);
  });
});
