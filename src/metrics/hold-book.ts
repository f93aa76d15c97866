// What the metrics decorator remembers between calls to tell a hold's end (ADR-22: hold duration, expiry
// without release): the holds it saw granted, by session and key, and each session's last renewal. Only
// bounded labels leave this file; keys and tokens stay in its maps, which nothing exports.
import type { LeaseId } from '../../core/units.js';
import type { ClassLabels } from './class-labels.js';

/** TigerStyle: a limit on everything. Past it new holds go untracked (the holds gauge then undercounts). */
export const MAX_TRACKED_HOLDS = 1_000_000;
export const MAX_TRACKED_SESSIONS = 100_000;

export interface TrackedHold {
  readonly labels: ClassLabels;
  readonly grantedAtMs: number;
}

interface TrackedSession {
  readonly ttlMs: number;
  lastRenewedMs: number;
  readonly holds: Map<string, TrackedHold>;
}

export class HoldBook {
  private readonly sessions = new Map<LeaseId, TrackedSession>();
  private holdCount = 0;

  openSession(sessionId: LeaseId, ttlSeconds: number, nowMs: number): void {
    if (this.sessions.size >= MAX_TRACKED_SESSIONS && !this.sessions.has(sessionId)) return;
    this.sessions.set(sessionId, { ttlMs: ttlSeconds * 1000, lastRenewedMs: nowMs, holds: this.sessions.get(sessionId)?.holds ?? new Map() });
  }

  renewed(sessionId: LeaseId, nowMs: number): void {
    const session = this.sessions.get(sessionId);
    if (session !== undefined) session.lastRenewedMs = nowMs;
  }

  /** False when the hold was already tracked (a re-entered grant) or the book is full. */
  granted(sessionId: LeaseId, key: string, hold: TrackedHold): boolean {
    const session = this.sessions.get(sessionId);
    if (session === undefined || session.holds.has(key) || this.holdCount >= MAX_TRACKED_HOLDS) return false;
    session.holds.set(key, hold);
    this.holdCount += 1;
    return true;
  }

  /** The hold of `key` on the session, forgotten; undefined when it was not tracked. */
  ended(sessionId: LeaseId, key: string): TrackedHold | undefined {
    const session = this.sessions.get(sessionId);
    const hold = session?.holds.get(key);
    if (hold === undefined) return undefined;
    session?.holds.delete(key);
    this.holdCount -= 1;
    return hold;
  }

  /** The classes a session holds now (for keepalive failures). */
  classesHeldBy(sessionId: LeaseId): ClassLabels[] {
    const seen = new Map<string, ClassLabels>();
    for (const hold of this.sessions.get(sessionId)?.holds.values() ?? []) seen.set(`${hold.labels.namespace}/${hold.labels.class}`, hold.labels);
    return [...seen.values()];
  }

  /** The session is gone (closed or expired): its holds, forgotten with it. */
  closeSession(sessionId: LeaseId): TrackedHold[] {
    const session = this.sessions.get(sessionId);
    if (session === undefined) return [];
    this.sessions.delete(sessionId);
    this.holdCount -= session.holds.size;
    return [...session.holds.values()];
  }

  /**
   * Sessions not renewed within their TTL: etcd has expired their leases (the leader's clock may run a
   * little behind ours, so a session is given one more TTL/3, the client's renewal interval, before it
   * counts). Their holds are returned and forgotten.
   */
  sweepExpired(nowMs: number): TrackedHold[] {
    const expired: TrackedHold[] = [];
    for (const [sessionId, session] of this.sessions) {
      if (nowMs - session.lastRenewedMs > session.ttlMs + session.ttlMs / 3) expired.push(...this.closeSession(sessionId));
    }
    return expired;
  }
}
