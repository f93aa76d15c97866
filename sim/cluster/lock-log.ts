// The LockLog port over the simulated network: what src/etcd/ is to real etcd, SimLockLog is to the
// simulated cluster, and it behaves the same way:
// - one request message per call, on the current endpoint; no retries (a retried write could apply twice),
//   except the calls safe to send twice (a keepalive, a read), hedged over the members by the rule the real
//   adapter uses too (core/ports/hedge.ts: issue 11 L6, issue 35);
// - a deadline per call on the client's own clock (default 8 s: etcd's 7 s ReqTimeout plus a margin, so
//   etcd's own timeout answer normally arrives first) → `timeout`, indeterminate for writes;
// - errors from the member keep etcd's classification: refused ones failed, the others indeterminate
//   for writes; after `unavailable`, `timeout` or `not-leader` the next call starts at the next endpoint;
// - failover within a call only while nothing was sent: a connection refused by the member's machine
//   (its process is down, the machine up and reachable; ports.ts) sends the call to the next endpoint,
//   like the real adapter's "No connection established". The client also keeps a health flag per
//   endpoint, set by a refusal, a reset of its connection (the member's process died) or an unanswered
//   keepalive ping (a partition, a pause, a machine without power); a flagged endpoint is skipped for
//   `reconnectBackoffMs` (gRPC's first reconnect backoff, 1 s), then tried again. The client never looks
//   at a member's state: it learns only from messages, refusals, resets and its own timers;
// - watches are message streams (lock-log-watch.ts); while any is open on an endpoint, the connection is
//   pinged like the real adapter's gRPC keepalive (every 10 s, 5 s to answer).
// A crash of the client process loses this object with the rest of its memory: pending calls never settle.
import { HEDGE_AFTER_MS, KEEPALIVE_TIMEOUT_MS, hedgedCall, type HedgeTimers } from '../../core/ports/hedge.js';
import { LockLogError } from '../../core/ports/lock-log-error.js';
import type {
  LeaseGrantResponse, LeaseKeepAliveResponse, LeaseTimeToLiveResponse, LockLog, RangeRequest, RangeResponse, ResponseHeader,
  StatusResponse, TxnRequest, TxnResponse, Watch, WatchHandlers, WatchRequest,
} from '../../core/ports/lock-log.js';
import type { LeaseId, Revision } from '../../core/units.js';
import type { Deferred, Kernel } from '../kernel/kernel.js';
import type { SimProcess, TimerId } from '../process/process.js';
import { Endpoints } from './lock-log-endpoints.js';
import { ClientWatches } from './lock-log-watch.js';
import type { EtcdMember } from './member.js';
import { portsOf, type ClusterNetwork, type PortMux } from './ports.js';
import { mutates, type ClientRequest, type ClusterMessage, type ResponseMessage, type ResultBody } from './protocol.js';

export interface SimLockLogOptions {
  readonly kernel: Kernel;
  readonly network: ClusterNetwork;
  /** The process this client runs in; its clock times the calls. */
  readonly client: SimProcess;
  /** Members (or their process names), in the order the client tries them. */
  readonly endpoints: readonly (EtcdMember | string)[];
  /** Deadline of each call (and of a watch's creation). Default 8000 ms. */
  readonly requestTimeoutMs?: number;
  /** Deadline of a keepalive over every member (core/ports/hedge.ts). Default KEEPALIVE_TIMEOUT_MS, at most requestTimeoutMs. */
  readonly keepAliveTimeoutMs?: number;
  /** When a hedged call (a keepalive, a read) is also sent to the next member; Infinity: never. Default HEDGE_AFTER_MS. */
  readonly hedgeAfterMs?: number;
  /** How long an endpoint whose connection broke is skipped. Default 1000 ms. */
  readonly reconnectBackoffMs?: number;
  /** gRPC keepalive while watches are open: ping interval and answer timeout. Default 10 s and 5 s. */
  readonly keepaliveTimeMs?: number;
  readonly keepaliveTimeoutMs?: number;
  /** The port this client binds in its process. Default `lock-log-<n>`. */
  readonly port?: string;
}

export interface SimLockLog extends LockLog {
  readonly port: string;
  /** The member the next call goes to. */
  readonly currentEndpoint: string;
}

export const DEFAULT_SIM_REQUEST_TIMEOUT_MS = 8_000;
const MOVE_ON_CODES: ReadonlySet<LockLogError['code']> = new Set(['unavailable', 'timeout', 'not-leader']);

