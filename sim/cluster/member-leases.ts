// A member's lease paths that do not go through Raft (design/etcd-behaviour.md 1.3-1.7, 1.11, 2.1):
// - keepalive (v3_server.go LeaseRenew): on a member that believes it leads (its Ready loop's view), an
//   optional ReadIndex round first (3.5.13 ensureLeadership, etcd#15247: `confirmLeadershipOnRenew`),
//   then wait up to 1 s for apply to catch up with commit, then lessor.Renew; an expired lease holds the
//   renew until it is revoked (TTL 0) or the lessor is demoted. Not primary, or a follower: forward to
//   the leader over leasehttp for up to 7 s, waiting for a leader (re-checked every election timeout)
//   when there is none;
// - the leasehttp handlers (leasehttp/http.go ServeHTTP): wait up to 1 s for apply, then ask the lessor.
//   They check only lessor primacy, never raft leadership, so a leader whose raft loop is stuck on a
//   slow fsync, and so never learns it lost, keeps renewing (etcd#15247);
// - time-to-live (v3_server.go LeaseTimeToLive), locally on the leader or forwarded;
// - the lessor loop (lessor.go runLoop, server.go revokeExpiredLeases): every 500 ms on the primary,
//   expired leases are revoked, one proposal each, at most 16 in flight per batch.
import type { LeaseId } from '../../core/units.js';
import type { TimerId } from '../process/process.js';
import type { MemberRuntime } from './member-runtime.js';
import { type LeaseHttpRequest, type LeaseHttpResponse, type WireError } from './protocol.js';
import { APPLY_WAIT_TIMED_OUT, NO_LEADER, NOT_PRIMARY, REQUEST_TIMED_OUT } from './wire-errors.js';

export type KeepAliveResult = { readonly ok: true; readonly ttlSeconds: number } | { readonly ok: false; readonly error: WireError };
export type TimeToLiveResult =
  | { readonly ok: true; readonly ttlSeconds: number; readonly grantedTtlSeconds: number; readonly keys: readonly string[] }
  | { readonly ok: false; readonly error: WireError };

type LocalRenew = { readonly kind: 'renewed'; readonly ttlSeconds: number } | { readonly kind: 'not-found' } | { readonly kind: 'not-primary' };
type HttpAnswer = Omit<LeaseHttpResponse, 'type' | 'requestId'>;
type Forwarded = { readonly ok: true; readonly answer: HttpAnswer } | { readonly ok: false; readonly error: WireError };

interface PendingPost {
  readonly peer: string;
  readonly answered: (answer: HttpAnswer) => void;
  /** The connection was refused or reset: the POST failed without an answer. */
  readonly broken: () => void;
}

const NOT_FOUND_TTL: TimeToLiveResult = { ok: true, ttlSeconds: -1, grantedTtlSeconds: 0, keys: [] };

export class LeaseService {
  private expiredWaits: { readonly id: LeaseId; readonly done: (renew: LocalRenew) => void }[] = [];
  private readonly httpPending = new Map<number, PendingPost>();
  private nextHttpId = 0;
  private loopTimer: TimerId = -1;

  constructor(private readonly runtime: MemberRuntime) {}

  // ---- client requests ------------------------------------------------------------------------

  keepAlive(id: LeaseId, done: (result: KeepAliveResult) => void): void {
    const { member } = this.runtime;
    if (!this.runtime.isLeader()) return this.forwardRenew(id, done);
    const renew = (): void =>
      this.afterApplyCatchesUp((ok) => {
        if (!ok) return done({ ok: false, error: APPLY_WAIT_TIMED_OUT });
        this.renewLocal(id, (renewed) => {
          if (renewed.kind === 'not-primary') return this.forwardRenew(id, done);
          done({ ok: true, ttlSeconds: renewed.kind === 'renewed' ? renewed.ttlSeconds : 0 });
        });
      });
    if (!member.confirmLeadershipOnRenew) return renew();
    // 3.5.13 ensureLeadership: a full ReadIndex round, then raft's own view of the leader.
    this.runtime.reads.read((error) => {
      if (error !== undefined || member.raft()?.status().lead !== member.name) {
        this.runtime.trace('etcd.lease.leadership-unconfirmed', { id, reason: error?.message ?? 'not leader' });
        return done({ ok: false, error: NOT_PRIMARY });
      }
      renew();
    });
  }

  timeToLive(id: LeaseId, keys: boolean, done: (result: TimeToLiveResult) => void): void {
    if (this.runtime.isLeader()) {
      return this.afterApplyCatchesUp((ok) => done(ok ? this.localTimeToLive(id, keys) : { ok: false, error: APPLY_WAIT_TIMED_OUT }));
    }
    this.forward('ttl', id, keys, (result) => {
      if (!result.ok) return done(result);
      const { answer } = result;
      done(answer.status === 404 ? NOT_FOUND_TTL : { ok: true, ttlSeconds: answer.ttlSeconds, grantedTtlSeconds: answer.grantedTtlSeconds, keys: answer.keys });
    });
  }

