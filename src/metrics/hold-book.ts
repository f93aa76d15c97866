// What the metrics decorator remembers between calls to tell a hold's end (ADR-22: hold duration, expiry
// without release): the holds granted through this arbiter, by key, and the sessions renewed here. Only
// bounded labels leave this file; keys and tokens stay in its maps, which nothing exports.
//
// Issue 29: a hold is counted by the arbiter that granted it (a client sends a key's acquire and release
// to the key's arbiter, ADR-14), whichever arbiter its session was opened or is renewed on. With two
// arbiters a session opened on one and a key granted by the other was never counted (the holds gauge
// showed 0 while a hold was active). A hold whose session renews here ends with that session; one whose
// session renews elsewhere is confirmed against the log once a TTL (the decorator's probe), and ends when
// the log no longer holds it.
import type { Caller } from '../../core/ports/caller.js';
import type { LeaseId } from '../../core/units.js';
import type { ClassLabels } from './class-labels.js';

/** TigerStyle: a limit on everything. Past it new holds go untracked (the holds gauge then undercounts). */
export const MAX_TRACKED_HOLDS = 1_000_000;
export const MAX_TRACKED_SESSIONS = 100_000;

export interface TrackedHold {
  readonly labels: ClassLabels;
  readonly grantedAtMs: number;
}

interface HeldKey extends TrackedHold {
  readonly key: string;
  readonly sessionId: LeaseId;
  /** Who acquired it: the confirmation reads the hold as that caller, whose grants cover the key. */
  readonly caller: Caller;
  /** The class's TTL: how often a hold whose session renews elsewhere is confirmed. */
  readonly ttlMs: number;
  /** When the log (or the grant) last showed the hold. */
  confirmedMs: number;
}

interface TrackedSession {
  readonly ttlMs: number;
  lastRenewedMs: number;
}

/** A hold to confirm against the log: its key, on its session. */
export interface HoldToConfirm {
  readonly key: string;
  readonly sessionId: LeaseId;
  readonly caller: Caller;
}

export class HoldBook {
  /** Sessions opened or renewed through this arbiter: their renewals keep their holds here current. */
  private readonly sessions = new Map<LeaseId, TrackedSession>();
  private readonly holds = new Map<string, HeldKey>();
  /** The keys each session holds here, so a session's end does not walk every hold. */
  private readonly keysOf = new Map<LeaseId, Set<string>>();

  openSession(sessionId: LeaseId, ttlSeconds: number, nowMs: number): void {
    if (this.sessions.size >= MAX_TRACKED_SESSIONS && !this.sessions.has(sessionId)) return;
    this.sessions.set(sessionId, { ttlMs: ttlSeconds * 1000, lastRenewedMs: nowMs });
  }

  /** A renewal through this arbiter; a session opened on another arbiter is tracked from here on. */
  renewed(sessionId: LeaseId, ttlSeconds: number, nowMs: number): void {
    const session = this.sessions.get(sessionId);
    if (session === undefined) this.openSession(sessionId, ttlSeconds, nowMs);
    else session.lastRenewedMs = nowMs;
  }

  /**
   * False when the hold was already tracked (a re-entered grant) or the book is full. A hold of the key on
   * another session still in the book had ended unseen (expired, or released through another arbiter):
   * it is returned in `ended`.
   */
  granted(sessionId: LeaseId, key: string, hold: TrackedHold & { readonly ttlSeconds: number; readonly caller: Caller }): { counted: boolean; ended: TrackedHold | undefined } {
    const before = this.holds.get(key);
    if (before?.sessionId === sessionId) return { counted: false, ended: undefined };
    if (before !== undefined) this.forget(before);
    if (this.holds.size >= MAX_TRACKED_HOLDS) return { counted: false, ended: before };
    this.holds.set(key, { key, sessionId, caller: hold.caller, labels: hold.labels, grantedAtMs: hold.grantedAtMs, ttlMs: hold.ttlSeconds * 1000, confirmedMs: hold.grantedAtMs });
    const keys = this.keysOf.get(sessionId) ?? new Set<string>();
    keys.add(key);
    this.keysOf.set(sessionId, keys);
    return { counted: true, ended: before };
  }

  /** The hold of `key` on the session, forgotten; undefined when it was not tracked. */
  ended(sessionId: LeaseId, key: string): TrackedHold | undefined {
    const hold = this.holds.get(key);
    if (hold === undefined || hold.sessionId !== sessionId) return undefined;
    this.forget(hold);
    return hold;
  }

  /** The classes a session holds now (for keepalive failures). */
  classesHeldBy(sessionId: LeaseId): ClassLabels[] {
    const seen = new Map<string, ClassLabels>();
    for (const hold of this.holdsOf(sessionId)) seen.set(`${hold.labels.namespace}/${hold.labels.class}`, hold.labels);
    return [...seen.values()];
  }

  /** The session is gone (closed or expired): its holds, forgotten with it. */
  closeSession(sessionId: LeaseId): TrackedHold[] {
    this.sessions.delete(sessionId);
    const holds = this.holdsOf(sessionId);
    for (const hold of holds) this.forget(hold);
    return holds;
  }

  /**
   * Sessions renewed here but not within their TTL: etcd has expired their leases (the leader's clock may
   * run a little behind ours, so a session is given one more TTL/3, the client's renewal interval, before
   * it counts). Their holds are returned and forgotten.
   */
  sweepExpired(nowMs: number): TrackedHold[] {
    const expired: TrackedHold[] = [];
    for (const [sessionId, session] of this.sessions) {
      if (nowMs - session.lastRenewedMs > session.ttlMs + session.ttlMs / 3) expired.push(...this.closeSession(sessionId));
    }
    return expired;
  }

  /** Up to `max` holds whose session renews elsewhere and that the log last showed a TTL or more ago. */
  dueForConfirmation(nowMs: number, max: number): HoldToConfirm[] {
    const due: HoldToConfirm[] = [];
    for (const hold of this.holds.values()) {
      if (due.length >= max) break;
      if (!this.sessions.has(hold.sessionId) && nowMs - hold.confirmedMs >= hold.ttlMs) due.push({ key: hold.key, sessionId: hold.sessionId, caller: hold.caller });
    }
    return due;
  }

  /** What the log said of a hold due for confirmation: still held (kept), or gone (returned and forgotten). */
  confirmed(hold: HoldToConfirm, stillHeld: boolean, nowMs: number): TrackedHold | undefined {
    const tracked = this.holds.get(hold.key);
    if (tracked === undefined || tracked.sessionId !== hold.sessionId) return undefined;
    if (stillHeld) {
      tracked.confirmedMs = nowMs;
      return undefined;
    }
    this.forget(tracked);
    return tracked;
  }

  private holdsOf(sessionId: LeaseId): HeldKey[] {
    return [...(this.keysOf.get(sessionId) ?? [])].flatMap((key) => this.holds.get(key) ?? []);
  }

  private forget(hold: HeldKey): void {
    this.holds.delete(hold.key);
    const keys = this.keysOf.get(hold.sessionId);
    keys?.delete(hold.key);
    if (keys?.size === 0) this.keysOf.delete(hold.sessionId);
  }
}