type Answer = { readonly header: ResponseHeader; readonly body: ResultBody };

interface PendingCall {
  endpoint: number;
  description: string;
  /** Endpoints still to try if the connection is refused (nothing was sent). */
  failoversLeft: number;
  readonly what: string;
  readonly request: ClientRequest;
  readonly mutating: boolean;
  readonly answer: Deferred<Answer>;
  readonly timer: TimerId;
  readonly deadlineMs: number;
}

const portCounts = new WeakMap<SimProcess, number>();

export function createSimLockLog(options: SimLockLogOptions): SimLockLog {
  return new SimLockLogClient(options);
}

class SimLockLogClient implements SimLockLog {
  readonly port: string;
  private readonly kernel: Kernel;
  private readonly client: SimProcess;
  private readonly mux: PortMux;
  private readonly endpoints: Endpoints;
  private readonly pending = new Map<number, PendingCall>();
  private readonly watches: ClientWatches;
  private readonly requestTimeoutMs: number;
  private readonly keepAliveTimeoutMs: number;
  private readonly hedgeAfterMs: number;
  private readonly timers: HedgeTimers;
  private readonly incarnation: number;
  private nextRequestId = 0;
  private closed = false;
  private readonly unbind: () => void;

  constructor(options: SimLockLogOptions) {
    if (options.endpoints.length === 0) throw new Error('createSimLockLog needs at least one endpoint');
    this.kernel = options.kernel;
    this.client = options.client;
    this.incarnation = options.client.incarnation;
    this.requestTimeoutMs = positive(options.requestTimeoutMs ?? DEFAULT_SIM_REQUEST_TIMEOUT_MS, 'requestTimeoutMs');
    this.keepAliveTimeoutMs = Math.min(positive(options.keepAliveTimeoutMs ?? KEEPALIVE_TIMEOUT_MS, 'keepAliveTimeoutMs'), this.requestTimeoutMs);
    this.hedgeAfterMs = positiveOrNever(options.hedgeAfterMs ?? HEDGE_AFTER_MS, 'hedgeAfterMs');
    const client = options.client;
    this.timers = {
      now: () => client.localNow(),
      after: (ms, fire) => {
        const timer = client.setTimer(ms, fire);
        return () => void client.cancelTimer(timer);
      },
    };
    const count = (portCounts.get(options.client) ?? 0) + 1;
    portCounts.set(options.client, count);
    this.port = options.port ?? `lock-log-${count}`;
    const names = options.endpoints.map((endpoint) => (typeof endpoint === 'string' ? endpoint : endpoint.name));
    const endpointOptions = {
      reconnectBackoffMs: positive(options.reconnectBackoffMs ?? 1_000, 'reconnectBackoffMs'),
      keepaliveTimeMs: positive(options.keepaliveTimeMs ?? 10_000, 'keepaliveTimeMs'),
      keepaliveTimeoutMs: positive(options.keepaliveTimeoutMs ?? 5_000, 'keepaliveTimeoutMs'),
    };
    this.endpoints = new Endpoints(names, this.kernel, this.client, this.port, endpointOptions, {
      sendPing: (endpoint, pingId) => this.send(endpoint, { type: 'transport.ping', replyPort: this.port, pingId }),
      pingTimedOut: (endpoint) => this.connectionLost(endpoint, `no keepalive answer within ${endpointOptions.keepaliveTimeoutMs} ms`),
      activeWatches: (endpoint) => this.watches.activeOn(endpoint),
    });
    this.mux = portsOf(options.network, options.client);
    this.unbind = this.mux.bind(this.port, (payload, from) => this.onMessage(payload, from));
    // If this client's process dies (not its machine), its machine's kernel resets the members' connections (ports.ts).
    this.watches = new ClientWatches({
      open: (request) => this.openWatch(request),
      cancelOnMember: (endpoint, streamId) => this.send(endpoint, { type: 'etcd.watch-cancel', replyPort: this.port, streamId }),
      deferred: () => this.kernel.deferred(),
      setTimer: (delayMs, callback) => this.client.setTimer(delayMs, callback),
      cancelTimer: (id) => void this.client.cancelTimer(id),
      requestTimeoutMs: this.requestTimeoutMs,
      describe: (endpoint) => this.endpoints.name(endpoint),
      activeChanged: (endpoint) => this.endpoints.keepPinging(endpoint),
    });
  }

