// A member's write path (etcdserver/v3_server.go processInternalRaftRequestOnce l.636-696, 3.4.23):
// too many pending applies → ErrTooManyRequests; a request id and a waiter on it; Propose; the answer
// comes when *this* member applies the entry, or ReqTimeout (7 s) ends the wait with a timeout whose
// outcome is unknown. With no leader, etcd's Propose blocks until one appears: the member holds the
// request and proposes it when its Ready loop reports a leader (sim/raft README), still within the 7 s.
// A follower forwards the proposal to the leader as MsgProp, which can be lost without a word.
import type { Applied, EtcdRequest } from '../etcd/apply.js';
import type { Outcome } from '../etcd/outcome.js';
import type { TimerId } from '../process/process.js';
import type { MemberRuntime } from './member-runtime.js';
import type { EtcdEntry, WireError } from './protocol.js';
import { PROPOSAL_DROPPED, REQUEST_TIMED_OUT, REQUEST_TOO_LARGE, TIMED_OUT_LEADER_FAIL, TOO_MANY_REQUESTS, refusedBy } from './wire-errors.js';

export type ProposalResult =
  | { readonly ok: true; readonly applied: Applied; readonly headerTerm: number }
  | { readonly ok: false; readonly error: WireError };

export type ProposalCallback = (result: ProposalResult) => void;

interface Waiter {
  readonly entry: EtcdEntry;
  readonly done: ProposalCallback;
  readonly startedLocalMs: number;
  readonly timer: TimerId;
  held: boolean;
}

/** Bytes counted per request on top of its keys and values (headers, field tags), for MaxRequestBytes. */
const REQUEST_OVERHEAD_BYTES = 64;

export class Proposals {
  private readonly waiters = new Map<bigint, Waiter>();
  private held: bigint[] = [];

  constructor(private readonly runtime: MemberRuntime) {}

  get pending(): number {
    return this.waiters.size;
  }

  /** Proposes `request`; `done` is called exactly once, unless the member crashes first. */
  propose(request: EtcdRequest, done: ProposalCallback): void {
    const { runtime } = this;
    const { timing, process } = runtime.member;
    const raft = runtime.member.raft();
    if (raft === undefined) throw new Error(`member ${runtime.member.name}: propose before raft started`);
    if (raft.status().committed > runtime.appliedIndex + timing.maxApplyGap) return done({ ok: false, error: TOO_MANY_REQUESTS });
    if (requestBytes(request) > timing.maxRequestBytes) return done({ ok: false, error: REQUEST_TOO_LARGE });
    const entry: EtcdEntry = { requestId: runtime.idGen.next(), request };
    const startedLocalMs = process.localNow();
    const timer = process.setTimer(timing.requestTimeoutMs, () => this.timeOut(entry.requestId));
    this.waiters.set(entry.requestId, { entry, done, startedLocalMs, timer, held: false });
    this.submit(entry.requestId);
  }

  /** The Ready loop reported a leader: held proposals go in, oldest first. */
  onLeader(): void {
    if (this.held.length === 0) return;
    const held = this.held;
    this.held = [];
    for (const requestId of held) {
      const waiter = this.waiters.get(requestId);
      if (waiter === undefined) continue;
      waiter.held = false;
      this.submit(requestId);
    }
  }

  /** This member applied the entry with `requestId`; answers its waiter, if this member proposed it. */
  onApplied(requestId: bigint, outcome: Outcome<Applied>, headerTerm: number): void {
    const waiter = this.waiters.get(requestId);
    if (waiter === undefined) return;
    this.finish(requestId, waiter, outcome.ok ? { ok: true, applied: outcome.value, headerTerm } : { ok: false, error: refusedBy(outcome.error) });
  }

  private submit(requestId: bigint): void {
    const waiter = this.waiters.get(requestId)!;
    const outcome = this.runtime.member.raft()!.propose(waiter.entry);
    if (outcome.kind === 'no-leader') {
      waiter.held = true;
      this.held.push(requestId);
    } else if (outcome.kind === 'dropped') {
      this.finish(requestId, waiter, { ok: false, error: PROPOSAL_DROPPED });
    }
  }

  private timeOut(requestId: bigint): void {
    const waiter = this.waiters.get(requestId);
    if (waiter === undefined) return;
    this.waiters.delete(requestId);
    if (waiter.held) this.held = this.held.filter((id) => id !== requestId);
    waiter.done({ ok: false, error: this.timeoutError(waiter.startedLocalMs) });
  }

  /**
   * parseProposeCtxErr (server.go l.2620-2651): a request that started within two election timeouts
   * before the current leader was elected timed out "due to previous leader failure"; otherwise plainly.
   */
  private timeoutError(startedLocalMs: number): WireError {
    const elected = this.runtime.leadElectedLocalMs;
    const electionMs = this.runtime.member.timing.raft.electionTicks * this.runtime.member.timing.raft.tickMs;
    return startedLocalMs > elected - 2 * electionMs && startedLocalMs < elected ? TIMED_OUT_LEADER_FAIL : REQUEST_TIMED_OUT;
  }

  private finish(requestId: bigint, waiter: Waiter, result: ProposalResult): void {
    this.waiters.delete(requestId);
    this.runtime.member.process.cancelTimer(waiter.timer);
    waiter.done(result);
  }
}

/** A rough encoded size: keys and values of a txn's ops and compares, plus a fixed overhead. */
function requestBytes(request: EtcdRequest): number {
  if (request.kind !== 'txn') return REQUEST_OVERHEAD_BYTES;
  let bytes = REQUEST_OVERHEAD_BYTES;
  for (const compare of request.txn.compare) bytes += compare.key.length + (compare.target === 'value' ? compare.value.length : 8);
  for (const op of [...request.txn.success, ...request.txn.failure]) bytes += op.key.length + (op.type === 'put' ? op.value.length : 0);
  return bytes;
}
