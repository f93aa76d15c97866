// What the client library has in flight to the arbiter for each key, so that no task of the process is
// handed a hold that a release of the same process is deleting (issue 11, S1). Bookkeeping only: the
// calls themselves are LockClient's.
//
// The rule it serves (ADR-13 counts re-entrancy here, so the arbiter cannot tell two tasks of one session
// apart: it answers the second "re-entered" with the first's hold):
// - a key whose release was sent is not acquired again until that release's outcome is known (settled);
// - an acquire answered with the token of a hold whose release was sent while that acquire was in flight
//   names a hold the release deletes (or has deleted): it is never handed out.
import { assert } from '../assert.js';
import type { ReleaseRequest } from '../ports/arbiter-api.js';
import type { FencingToken } from '../units.js';
import type { ClientSession } from './client-session.js';

/** A release sent whose outcome is not known yet: in flight, or answered in doubt (a timeout). */
export interface PendingRelease {
  readonly request: ReleaseRequest;
  readonly session: ClientSession;
  /** Its sequence number among the key's releases. */
  readonly seq: number;
  /** Settles (never rejects) when the send now in flight has its answer; undefined between sends. */
  inFlight: Promise<void> | undefined;
}

/** One outer acquire, from its send to its answer. */
export interface AcquireTicket {
  readonly key: string;
  /** Releases of the key numbered above this one may delete a hold it is answered with. */
  readonly releasesBefore: number;
}

interface KeyState {
  acquiresInFlight: number;
  releasesSent: number;
  /** Releases sent while an acquire was in flight: (sequence number, token). */
  readonly releasedDuringAcquires: Array<{ readonly seq: number; readonly token: FencingToken }>;
  pending: PendingRelease | undefined;
  /** An acquire answered in doubt on this session: the hold may exist with no handle owning it. */
  acquireInDoubt: ClientSession | undefined;
}

/** Releases remembered per key while acquires fly (TigerStyle: a limit on everything); a real process sends a few. */
const MAX_REMEMBERED_RELEASES = 64;

export class KeyTraffic {
  private readonly keys = new Map<string, KeyState>();

  /**
   * An outer acquire of `key` is sent now. A release still pending counts as sent during it: the acquire
   * may be answered with the hold that release deletes (the caller settles pending releases first, so
   * this is the rare case of one sent while it awaited its session).
   */
  beginAcquire(key: string): AcquireTicket {
    const state = this.stateOf(key);
    state.acquiresInFlight += 1;
    const pending = state.pending;
    if (pending === undefined) return { key, releasesBefore: state.releasesSent };
    if (!state.releasedDuringAcquires.some((release) => release.seq === pending.seq)) this.remember(state, pending.seq, pending.request.token);
    return { key, releasesBefore: pending.seq - 1 };
  }

  /** Whether `token` is of a hold whose release was sent while `ticket`'s acquire was in flight. */
  releasedDuring(ticket: AcquireTicket, token: FencingToken): boolean {
    const state = this.keys.get(ticket.key);
    assert(state !== undefined && state.acquiresInFlight > 0, () => `no acquire of ${ticket.key} is in flight`);
    return state.releasedDuringAcquires.some((release) => release.seq > ticket.releasesBefore && release.token === token);
  }

  endAcquire(ticket: AcquireTicket): void {
    const state = this.keys.get(ticket.key);
    assert(state !== undefined && state.acquiresInFlight > 0, () => `no acquire of ${ticket.key} is in flight`);
    state.acquiresInFlight -= 1;
    if (state.acquiresInFlight === 0) state.releasedDuringAcquires.length = 0;
    this.forgetIfIdle(ticket.key, state);
  }

  acquiresInFlight(key: string): number {
    return this.keys.get(key)?.acquiresInFlight ?? 0;
  }

  /** A release of `request.key` is being sent: it is pending until `settled`. At most one per key. */
  beginRelease(request: ReleaseRequest, session: ClientSession): PendingRelease {
    const state = this.stateOf(request.key);
    // An outer acquire settles the key's pending release before it is sent, and a release needs a hold
    // that acquire made, so two pending releases of one key mean the client broke its own rule.
    assert(state.pending === undefined, () => `a second release of ${request.key} while one is pending`);
    state.releasesSent += 1;
    if (state.acquiresInFlight > 0) this.remember(state, state.releasesSent, request.token);
    const pending: PendingRelease = { request, session, seq: state.releasesSent, inFlight: undefined };
    state.pending = pending;
    return pending;
  }

  pendingRelease(key: string): PendingRelease | undefined {
    return this.keys.get(key)?.pending;
  }

  /** The release's outcome is known (released, not held, or its session is gone). */
  settled(pending: PendingRelease): void {
    const state = this.keys.get(pending.request.key);
    if (state?.pending !== pending) return;
    state.pending = undefined;
    this.forgetIfIdle(pending.request.key, state);
  }

  /** Records an acquire answered in doubt; false if one is recorded already (one resolver per key). */
  doubtAcquire(key: string, session: ClientSession): boolean {
    const state = this.stateOf(key);
    if (state.acquireInDoubt !== undefined) return false;
    state.acquireInDoubt = session;
    return true;
  }

  acquireInDoubt(key: string): ClientSession | undefined {
    return this.keys.get(key)?.acquireInDoubt;
  }

  /** The acquire in doubt is resolved: a handle owns the hold, or there is none on that session. */
  resolvedAcquire(key: string): void {
    const state = this.keys.get(key);
    if (state === undefined) return;
    state.acquireInDoubt = undefined;
    this.forgetIfIdle(key, state);
  }

  /** Keys with anything in flight or in doubt (tests and diagnostics). */
  get size(): number {
    return this.keys.size;
  }

  private stateOf(key: string): KeyState {
    let state = this.keys.get(key);
    if (state === undefined) {
      state = { acquiresInFlight: 0, releasesSent: 0, releasedDuringAcquires: [], pending: undefined, acquireInDoubt: undefined };
      this.keys.set(key, state);
    }
    return state;
  }

  private remember(state: KeyState, seq: number, token: FencingToken): void {
    state.releasedDuringAcquires.push({ seq, token });
    if (state.releasedDuringAcquires.length > MAX_REMEMBERED_RELEASES) state.releasedDuringAcquires.shift();
  }

  private forgetIfIdle(key: string, state: KeyState): void {
    if (state.acquiresInFlight === 0 && state.pending === undefined && state.acquireInDoubt === undefined) this.keys.delete(key);
  }
}