  // ---- leasehttp: the leader's handlers and the follower's answers ------------------------------

  onHttpRequest(from: string, request: LeaseHttpRequest): void {
    const respond = (answer: HttpAnswer): void => this.runtime.member.mux.send(from, { type: 'leasehttp.response', requestId: request.requestId, ...answer });
    this.afterApplyCatchesUp((ok) => {
      if (!ok) return respond(httpStatus(408));
      if (request.path === 'ttl') {
        const ttl = this.localTimeToLive(request.id, request.keys);
        return respond(ttl.ok && ttl.ttlSeconds !== -1 ? { status: 200, ttlSeconds: ttl.ttlSeconds, grantedTtlSeconds: ttl.grantedTtlSeconds, keys: ttl.keys } : httpStatus(404));
      }
      this.renewLocal(request.id, (renewed) => {
        if (renewed.kind === 'renewed') respond({ ...httpStatus(200), ttlSeconds: renewed.ttlSeconds });
        else respond(httpStatus(renewed.kind === 'not-found' ? 404 : 400));
      });
    });
  }

  onHttpResponse(response: LeaseHttpResponse): void {
    const pending = this.httpPending.get(response.requestId);
    if (pending === undefined) return;
    this.httpPending.delete(response.requestId);
    pending.answered(response);
  }

  /** The peer's process died with our POSTs on its connection: they fail (and are retried). */
  onPeerReset(peer: string): void {
    for (const [requestId, pending] of [...this.httpPending]) {
      if (pending.peer !== peer) continue;
      this.httpPending.delete(requestId);
      pending.broken();
    }
  }

  // ---- lessor primacy and the expiry loop -------------------------------------------------------

  onPromote(): void {
    if (this.loopTimer < 0) this.armLoop();
  }

  /** Demote: blocked renews of expired leases end with ErrNotPrimary; the loop stops. */
  onDemote(): void {
    if (this.loopTimer >= 0) this.runtime.member.process.cancelTimer(this.loopTimer);
    this.loopTimer = -1;
    const waits = this.expiredWaits;
    this.expiredWaits = [];
    for (const wait of waits) wait.done({ kind: 'not-primary' });
  }

  /** After a revoke is applied: renews that waited on that lease answer "not found" (TTL 0). */
  onRevoked(): void {
    if (this.expiredWaits.length === 0) return;
    const { lessor } = this.runtime.state;
    const gone = this.expiredWaits.filter((wait) => !lessor.has(wait.id));
    if (gone.length === 0) return;
    this.expiredWaits = this.expiredWaits.filter((wait) => lessor.has(wait.id));
    for (const wait of gone) wait.done({ kind: 'not-found' });
  }

  // ---- internals --------------------------------------------------------------------------------

  /** waitAppliedIndex / ApplyWait: until applied reaches the committed index known now, at most 1 s. */
  private afterApplyCatchesUp(then: (ok: boolean) => void): void {
    this.runtime.waitAppliedWithin(this.runtime.handedIndex, this.runtime.member.timing.applyWaitTimeoutMs, then);
  }

  /** lessor.Renew, including its blocking cases. */
  private renewLocal(id: LeaseId, done: (renew: LocalRenew) => void, checkpointDone = false): void {
    const { lessor } = this.runtime.state;
    const result = lessor.renew(id, this.runtime.member.process.localNow(), { checkpointDone });
    switch (result.kind) {
      case 'renewed':
        this.runtime.trace('etcd.lease.renew', { id, ttlSeconds: result.ttlSeconds });
        return done(result);
      case 'not-found':
      case 'not-primary':
        return done(result);
      case 'expired-wait':
        this.expiredWaits.push({ id, done });
        return;
      case 'checkpoint-first':
        // Renew proposes the cleared remainder and waits for it (lessor.go l.409, 431-433); 3.4 ignores its error.
        this.runtime.proposals.propose({ kind: 'lease-checkpoint', checkpoints: [result.checkpoint] }, () => this.renewLocal(id, done, true));
        return;
    }
  }

  private forwardRenew(id: LeaseId, done: (result: KeepAliveResult) => void): void {
    this.forward('renew', id, false, (result) => {
      if (!result.ok) return done(result);
      done({ ok: true, ttlSeconds: result.answer.status === 404 ? 0 : result.answer.ttlSeconds });
    });
  }

