// ADR-20 (force-release) and ADR-03 (epoch advance): an action that ends holds its caller does not own
// needs two different authenticated operators. The first proposes it with a reason; a second, different
// one approves it by the proposal's id. Proposals live in the arbiter's memory only: losing one (a
// restart) costs a new request, never a wrong release, since the approved action re-reads the log.
import { assert } from '../assert.js';
import { LockError } from '../lock-error.js';
import type { Caller } from '../ports/caller.js';
import type { Clock } from '../ports/clock.js';
import { checkIdentity } from './sessions.js';

/** How long a proposal waits for its approver: long enough to reach a second person at night. */
export const APPROVAL_WINDOW_MS = 30 * 60 * 1000;
/** A bound on proposals waiting at once (TigerStyle: a limit on everything). */
export const MAX_PENDING_APPROVALS = 1000;
export const MIN_REASON_LENGTH = 10;

export interface Proposal<T> {
  readonly requestId: string;
  readonly requester: string;
  readonly value: T;
}

interface Pending<T> extends Proposal<T> {
  readonly expiresAtMs: number;
}

export function checkReason(reason: unknown): string {
  if (typeof reason !== 'string' || reason.trim().length < MIN_REASON_LENGTH) {
    throw new LockError('approval-required', `a reason of at least ${MIN_REASON_LENGTH} characters is required, saying why (it is kept with the record for audit)`);
  }
  return reason.trim();
}

/** ADR-20: only an identity the transport proved may act as an operator. */
export function checkAuthenticated(caller: Caller, role: string): string {
  const identity = checkIdentity(caller.identity, role);
  if (!caller.authenticated) {
    throw new LockError('unauthenticated', `${role} ${identity} was not authenticated by the transport; operator actions need a verified client certificate (serve with --tls-cert, --tls-key and --client-ca, ADR-19/20)`);
  }
  return identity;
}

export class PendingApprovals<T> {
  readonly #pending = new Map<string, Pending<T>>();
  #next = 1;

  /**
   * `idPrefix` tells this arbiter's proposals from another replica's (src/ gives each process a random
   * one), so an approval sent to the wrong replica finds nothing rather than someone else's proposal.
   */
  constructor(
    private readonly kind: string,
    private readonly clock: Clock,
    private readonly idPrefix: string,
  ) {}

  propose(requester: string, value: T): Proposal<T> {
    const nowMs = this.clock.now();
    this.expire(nowMs);
    if (this.#pending.size >= MAX_PENDING_APPROVALS) {
      throw new LockError('unavailable', `${MAX_PENDING_APPROVALS} ${this.kind} requests are already waiting for approval on this arbiter; approve or let some expire (${APPROVAL_WINDOW_MS / 60_000} min) first`);
    }
    const requestId = `${this.idPrefix}${this.kind}-${this.#next++}`;
    const pending: Pending<T> = { requestId, requester, value, expiresAtMs: nowMs + APPROVAL_WINDOW_MS };
    this.#pending.set(requestId, pending);
    return { requestId, requester, value };
  }

  /**
   * Takes the proposal out, if `approver` may approve it: it is used up whether or not the log then
   * accepts the action, and two approvals racing for one proposal cannot both run it.
   */
  claim(approver: string, requestId: string): Proposal<T> {
    this.expire(this.clock.now());
    const pending = this.#pending.get(requestId);
    if (pending === undefined) {
      throw new LockError('stale', `no ${this.kind} request ${JSON.stringify(requestId.slice(0, 80))} is waiting on this arbiter: it was approved already, expired after ${APPROVAL_WINDOW_MS / 60_000} min, or was made through another arbiter; request it again`);
    }
    if (pending.requester === approver) {
      throw new LockError('approval-required', `${approver} requested ${requestId} and cannot approve it too; a second, different operator must approve (ADR-20)`);
    }
    this.#pending.delete(requestId);
    assert(pending.requester !== approver, 'a proposal is claimed only by someone other than its requester');
    return pending;
  }

  private expire(nowMs: number): void {
    for (const [id, pending] of this.#pending) {
      if (pending.expiresAtMs <= nowMs) this.#pending.delete(id);
    }
  }
}
