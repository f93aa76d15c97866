// lock.v1 over the simulated network: the ArbiterApi a client library speaks, carried as messages
// between a client process and an arbiter process (ARCHITECTURE.md, "The ports": "a simulated RPC over
// sim links"). Calls and answers cross the network like any other message, so a partition or a pause
// shows up to the client the way a real gRPC call would: as a timeout; and a crashed arbiter as its
// host's kernel shows it (issue 32): the calls on its connection fail at the reset (`indeterminate` if
// mutating, as src/service/network-arbiter.ts classifies a failure after the send), and a call to it while
// it is down is refused at once (`unavailable`: nothing was sent). A restarted arbiter has the same name.
//
// Values cross by reference (the simulator is one JS heap), but errors are rebuilt on the client side
// from plain data, so no LockError object is shared between two simulated processes.
//
// ADR-19: no message names its caller. The arbiter is told who calls by the network itself: the
// sending process's identity, looked up by the serving side, as mTLS names the peer of a connection.
import { LockError, type LockErrorCode } from '../../core/lock-error.js';
import type { ArbiterApi, SealReason } from '../../core/ports/arbiter-api.js';
import { MUTATING_ARBITER_METHODS } from '../../core/ports/arbiter-methods.js';
import { type ArbiterService, authenticated } from '../../core/ports/caller.js';
import type { Deferred, Kernel } from '../kernel/kernel.js';
import type { Unreachable } from '../net/kernel-answers.js';
import type { Network } from '../net/network.js';
import type { SimProcess, TimerId } from '../process/process.js';

export type ArbiterMethod = keyof ArbiterApi;

export interface SerializedLockError {
  readonly code: LockErrorCode;
  readonly message: string;
  readonly region?: string;
  readonly seal?: SealReason;
}

export type ArbiterRpcMessage =
  | { readonly kind: 'arbiter.call'; readonly id: number; readonly method: ArbiterMethod; readonly argument: unknown }
  | { readonly kind: 'arbiter.return'; readonly id: number; readonly value: unknown }
  | { readonly kind: 'arbiter.throw'; readonly id: number; readonly error: SerializedLockError };

export const DEFAULT_RPC_TIMEOUT_MS = 8000;

interface PendingCall {
  readonly answer: Deferred<unknown>;
  readonly deadline: TimerId;
  readonly method: ArbiterMethod;
  /** The arbiter process it went to, and the network's id of its message (for a refusal). */
  readonly server: string;
  readonly messageId: number;
}

/**
 * Serves `arbiter` on `process`: every call runs in the arbiter process and its answer is sent back.
 * A LockError travels as data; anything else thrown is a bug in the arbiter and fails the run.
 * Listens for the process's current incarnation: after a restart, serve the new arbiter again.
 * `identityOf` names the sending process's identity: the simulated transport is trusted, so the
 * caller is authenticated.
 */
export function serveArbiter(network: Network<ArbiterRpcMessage>, process: SimProcess, arbiter: ArbiterService, peers: (name: string) => SimProcess, identityOf: (name: string) => string): void {
  network.listen(process, async (delivery) => {
    const message = delivery.payload;
    if (message.kind !== 'arbiter.call') return;
    const peer = peers(delivery.from);
    try {
      const method = arbiter[message.method] as (caller: unknown, argument: unknown) => Promise<unknown>;
      const value = await method.call(arbiter, authenticated(identityOf(delivery.from)), message.argument);
      network.send(process, peer, { kind: 'arbiter.return', id: message.id, value });
    } catch (error) {
      if (!(error instanceof LockError)) throw error;
      const serialized: SerializedLockError = {
        code: error.code,
        message: error.message.slice(error.code.length + 2),
        ...(error.region === undefined ? {} : { region: error.region }),
        ...(error.seal === undefined ? {} : { seal: error.seal }),
      };
      network.send(process, peer, { kind: 'arbiter.throw', id: message.id, error: serialized });
    }
  });
}

export interface SimArbiterClientOptions {
  readonly kernel: Kernel;
  readonly network: Network<ArbiterRpcMessage>;
  readonly client: SimProcess;
  readonly server: SimProcess;
  /** Picks the server of each call instead (a client that reaches several replicas, replica-router.ts). */
  readonly route?: () => SimProcess;
  /** Per-call deadline on the client's own clock; an acquire adds its waitMs. */
  readonly timeoutMs?: number;
}