  get currentEndpoint(): string {
    return this.endpoints.currentName;
  }

  async txn(request: TxnRequest): Promise<TxnResponse> {
    // The request's own deadline is the client's business: the member is sent the txn alone.
    const { timeoutMs, ...sent } = request;
    const txnRequest: ClientRequest = { op: 'txn', txn: sent };
    // A read-only txn changes nothing: hedged like every read (core/ports/hedge.ts).
    const { header, body } = await (mutates(txnRequest) ? this.call(txnRequest, 'txn', timeoutMs) : this.hedged(txnRequest, 'txn', this.deadlineOf(timeoutMs)));
    const txn = expectBody(body, 'txn');
    return { header, succeeded: txn.succeeded, responses: txn.responses };
  }

  async range(request: RangeRequest): Promise<RangeResponse> {
    const { timeoutMs, ...sent } = request;
    const { header, body } = await this.hedged({ op: 'range', range: sent }, `range of ${request.key}`, this.deadlineOf(timeoutMs));
    const range = expectBody(body, 'range');
    return { header, kvs: range.kvs, count: range.count, more: range.more };
  }

  async leaseGrant(ttlSeconds: number): Promise<LeaseGrantResponse> {
    const { header, body } = await this.call({ op: 'lease-grant', ttlSeconds }, 'lease grant');
    const grant = expectBody(body, 'lease-grant');
    return { header, id: grant.id, ttlSeconds: grant.ttlSeconds };
  }

  /** Hedged over the members, as the real adapter does: one stuck member must not cost a false fence (L6). */
  async leaseKeepAlive(id: LeaseId): Promise<LeaseKeepAliveResponse> {
    const { header, body } = await this.hedged({ op: 'lease-keepalive', id }, `keepalive of lease ${id}`, this.keepAliveTimeoutMs);
    return { header, id, ttlSeconds: expectBody(body, 'lease-keepalive').ttlSeconds };
  }

  async leaseRevoke(id: LeaseId): Promise<{ readonly header: ResponseHeader }> {
    const { header, body } = await this.call({ op: 'lease-revoke', id }, `revoke of lease ${id}`);
    expectBody(body, 'lease-revoke');
    return { header };
  }

  async leaseTimeToLive(id: LeaseId, options?: { readonly keys?: boolean }): Promise<LeaseTimeToLiveResponse> {
    const { header, body } = await this.hedged({ op: 'lease-ttl', id, keys: options?.keys === true }, `time-to-live of lease ${id}`, this.requestTimeoutMs);
    const ttl = expectBody(body, 'lease-ttl');
    return { header, id, ttlSeconds: ttl.ttlSeconds, grantedTtlSeconds: ttl.grantedTtlSeconds, keys: ttl.keys };
  }

  watch(request: WatchRequest, handlers: WatchHandlers): Promise<Watch> {
    const unusable = this.unusable(`watch of ${request.key}`);
    if (unusable !== undefined) return Promise.reject(unusable);
    return this.watches.watch(request, handlers);
  }

  async compact(revision: Revision): Promise<{ readonly header: ResponseHeader }> {
    const { header, body } = await this.call({ op: 'compact', revision }, `compact at ${revision}`);
    expectBody(body, 'compact');
    return { header };
  }

  async status(): Promise<StatusResponse> {
    const { header, body } = await this.call({ op: 'status' }, 'status');
    const status = expectBody(body, 'status');
    return { header, leader: status.leader, raftIndex: status.raftIndex, raftTerm: status.raftTerm, version: status.version, dbSizeBytes: status.dbSizeBytes };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.watches.cancelAll();
    for (const [requestId, call] of [...this.pending]) this.settle(requestId, call, new LockLogError('cancelled', `${call.description}: the LockLog was closed`));
    this.endpoints.stopAll();
    this.unbind();
  }

  // ---- calls --------------------------------------------------------------------------------------

  /** `timeoutMs`: the call's own deadline, used only when shorter than the client's (TxnRequest.timeoutMs). */
  private call(request: ClientRequest, what: string, timeoutMs?: number): Promise<Answer> {
    const unusable = this.unusable(what);
    if (unusable !== undefined) return Promise.reject(unusable);
    const endpoint = this.endpoints.pick();
    if (endpoint === undefined) return Promise.reject(this.noConnection(what));
    return this.callOn(endpoint, request, what, this.deadlineOf(timeoutMs), this.endpoints.count - 1).answer.promise;
  }