  /**
   * The forwarding loop of LeaseRenew / LeaseTimeToLive: until ReqTimeout, find the leader (waitLeader:
   * re-check every election timeout; out of time there → ErrNoLeader) and POST to it; 200 and 404 are
   * answers, anything else (400 not primary, 408 apply wait, a refused or reset connection to a leader
   * whose process died) is retried. An unanswered POST (a partition, a machine without power) hangs
   * until the deadline → ErrTimeout.
   */
  private forward(path: 'renew' | 'ttl', id: LeaseId, keys: boolean, done: (result: Forwarded) => void): void {
    const { process, timing, mux } = this.runtime.member;
    let settled = false;
    let waitingForLeader = false;
    let requestId = -1;
    const settle = (result: Forwarded): void => {
      if (settled) return;
      settled = true;
      process.cancelTimer(deadline);
      this.httpPending.delete(requestId);
      done(result);
    };
    const deadline = process.setTimer(timing.requestTimeoutMs, () => settle({ ok: false, error: waitingForLeader ? NO_LEADER : REQUEST_TIMED_OUT }));
    const attempt = (): void => {
      if (settled) return;
      const leader = this.runtime.lead;
      waitingForLeader = leader === null;
      if (leader === null) {
        process.setTimer(timing.waitLeaderRetryMs, attempt);
        return;
      }
      requestId = this.nextHttpId++;
      const sent = requestId;
      const retry = (): void => void process.setTimer(timing.leaseForwardRetryMs, attempt);
      this.httpPending.set(sent, {
        peer: leader,
        answered: (answer) => (answer.status === 200 || answer.status === 404 ? settle({ ok: true, answer }) : retry()),
        broken: retry,
      });
      mux.connectAndSend(leader, { type: 'leasehttp.request', requestId: sent, path, id, keys }, () => {
        const pending = this.httpPending.get(sent);
        if (pending === undefined) return;
        this.httpPending.delete(sent);
        pending.broken();
      });
    };
    attempt();
  }

  private localTimeToLive(id: LeaseId, keys: boolean): TimeToLiveResult {
    const ttl = this.runtime.state.lessor.timeToLive(id, this.runtime.member.process.localNow());
    if (ttl === undefined) return NOT_FOUND_TTL;
    return { ok: true, ttlSeconds: ttl.ttlSeconds, grantedTtlSeconds: ttl.grantedTtlSeconds, keys: keys ? ttl.keys : [] };
  }

  /** The runLoop ticks on a fixed phase from the member's start, as a free-running Go ticker would. */
  private armLoop(): void {
    const { process, timing } = this.runtime.member;
    const next = nextTickAt(this.runtime.startedLocalMs, process.localNow(), timing.lessorLoopMs);
    this.loopTimer = process.setTimerAt(next, () => this.loopTick());
  }

  private loopTick(): void {
    this.loopTimer = -1;
    const { lessor } = this.runtime.state;
    if (!lessor.isPrimary()) return;
    const nowMs = this.runtime.member.process.localNow();
    const expired = lessor.findExpiredLeases(nowMs);
    if (expired.length > 0) {
      this.runtime.trace('etcd.lease.expired', { ids: expired });
      this.revokeExpired(expired);
    }
    for (const checkpoints of lessor.checkpointScheduledLeases(nowMs)) {
      this.runtime.proposals.propose({ kind: 'lease-checkpoint', checkpoints }, () => {});
    }
    this.armLoop();
  }

  /** server.go revokeExpiredLeases: one LeaseRevoke proposal per lease, at most maxPendingRevokes at once. */
  private revokeExpired(ids: readonly LeaseId[]): void {
    const { member } = this.runtime;
    const run = (): void => {
      let next = 0;
      let inFlight = 0;
      const pump = (): void => {
        while (inFlight < member.timing.maxPendingRevokes && next < ids.length) {
          const id = ids[next++]!;
          inFlight++;
          this.runtime.proposals.propose({ kind: 'lease-revoke', id }, (result) => {
            inFlight--;
            if (!result.ok) this.runtime.trace('etcd.lease.revoke-failed', { code: result.error.code, id });
            pump();
          });
        }
      };
      pump();
    };
    if (!member.confirmLeadershipOnRevoke) return run();
    // 3.5.13: revokeExpiredLeases confirms leadership first and drops the batch if it cannot.
    this.runtime.reads.read((error) => {
      if (error === undefined && member.raft()?.status().lead === member.name) return run();
      this.runtime.trace('etcd.lease.revoke-skipped', { ids, reason: error?.message ?? 'not leader' });
    });
  }
}

/**
 * The next tick of a free-running ticker started at `startMs`, strictly after `nowMs`. Rounding can make
 * start + k * period - start come out just below k * period at the very tick k, which would arm tick k
 * again at once, forever (seen after a restore: start 6334.022642892416, now 16834.022642892414).
 */
export function nextTickAt(startMs: number, nowMs: number, periodMs: number): number {
  const ticks = Math.floor((nowMs - startMs) / periodMs) + 1;
  const next = startMs + ticks * periodMs;
  return next > nowMs ? next : startMs + (ticks + 1) * periodMs;
}

function httpStatus(status: 200 | 400 | 404 | 408): HttpAnswer {
  return { status, ttlSeconds: 0, grantedTtlSeconds: 0, keys: [] };
}