/** The client side: an ArbiterApi whose every method is one message to the arbiter process. */
export class SimArbiterClient implements ArbiterApi {
  private nextId = 0;
  private readonly pending = new Map<number, PendingCall>();
  private readonly timeoutMs: number;

  constructor(private readonly options: SimArbiterClientOptions) {
    this.timeoutMs = options.timeoutMs ?? DEFAULT_RPC_TIMEOUT_MS;
    options.network.listen(options.client, (delivery) => this.answer(delivery.payload), (notice) => this.unreachable(notice));
  }

  openSession = this.method('openSession');
  keepAlive = this.method('keepAlive');
  closeSession = this.method('closeSession');
  acquire = this.method('acquire');
  release = this.method('release');
  validate = this.method('validate');
  inspect = this.method('inspect');
  describeKey = this.method('describeKey');
  requestForceRelease = this.method('requestForceRelease');
  approveForceRelease = this.method('approveForceRelease');
  requestEpochAdvance = this.method('requestEpochAdvance');
  approveEpochAdvance = this.method('approveEpochAdvance');
  status = this.method('status');

  private method<M extends ArbiterMethod>(method: M): ArbiterApi[M] {
    return ((argument: unknown) => this.call(method, argument)) as unknown as ArbiterApi[M];
  }

  // The deadline is a plain process timer, cancelled when the answer comes: a call costs no sleep, no
  // cancel signal and no CancelledError. It is held by a pause and dropped by a crash of the client
  // (its memory is gone), as a sleep on the client's clock would be.
  private async call(method: ArbiterMethod, argument: unknown): Promise<unknown> {
    const id = this.nextId++;
    const answer = this.options.kernel.deferred<unknown>();
    const { client } = this.options;
    const server = this.options.route?.() ?? this.options.server;
    const messageId = this.options.network.send(client, server, { kind: 'arbiter.call', id, method, argument });
    const waitMs = method === 'acquire' ? ((argument as { waitMs?: number }).waitMs ?? 0) : 0;
    const deadline = client.setTimer(this.timeoutMs + waitMs, () => {
      if (!this.pending.delete(id)) return;
      const outcome = MUTATING_ARBITER_METHODS.has(method) ? 'indeterminate' : 'unavailable';
      answer.reject(new LockError(outcome, `${method} got no answer from the arbiter within ${this.timeoutMs + waitMs} ms${outcome === 'indeterminate' ? '; it may or may not have happened' : ''}`));
    });
    this.pending.set(id, { answer, deadline, method, server: server.name, messageId });
    return answer.promise;
  }

  // The kernel's answer for a gone arbiter: a refused call (its message id) or every call on a reset connection.
  private unreachable(notice: Unreachable): void {
    for (const [id, call] of this.pending) {
      if (call.server !== notice.peer || (notice.messageId !== undefined && notice.messageId !== call.messageId)) continue;
      this.pending.delete(id);
      this.options.client.cancelTimer(call.deadline);
      const sent = notice.reason === 'reset';
      const outcome = sent && MUTATING_ARBITER_METHODS.has(call.method) ? 'indeterminate' : 'unavailable';
      const what = sent ? `its connection to arbiter ${notice.peer} was reset after the call was sent` : `arbiter ${notice.peer} refused the connection; nothing was sent`;
      call.answer.reject(new LockError(outcome, `${call.method}: ${what}${outcome === 'indeterminate' ? '; it may or may not have happened' : ''}`));
    }
  }

  private answer(message: ArbiterRpcMessage): void {
    if (message.kind === 'arbiter.call') return;
    const waiting = this.pending.get(message.id);
    if (waiting === undefined) return; // a late answer to a call that already timed out
    this.pending.delete(message.id);
    this.options.client.cancelTimer(waiting.deadline);
    const { answer } = waiting;
    if (message.kind === 'arbiter.return') answer.resolve(message.value);
    else {
      const { code, message: text, region, seal } = message.error;
      // Rebuilt on the client's side of the wire (a LockError captures no stack: core/expected-error.ts).
      answer.reject(new LockError(code, text, { ...(region === undefined ? {} : { region }), ...(seal === undefined ? {} : { seal }) }));
    }
  }
}
