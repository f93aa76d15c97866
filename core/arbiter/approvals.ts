// ADR-20 (force-release) and ADR-03 (epoch advance): an action that ends holds its caller does not own
// needs two different authenticated operators. The first proposes it with a reason; a second, different
// one approves it by the proposal's id. Proposals live in the arbiter's memory only: losing one (a
// restart) costs a new request, never a wrong release, since the approved action re-reads the log.
import { assert } from '../assert.js';
import { MAX_PENDING_APPROVALS, MAX_PENDING_APPROVALS_PER_NAMESPACE, MAX_PENDING_APPROVALS_PER_OPERATOR } from '../limits.js';
import { LockError } from '../lock-error.js';
import type { Caller } from '../ports/caller.js';
import type { Clock } from '../ports/clock.js';
import { checkIdentity } from './sessions.js';

/** How long a proposal waits for its approver: long enough to reach a second person at night. */
export const APPROVAL_WINDOW_MS = 30 * 60 * 1000;
export const MIN_REASON_LENGTH = 10;
export { MAX_PENDING_APPROVALS };

export interface Proposal<T> {
  readonly requestId: string;
  readonly requester: string;
  readonly value: T;
}

interface Pending<T> extends Proposal<T> {
  readonly expiresAtMs: number;
  /** The namespace of the key it acts on; undefined for one that acts on the whole log (an epoch advance). */
  readonly namespace: string | undefined;
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

  /**
   * Bounded three ways (core/limits.ts, issue 28): in all, per requester and per namespace, so one
   * operator or one namespace's owners cannot fill the table another needs (an epoch advance, the only
   * way to reopen a sealed log, was refused for 30 minutes behind one operator's requests).
   */
  propose(requester: string, value: T, namespace?: string): Proposal<T> {
    const nowMs = this.clock.now();
    this.expire(nowMs);
    this.checkRoom(requester, namespace);
    const requestId = `${this.idPrefix}${this.kind}-${this.#next++}`;
    const pending: Pending<T> = { requestId, requester, value, namespace, expiresAtMs: nowMs + APPROVAL_WINDOW_MS };
    this.#pending.set(requestId, pending);
    return { requestId, requester, value };
  }

  private checkRoom(requester: string, namespace: string | undefined): void {
    const waitMin = APPROVAL_WINDOW_MS / 60_000;
    if (this.#pending.size >= MAX_PENDING_APPROVALS) {
      throw new LockError('resource-exhausted', `${MAX_PENDING_APPROVALS} ${this.kind} requests are already waiting for approval on this arbiter (MAX_PENDING_APPROVALS); approve or let some expire (${waitMin} min) first`);
    }
    let byRequester = 0;
    let byNamespace = 0;
    for (const pending of this.#pending.values()) {
      if (pending.requester === requester) byRequester += 1;
      if (namespace !== undefined && pending.namespace === namespace) byNamespace += 1;
    }
    if (byRequester >= MAX_PENDING_APPROVALS_PER_OPERATOR) {
      throw new LockError('resource-exhausted', `${requester} already has ${byRequester} ${this.kind} requests waiting (MAX_PENDING_APPROVALS_PER_OPERATOR ${MAX_PENDING_APPROVALS_PER_OPERATOR}); have them approved or let them expire (${waitMin} min) first`);
    }
    if (byNamespace >= MAX_PENDING_APPROVALS_PER_NAMESPACE) {
      throw new LockError('resource-exhausted', `namespace ${namespace} already has ${byNamespace} ${this.kind} requests waiting (MAX_PENDING_APPROVALS_PER_NAMESPACE ${MAX_PENDING_APPROVALS_PER_NAMESPACE}); have them approved or let them expire (${waitMin} min) first`);
    }
  }

  /**
   * Takes the proposal out, if `approver` may approve it: it is used up whether or not the log then
   * accepts the action, and two approvals racing for one proposal cannot both run it. Check, then change
   * (issue 28): `authorise` (the approver's authority over what the proposal acts on) runs before the
   * proposal leaves the table, so a refused approval consumes nothing and the proposal keeps waiting.
   */
  claim(approver: string, requestId: string, authorise: (proposal: Proposal<T>) => void = () => undefined): Proposal<T> {
    this.expire(this.clock.now());
    const pending = this.#pending.get(requestId);
    if (pending === undefined) {
      throw new LockError('stale', `no ${this.kind} request ${JSON.stringify(requestId.slice(0, 80))} is waiting on this arbiter: it was approved already, expired after ${APPROVAL_WINDOW_MS / 60_000} min, or was made through another arbiter; request it again`);
    }
    if (pending.requester === approver) {
      throw new LockError('approval-required', `${approver} requested ${requestId} and cannot approve it too; a second, different operator must approve (ADR-20)`);
    }
    authorise(pending);
    this.#pending.delete(requestId);
    assert(pending.requester !== approver, 'a proposal is claimed only by someone other than its requester');
    return pending;
  }

  /** Proposals waiting now (for tests and status). */
  get size(): number {
    return this.#pending.size;
  }

  private expire(nowMs: number): void {
    for (const [id, pending] of this.#pending) {
      if (pending.expiresAtMs <= nowMs) this.#pending.delete(id);
    }
  }
}
