// ADR-04: the table an arbiter grants efficiency classes from while no etcd majority answers. One holder
// per key, a FIFO line behind it as with etcd grants (ADR-14), exclusive *within this arbiter* only: two
// arbiters granting one key from their own tables is the overlap an `onQuorumLoss: open` class declared
// it accepts. Nothing here is durable: the spool (fail-open.ts) is the record; a crash forgets the table.
import { CancelSource, CancelledError } from '../cancel.js';
import { LockError } from '../lock-error.js';
import type { Clock } from '../ports/clock.js';
import type { LeaseId } from '../units.js';

/** Who asks for which key, as the spool records it. */
export interface MemoryAsk {
  readonly key: string;
  readonly namespace: string;
  readonly className: string;
  readonly identity: string;
  readonly instance: string;
  readonly sessionId: LeaseId;
}

export interface MemoryHold {
  readonly ask: MemoryAsk;
  /** The spool id of its grant record. */
  readonly grantId: string;
}

export interface MemoryGrantsDeps {
  readonly clock: Clock;
  /** A fresh spool id for a grant. */
  readonly newId: () => string;
  /** Makes the grant durable (the spool append) before the holder is answered. */
  readonly record: (hold: MemoryHold) => Promise<void>;
  /** Makes a hold's end durable, before the key passes on (the spool lists an end before the next grant). */
  readonly recordEnd: (hold: MemoryHold, reason: EndReason) => Promise<void>;
}

export type EndReason = 'release' | 'expiry' | 'recovery';

interface Waiter {
  readonly ask: MemoryAsk;
  readonly grant: (hold: MemoryHold) => void;
  readonly refuse: (error: unknown) => void;
}

interface KeyLine {
  holder: MemoryHold | undefined;
  readonly line: Waiter[];
}

/** Bounds on what callers can make this table hold (TigerStyle: a limit on everything). */
export const MAX_MEMORY_KEYS = 100_000;
export const MAX_MEMORY_WAITERS_PER_KEY = 10_000;

export class MemoryGrants {
  private readonly keys = new Map<string, KeyLine>();

  constructor(private readonly deps: MemoryGrantsDeps) {}

  /** The hold, once recorded; `reentered` when the session already held the key. Waits up to `waitMs` in line. */
  async acquire(ask: MemoryAsk, waitMs: number): Promise<{ hold: MemoryHold; reentered: boolean }> {
    const entry = this.lineOf(ask.key);
    if (entry.holder?.ask.sessionId === ask.sessionId) return { hold: entry.holder, reentered: true };
    if (entry.holder === undefined && entry.line.length === 0) return { hold: await this.grantTo(entry, ask), reentered: false };
    if (waitMs <= 0) throw new LockError('contended', `${ask.key} is held by another identity; wait in line with waitMs > 0`);
    if (entry.line.length >= MAX_MEMORY_WAITERS_PER_KEY) throw new LockError('unavailable', `${ask.key} has ${MAX_MEMORY_WAITERS_PER_KEY} waiters already; retry later`);
    return { hold: await this.waitInLine(entry, ask, waitMs), reentered: false };
  }

  /** The session's hold of `key`, if it has one. */
  holdOf(key: string, sessionId: LeaseId): MemoryHold | undefined {
    const holder = this.keys.get(key)?.holder;
    return holder?.ask.sessionId === sessionId ? holder : undefined;
  }

  /** Ends the session's hold of `key`, records the end, then hands the key to the next in line. False: no such hold. */
  async end(key: string, sessionId: LeaseId, reason: EndReason): Promise<boolean> {
    const entry = this.keys.get(key);
    const holder = entry?.holder;
    if (entry === undefined || holder?.ask.sessionId !== sessionId) return false;
    entry.holder = undefined;
    try {
      await this.deps.recordEnd(holder, reason);
    } finally {
      this.handOn(key, entry);
    }
    return true;
  }

  /** Ends every hold of a session and takes its waiters out of line (an expired or closed session). */
  async endSession(sessionId: LeaseId, why: LockError, reason: EndReason): Promise<void> {
    for (const [key, entry] of [...this.keys]) {
      for (const waiter of entry.line.filter((w) => w.ask.sessionId === sessionId)) this.leave(entry, waiter).refuse(why);
      await this.end(key, sessionId, reason);
    }
  }

  /** The quorum is back (ADR-04): every waiter is refused with `why`, every hold ends ('recovery') and the table empties. */
  async endAll(why: LockError): Promise<void> {
    const ended: MemoryHold[] = [];
    for (const entry of this.keys.values()) {
      if (entry.holder !== undefined) ended.push(entry.holder);
      for (const waiter of entry.line.splice(0)) waiter.refuse(why);
    }
    this.keys.clear();
    for (const hold of ended) await this.deps.recordEnd(hold, 'recovery');
  }

  get holds(): readonly MemoryHold[] {
    return [...this.keys.values()].flatMap((entry) => (entry.holder === undefined ? [] : [entry.holder]));
  }

  private lineOf(key: string): KeyLine {
    let entry = this.keys.get(key);
    if (entry === undefined) {
      if (this.keys.size >= MAX_MEMORY_KEYS) throw new LockError('unavailable', `this arbiter holds ${MAX_MEMORY_KEYS} keys from memory already (ADR-04); retry once the quorum is back`);
      entry = { holder: undefined, line: [] };
      this.keys.set(key, entry);
    }
    return entry;
  }

  /** The key is taken at once (exclusive from here on), then recorded; a failed record frees it again. */
  private async grantTo(entry: KeyLine, ask: MemoryAsk): Promise<MemoryHold> {
    const hold: MemoryHold = { ask, grantId: this.deps.newId() };
    entry.holder = hold;
    try {
      await this.deps.record(hold);
    } catch (error) {
      if (entry.holder === hold) {
        entry.holder = undefined;
        this.handOn(ask.key, entry);
      }
      throw error;
    }
    return hold;
  }

  private async waitInLine(entry: KeyLine, ask: MemoryAsk, waitMs: number): Promise<MemoryHold> {
    const timer = new CancelSource();
    const handed = new Promise<MemoryHold>((grant, refuse) => {
      entry.line.push({ ask, grant: (hold) => (timer.cancel(), grant(hold)), refuse: (error) => (timer.cancel(), refuse(error)) });
    });
    void this.deps.clock.sleep(waitMs, timer.signal).then(
      () => {
        const waiter = entry.line.find((w) => w.ask === ask);
        if (waiter !== undefined) this.leave(entry, waiter).refuse(new LockError('wait-timeout', `${ask.key} stayed held for the whole wait of ${waitMs} ms`));
      },
      (error: unknown) => {
        if (!(error instanceof CancelledError)) throw error;
      },
    );
    return handed;
  }

  private leave(entry: KeyLine, waiter: Waiter): Waiter {
    entry.line.splice(entry.line.indexOf(waiter), 1);
    return waiter;
  }

  /** FIFO (ADR-14): the first in line gets the key; a key nobody holds or waits for is forgotten. */
  private handOn(key: string, entry: KeyLine): void {
    const next = entry.line.shift();
    if (next === undefined) {
      if (entry.holder === undefined && this.keys.get(key) === entry) this.keys.delete(key);
      return;
    }
    this.grantTo(entry, next.ask).then(next.grant, next.refuse);
  }
}
