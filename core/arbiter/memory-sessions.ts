// ADR-04: sessions an arbiter opens from its own memory while no etcd majority answers, so a holder of an
// efficiency class that fails open can open one at all (an etcd lease cannot be granted then). Their ids
// are negative, which no etcd lease id is, so any arbiter tells one at a glance; a restarted arbiter, or
// one whose quorum came back, knows none of them and answers `session-expired`: the holder fences. An etcd
// session that takes a grant from memory during the outage is tracked here too, with the expiry its TTL
// gives it from then (its keepalives cannot reach etcd, so nothing renews it).
import { LockError } from '../lock-error.js';
import type { Session } from '../ports/arbiter-api.js';
import type { Clock } from '../ports/clock.js';
import { hash53 } from '../shards/hash.js';
import { type LeaseId, MS_PER_SECOND, leaseId } from '../units.js';
import { expired } from './sessions.js';

export interface MemorySession {
  readonly identity: string;
  readonly instance: string;
  readonly ttlSeconds: number;
  expiresAtMs: number;
  /** False for an etcd session that took a grant from memory. */
  readonly fromMemory: boolean;
}

/** Sessions one arbiter run may open from memory: the low bits of an id (TigerStyle: a limit on everything). */
export const MAX_MEMORY_SESSIONS = 2 ** 22;
const SALT_RANGE = 2 ** 31;

/** True for an id only a memory session has (etcd lease ids are positive). */
export function isMemorySessionId(sessionId: bigint): boolean {
  return sessionId < 0n;
}

export class MemorySessions {
  private readonly sessions = new Map<LeaseId, MemorySession>();
  private readonly salt: bigint;
  private opened = 0;

  /** `runName` (arbiter id and incarnation) salts the ids, so two arbiters or runs hand out different ones. */
  constructor(private readonly clock: Clock, runName: string) {
    this.salt = BigInt((hash53(runName) % SALT_RANGE) + 1);
  }

  open(identity: string, instance: string, ttlSeconds: number): Session {
    if (this.opened >= MAX_MEMORY_SESSIONS) throw new LockError('unavailable', `this arbiter opened ${MAX_MEMORY_SESSIONS} sessions from memory already (ADR-04); retry once the quorum is back`);
    this.opened += 1;
    const sessionId = leaseId(-(this.salt * BigInt(MAX_MEMORY_SESSIONS) + BigInt(this.opened)));
    this.sessions.set(sessionId, { identity, instance, ttlSeconds, expiresAtMs: this.expiryFrom(ttlSeconds), fromMemory: true });
    return { sessionId, identity, instance, ttlSeconds };
  }

  /** An etcd session taking a grant from memory: its expiry counts from now (see the file comment). */
  track(sessionId: LeaseId, record: Omit<MemorySession, 'expiresAtMs' | 'fromMemory'>): MemorySession {
    const known = this.sessions.get(sessionId);
    if (known !== undefined) return known;
    const session: MemorySession = { ...record, expiresAtMs: this.expiryFrom(record.ttlSeconds), fromMemory: false };
    this.sessions.set(sessionId, session);
    return session;
  }

  /** The memory session, checking that `identity` owns it; `session-expired` when this arbiter has none by that id. */
  ownedBy(sessionId: LeaseId, identity: string): MemorySession {
    const session = this.sessions.get(sessionId);
    if (session === undefined || !session.fromMemory || session.expiresAtMs <= this.clock.now()) throw expired(sessionId);
    if (session.identity !== identity) throw new LockError('session-mismatch', `session ${sessionId} does not belong to ${identity}; open your own session`);
    return session;
  }

  renew(sessionId: LeaseId, identity: string): number {
    const session = this.ownedBy(sessionId, identity);
    session.expiresAtMs = this.expiryFrom(session.ttlSeconds);
    return session.ttlSeconds;
  }

  forget(sessionId: LeaseId): void {
    this.sessions.delete(sessionId);
  }

  /** Takes out every session past its expiry and returns their ids. */
  takeExpired(): LeaseId[] {
    const nowMs = this.clock.now();
    const gone = [...this.sessions].filter(([, s]) => s.expiresAtMs <= nowMs).map(([id]) => id);
    for (const id of gone) this.sessions.delete(id);
    return gone;
  }

  /** The quorum is back: every memory session ends (its holder is told `session-expired` at its next keepalive). */
  clear(): void {
    this.sessions.clear();
  }

  private expiryFrom(ttlSeconds: number): number {
    return this.clock.now() + ttlSeconds * MS_PER_SECOND;
  }
}