  /** A call's deadline: the client's, or the call's own when shorter (TxnRequest.timeoutMs). */
  private deadlineOf(timeoutMs: number | undefined): number {
    return timeoutMs !== undefined && timeoutMs > 0 && timeoutMs < this.requestTimeoutMs ? timeoutMs : this.requestTimeoutMs;
  }

  /** One request on `endpoint`, with its own deadline; `failoversLeft` other endpoints if the connection is refused. */
  private callOn(endpoint: number, request: ClientRequest, what: string, deadlineMs: number, failoversLeft: number): { readonly requestId: number; readonly answer: Deferred<Answer> } {
    const requestId = this.nextRequestId++;
    const answer = this.kernel.deferred<Answer>();
    const timer = this.client.setTimer(deadlineMs, () => this.timeOut(requestId));
    const call: PendingCall = { endpoint, description: '', failoversLeft, what, request, mutating: mutates(request), answer, timer, deadlineMs };
    this.pending.set(requestId, call);
    this.dispatch(requestId, call);
    return { requestId, answer };
  }

  /**
   * A call safe to send twice (a keepalive renews, a read changes nothing), spread over the members by the
   * rule the real adapter uses too (core/ports/hedge.ts hedgedCall); the member that answers first serves
   * later calls. `timeoutMs`: the deadline of the whole call, every member's attempt included.
   */
  private async hedged(request: ClientRequest, what: string, timeoutMs: number): Promise<Answer> {
    const unusable = this.unusable(what);
    if (unusable !== undefined) throw unusable;
    const first = this.endpoints.pick();
    if (first === undefined) throw this.noConnection(what);
    const plan = { members: this.endpoints.count, first, hedgeAfterMs: this.hedgeAfterMs, timeoutMs };
    const { value, member } = await hedgedCall(plan, this.timers, (endpoint, leftMs) => {
      const { requestId, answer } = this.callOn(endpoint, request, what, leftMs, 0);
      return { answer: answer.promise, abandon: () => this.abandon(requestId) };
    });
    this.endpoints.makeCurrent(member);
    return value;
  }

  /** Forgets a request whose answer is no longer wanted (another member answered a hedged call first). */
  private abandon(requestId: number): void {
    const call = this.pending.get(requestId);
    if (call === undefined) return;
    this.pending.delete(requestId);
    this.client.cancelTimer(call.timer);
  }

  private dispatch(requestId: number, call: PendingCall): void {
    const name = this.endpoints.name(call.endpoint);
    call.description = `${call.what} on ${name}`;
    this.mux.connectAndSend(name, { type: 'etcd.request', replyPort: this.port, requestId, request: call.request }, () => this.refused(requestId));
  }

  /** The member's machine refused the connection: nothing was sent, so the call may go to another endpoint. */
  private refused(requestId: number): void {
    const call = this.pending.get(requestId);
    if (call === undefined) return;
    this.endpoints.markDown(call.endpoint, 'connection refused');
    const next = call.failoversLeft > 0 ? this.endpoints.pick() : undefined;
    if (next === undefined) return this.settle(requestId, call, new LockLogError('unavailable', `${call.description}: connection refused, and no other endpoint to try`));
    call.failoversLeft--;
    call.endpoint = next;
    this.dispatch(requestId, call);
  }

  private openWatch(request: WatchRequest): readonly [number, number] | LockLogError {
    const endpoint = this.endpoints.pick();
    if (endpoint === undefined) return this.noConnection(`watch of ${request.key}`);
    const streamId = this.nextRequestId++;
    this.sendWatchCreate(streamId, endpoint, request, this.endpoints.count - 1);
    return [streamId, endpoint];
  }

  private sendWatchCreate(streamId: number, endpoint: number, request: WatchRequest, failoversLeft: number): void {
    const message = { type: 'etcd.request', replyPort: this.port, requestId: streamId, request: { op: 'watch-create', watch: request } } as const;
    this.mux.connectAndSend(this.endpoints.name(endpoint), message, () => {
      if (!this.watches.isCreating(streamId)) return;
      this.endpoints.markDown(endpoint, 'connection refused');
      const next = failoversLeft > 0 ? this.endpoints.pick() : undefined;
      if (next === undefined) return this.watches.failCreating(streamId, 'connection refused, and no other endpoint to try');
      this.watches.retarget(streamId, next, this.endpoints.name(next));
      this.sendWatchCreate(streamId, next, request, failoversLeft - 1);
    });
  }

