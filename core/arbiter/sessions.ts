// ADR-10: a session is one etcd lease per (identity, instance, TTL) (issue 29: replicas of one workload
// share an identity and name their instance); every hold attaches to it. The arbiter
// records which identity owns each lease (a session record on the lease itself, so it vanishes with the
// lease), so that nobody can attach holds to another identity's session. The arbiter is stateless for
// correctness: its cache of owners is only a cache, refilled from the log.
import { LockError } from '../lock-error.js';
import type { Session } from '../ports/arbiter-api.js';
import type { LeaseId } from '../units.js';
import type { Clock } from '../ports/clock.js';
import { type LogGateway, toLockError } from './log-gateway.js';
import { IDEMPOTENT_REQUEST_TIMEOUT_MS, OPEN_SESSION_RETRY_BUDGET_MS, retryWithin } from './log-retry.js';
import { type SessionRecord, formatSessionRecord, parseSessionRecord, sessionKeyOf } from './records.js';

export const MIN_TTL_SECONDS = 5; // ADR-11 platform range
export const MAX_TTL_SECONDS = 300;
const MAX_IDENTITY_LENGTH = 256;
export const MAX_INSTANCE_LENGTH = 128;
/** A bound on the owner cache: sessions beyond it are read from the log again (TigerStyle: a limit on everything). */
const MAX_CACHED_SESSIONS = 100_000;

export function checkIdentity(identity: unknown, role = 'identity'): string {
  // eslint-disable-next-line no-control-regex
  if (typeof identity !== 'string' || identity.length === 0 || identity.length > MAX_IDENTITY_LENGTH || /[\u0000-\u001f\u007f]/.test(identity)) {
    throw new LockError('invalid-argument', `${role} ${JSON.stringify(String(identity).slice(0, 60))} must be 1..${MAX_IDENTITY_LENGTH} printable characters (a SPIFFE ID, say)`);
  }
  return identity;
}

/**
 * Issue 29: an instance is a label the client chooses (host name and process id, a pod name), bounded
 * like any caller-controlled text; '' is the unnamed instance. It is never a credential.
 */
export function checkInstance(instance: unknown): string {
  if (instance === undefined) return '';
  // eslint-disable-next-line no-control-regex
  if (typeof instance !== 'string' || instance.length > MAX_INSTANCE_LENGTH || /[\u0000-\u001f\u007f]/.test(instance)) {
    throw new LockError('invalid-argument', `instance ${JSON.stringify(String(instance).slice(0, 60))} must be 0..${MAX_INSTANCE_LENGTH} printable characters (a pod name, or host name and process id)`);
  }
  return instance;
}

/** ADR-11: a session's TTL is a whole number of seconds in the platform range. */
export function checkSessionTtl(ttlSeconds: unknown): number {
  if (typeof ttlSeconds !== 'number' || !Number.isInteger(ttlSeconds) || ttlSeconds < MIN_TTL_SECONDS || ttlSeconds > MAX_TTL_SECONDS) {
    throw new LockError('invalid-argument', `session TTL ${String(ttlSeconds)} s is outside the platform range ${MIN_TTL_SECONDS}..${MAX_TTL_SECONDS} s (ADR-11); use the class's ttlSeconds`);
  }
  return ttlSeconds;
}

export class SessionDirectory {
  private readonly owners = new Map<LeaseId, SessionRecord>();

  constructor(
    private readonly gateway: LogGateway,
    private readonly clock: Clock,
  ) {}

  async open(identity: string, instance: string, ttlSeconds: number): Promise<Session> {
    checkIdentity(identity);
    checkInstance(instance);
    checkSessionTtl(ttlSeconds);
    const lease = await this.gateway.leaseGrant(ttlSeconds);
    const record: SessionRecord = { identity, instance, ttlSeconds: lease.ttlSeconds };
    // The record's put is safe to apply twice (the same key, value and lease), so a copy whose answer is
    // lost is sent again with a short deadline, as a release is (log-retry.ts): waiting out etcd's whole
    // deadline for it spent the caller's wait on a session while the key it wanted lay free (issue 11,
    // swarm seed 8772: 7.9 s of a 7.1 s wait, answered indeterminate).
    const put = { type: 'put' as const, key: sessionKeyOf(lease.id), value: formatSessionRecord(record), lease: lease.id };
    const written = await retryWithin({ clock: this.clock, kind: 'idempotent', deadlineMs: this.clock.now() + OPEN_SESSION_RETRY_BUDGET_MS }, () =>
      this.gateway.txn({ compare: [], success: [put], failure: [], timeoutMs: IDEMPOTENT_REQUEST_TIMEOUT_MS }, { passThrough: ['lease-not-found'] }),
    ).catch(async (error: unknown) => {
      await this.gateway.leaseRevoke(lease.id, ['lease-not-found']).catch(() => undefined);
      // The lease can expire before the record is written (a slow or paused arbiter): that is the
      // typed session-expired, never a raw LockLogError out of the arbiter (found by lockstep explore).
      throw toLockError(error);
    });
    if (!written.succeeded) throw new LockError('unavailable', 'could not record the session; retry');
    this.remember(lease.id, record);
    return { sessionId: lease.id, identity, instance, ttlSeconds: lease.ttlSeconds };
  }

  /** The session's record, checking that `identity` owns it (by identity alone: an instance is no credential, issue 29). */
  async ownedBy(sessionId: LeaseId, identity: string): Promise<SessionRecord> {
    let record = this.owners.get(sessionId);
    if (record === undefined) {
      const response = await this.gateway.range({ key: sessionKeyOf(sessionId) });
      const kv = response.kvs[0];
      record = kv === undefined ? undefined : parseSessionRecord(kv.value);
      if (record === undefined) throw expired(sessionId);
      this.remember(sessionId, record);
    }
    if (record.identity !== identity) {
      // Same words whether the session exists or not would hide nothing here: the caller named it.
      throw new LockError('session-mismatch', `session ${sessionId} does not belong to ${identity}; open your own session`);
    }
    return record;
  }

  forget(sessionId: LeaseId): void {
    this.owners.delete(sessionId);
  }

  private remember(sessionId: LeaseId, record: SessionRecord): void {
    if (this.owners.size >= MAX_CACHED_SESSIONS) {
      const oldest = this.owners.keys().next();
      if (oldest.done !== true) this.owners.delete(oldest.value);
    }
    this.owners.set(sessionId, record);
  }
}

export function expired(sessionId: LeaseId): LockError {
  return new LockError('session-expired', `session ${sessionId} has expired or was closed; open a new session`);
}
