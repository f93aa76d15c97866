// Every lock.v1 and admin.v1 call passes here: it is told who calls (peer-identity.ts), counted while in
// flight so a graceful shutdown can wait for it, refused with `unavailable` once the server drains, and
// its LockError turned into a gRPC status with lockstep's detail (wire-errors.ts). No rule lives here
// (STYLE.md: handlers are thin adapters); the arbiter decides everything.
import { Code, ConnectError, type HandlerContext, createContextKey } from '@connectrpc/connect';
import { LockError, isLockError } from '../../core/lock-error.js';
import type { Caller } from '../../core/ports/caller.js';
import { toConnectError } from './wire-errors.js';

export type CallerOutcome = { readonly caller: Caller } | { readonly refused: LockError };

export const CALLER = createContextKey<CallerOutcome>({ refused: new LockError('unauthenticated', 'the transport named no caller') });

export class CallGuard {
  #inFlight = 0;
  #draining = false;
  #idle: Array<() => void> = [];

  constructor(private readonly onUnexpected: (error: unknown) => void) {}

  get inFlight(): number {
    return this.#inFlight;
  }

  get draining(): boolean {
    return this.#draining;
  }

  /**
   * Calls that would start something (a session, a hold, an operator request) are answered `unavailable`
   * from now on, so their callers go to another arbiter; calls that end or keep what exists (release,
   * keepalive, close, reads) are still served while connections stay open, so a holder's release is not
   * turned into a hold left to expire. Calls in flight go on to their end.
   */
  drain(): void {
    this.#draining = true;
  }

  /** Resolves once no call is in flight (at once if none is). */
  idle(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve();
    return new Promise((done) => this.#idle.push(done));
  }

  run<T>(context: HandlerContext, call: (caller: Caller) => Promise<T>, starts = false): Promise<T> {
    return this.runAs(context.values.get(CALLER), call, starts);
  }

  /** `run` for a caller already told apart (the unary fast path, unary-fast-path.ts). */
  async runAs<T>(outcome: CallerOutcome, call: (caller: Caller) => Promise<T>, starts = false): Promise<T> {
    if (this.#draining && starts) throw toConnectError(new LockError('unavailable', 'this arbiter is shutting down; call another arbiter (the client fails over)'));
    if ('refused' in outcome) throw toConnectError(outcome.refused);
    this.#inFlight += 1;
    try {
      return await call(outcome.caller);
    } catch (error) {
      throw this.toWire(error);
    } finally {
      this.#inFlight -= 1;
      if (this.#inFlight === 0) for (const done of this.#idle.splice(0)) done();
    }
  }

  toWire(error: unknown): ConnectError {
    if (isLockError(error)) return toConnectError(error);
    if (error instanceof ConnectError) return error;
    this.onUnexpected(error);
    return new ConnectError('internal error in the arbiter (logged on the server)', Code.Internal);
  }
}