  private onMessage(payload: ClusterMessage, from: string): void {
    switch (payload.type) {
      case 'etcd.response':
        return this.onResponse(payload);
      case 'etcd.watch':
        return this.watches.onMessage(payload);
      case 'transport.pong':
        return this.endpoints.onPong(from);
      case 'transport.reset': {
        const index = this.endpoints.indexOf(payload.peer);
        if (index !== undefined) this.connectionLost(index, 'the connection was reset (the member process died)');
        return;
      }
      default:
        return;
    }
  }

  private onResponse(message: ResponseMessage): void {
    const call = this.pending.get(message.requestId);
    if (call === undefined) return; // late: the call already timed out or was failed
    const { result } = message;
    if (result.ok) return this.settle(message.requestId, call, { header: result.header, body: result.body });
    const { error } = result;
    if (MOVE_ON_CODES.has(error.code)) this.endpoints.moveOn(call.endpoint);
    const outcome = call.mutating && !error.refused ? 'indeterminate' : 'failed';
    const suffix = outcome === 'indeterminate' ? ' (the write may or may not have taken effect)' : '';
    this.settle(message.requestId, call, new LockLogError(error.code, `${call.description}: ${error.message}${suffix}`, error.compactRevision === undefined ? { outcome } : { outcome, compactRevision: error.compactRevision }));
  }

  private timeOut(requestId: number): void {
    const call = this.pending.get(requestId);
    if (call === undefined) return;
    this.endpoints.moveOn(call.endpoint);
    this.kernel.trace.record('lock-log.timeout', { description: call.description, port: this.port }, this.client.name);
    const outcome = call.mutating ? 'indeterminate' : 'failed';
    this.settle(requestId, call, new LockLogError('timeout', `${call.description}: no answer within ${call.deadlineMs} ms${outcome === 'indeterminate' ? ' (the write may or may not have taken effect)' : ''}`, { outcome }));
  }

  private settle(requestId: number, call: PendingCall, result: Answer | LockLogError): void {
    this.pending.delete(requestId);
    this.client.cancelTimer(call.timer);
    if (result instanceof LockLogError) call.answer.reject(result);
    else call.answer.resolve(result);
  }

  // ---- broken connections ------------------------------------------------------------------------

  /** The connection to `index` is gone: its calls and watches fail, and it is skipped for a while. */
  private connectionLost(index: number, why: string): void {
    this.endpoints.markDown(index, why);
    for (const [requestId, call] of [...this.pending]) {
      if (call.endpoint !== index) continue;
      const outcome = call.mutating ? 'indeterminate' : 'failed';
      this.settle(requestId, call, new LockLogError('unavailable', `${call.description}: ${why}${outcome === 'indeterminate' ? ' (the write may or may not have taken effect)' : ''}`, { outcome }));
    }
    this.watches.connectionLost(index, why);
  }

  // ---- helpers ------------------------------------------------------------------------------------

  private send(endpoint: number, payload: ClusterMessage): void {
    this.mux.send(this.endpoints.name(endpoint), payload);
  }

  private unusable(what: string): LockLogError | undefined {
    if (this.closed) return new LockLogError('cancelled', `${what}: this LockLog is closed`);
    if (this.client.incarnation !== this.incarnation || this.client.state === 'crashed') {
      return new LockLogError('cancelled', `${what}: the client process ${this.client.name} crashed since this LockLog was made; make a new one`);
    }
    return undefined;
  }

  private noConnection(what: string): LockLogError {
    const names = Array.from({ length: this.endpoints.count }, (_, i) => this.endpoints.name(i));
    return new LockLogError('unavailable', `${what}: no connection established to any endpoint (${names.join(', ')} are all marked down)`);
  }
}

function expectBody<K extends ResultBody['op']>(body: ResultBody, op: K): Extract<ResultBody, { op: K }> {
  if (body.op !== op) throw new LockLogError('internal', `expected a ${op} answer, got ${body.op}`);
  return body as Extract<ResultBody, { op: K }>;
}

function positive(value: number, field: string): number {
  if (!(value > 0 && Number.isFinite(value))) throw new RangeError(`SimLockLogOptions.${field} must be a positive number of milliseconds, got ${value}`);
  return value;
}

function positiveOrNever(value: number, field: string): number {
  return value === Number.POSITIVE_INFINITY ? value : positive(value, field);
}
