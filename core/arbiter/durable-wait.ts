// ADR-14 `fairness: durable`: an acquire's wait with its place kept as a key in the log (DurableTurn),
// apart from the Arbiter's grant path; the Arbiter hands it what it needs as a DurableLine.
import type { CancelSource } from '../cancel.js';
import type { LockKey } from '../lock-key.js';
import type { Grant } from '../ports/arbiter-api.js';
import type { DurableTurn } from './durable-turn.js';
import type { GrantAsk, Granter } from './grant-attempt.js';
import type { AttemptOutcome, AttemptTrigger, Contender, KeyQueue } from './key-queue.js';
import type { WaiterLease } from './waiter-lease.js';

/** The arbiter's parts a durable wait uses: its granter, its waiting lease, its shutdown and its keys' lines. */
export interface DurableLine {
  readonly granter: Granter;
  readonly places: WaiterLease;
  readonly shutdown: CancelSource;
  queueFor(key: LockKey): KeyQueue;
  hasQueue(key: LockKey): boolean;
}

/**
 * ADR-14 `fairness: durable`: the waiter's place is a key in the log; the local FIFO still decides
 * which of this arbiter's waiters may look, but only the first in the durable line attempts a grant.
 */
export async function waitDurably(line: DurableLine, turn: DurableTurn, ask: GrantAsk, deadlineMs: number): Promise<Grant> {
  const mine = await line.granter.ownHold(ask);
  if (mine !== undefined) return mine;
  const out = line.places.enter(turn.waiterKey); // the waiting lease is renewed while this waiter is in the line (L5)
  try {
    return await waitInDurableLine(line, turn, ask, deadlineMs);
  } finally {
    out();
  }
}

async function waitInDurableLine(line: DurableLine, turn: DurableTurn, ask: GrantAsk, deadlineMs: number): Promise<Grant> {
  const attempt = async (trigger: AttemptTrigger): Promise<AttemptOutcome> => {
    const position = await turn.position();
    if (position.kind === 'gone') {
      // Our place is gone. If our own grant committed unseen (its txn deletes the waiter key), the key
      // is ours: taking a new place at the back put us behind a waiter waiting for us (issue 11, L1).
      const ours = await line.granter.ownHold(ask, false);
      if (ours !== undefined) return { granted: ours };
      // An epoch advance cleared /q, or another task of this session left the place they shared: take
      // a new place at the back, and tell the line (KeyQueue re-ranks on it, or its real first never attempts).
      const back = await turn.join();
      if (!position.lineEmpty) return { contendedAt: position.seenAt, aheadInLine: true, rank: back };
    } else if (position.kind === 'behind') {
      return { contendedAt: position.seenAt, aheadInLine: true, ...(position.rank === undefined ? {} : { rank: position.rank }) };
    }
    return line.granter.attempt({ ...ask, waiterKey: turn.waiterKey }, trigger, deadlineMs);
  };
  const contender: Contender = { attempt, resolve: () => line.granter.settle(ask), ownHold: () => line.granter.ownHold(ask) };
  try {
    // Inside the try: a join whose answer was lost may have put the place, and giving up must take it.
    const rank = await turn.join();
    const first = line.hasQueue(ask.key) ? undefined : await attempt('arrival');
    // The line is looked up when joining, never held across an await (see acquire).
    const outcome = first !== undefined && 'granted' in first ? first.granted : await line.queueFor(ask.key).join(contender, deadlineMs, first?.contendedAt, rank);
    // A re-entered grant did not run the txn that deletes the waiter key.
    if (outcome.reentered) await turn.leave();
    return outcome;
  } catch (error) {
    // A waiter that gives up leaves the line (a leave that cannot reach the log is done by the waiting lease's sweep, and the
    // place ends with this arbiter's waiting lease at the latest). An arbiter shutting down does not
    // take its waiters' places with it: they outlive it by the lease's TTL, so a waiter can come back
    // through another replica and keep its place (ADR-14).
    if (!line.shutdown.aborted) await turn.leave();
    throw error;
  }
}
