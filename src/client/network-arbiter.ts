// The client library's ArbiterApi over lock.v1 (ADR-18): core's LockClient runs unchanged against remote
// arbiters. Each key goes to one arbiter by rendezvous hashing over the addresses (key affinity: the FIFO
// line of a key lives on one arbiter, ADR-14), failing over to the next when that one is down or
// draining. The caller's identity is the client certificate's SPIFFE ID; without TLS a header names it
// and the server marks it unauthenticated (peer-identity.ts).
import { Code, ConnectError, type Client, type Interceptor, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { MAX_MESSAGE_BYTES } from '../../core/limits.js';
import { LockError } from '../../core/lock-error.js';
import type * as Api from '../../core/ports/arbiter-api.js';
import { rendezvousOrder } from '../../core/shards/rendezvous.js';
import { leaseId } from '../../core/units.js';
import type { MoveProposal } from '../../core/shards/move-desk.js';
import { DEFAULT_DRAIN_WAIT_MS } from '../../core/shards/shard-move.js';
import { AdminService, type ApproveShardMoveResponse, type GetStatusResponse } from '../gen/lockstep/admin/v1/admin_pb.js';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import { KeepAliveStream } from './keepalive-stream.js';
import { probeTls } from './tls-probe.js';
import { IDENTITY_HEADER } from '../service/peer-identity.js';
import { ROUTING_KEY_HEADER, routingKeyInterceptor, routingKeyValue } from '../service/routing-key.js';
import { UnaryChannel } from './unary-channel.js';
import { fromConnectError, sealFromWire } from '../service/wire-errors.js';
import { enforcementFromWire, grantFromWire, holderFromWire, inspectFromWire, keyClassFromWire } from '../service/wire-messages.js';

export interface ClientTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** The CA that signed the arbiters' server certificates. */
  readonly ca: Buffer;
}

export interface NetworkArbiterOptions {
  /** host:port of each arbiter; at least one. */
  readonly addresses: readonly string[];
  /**
   * Where to dial each of `addresses`, in the same order, when something stands between (the gate's link
   * proxies, issue 15); the addresses still name the arbiters, so a key's arbiter is the same for every
   * client (rendezvous over the names, ADR-14). Default: the addresses themselves.
   */
  readonly dialAddresses?: readonly string[];
  readonly tls?: ClientTls;
  /** Without TLS only: the identity to claim (the server treats it as unauthenticated). */
  readonly identity?: string;
  /** Deadline of one call; an acquire adds its waitMs. */
  readonly callTimeoutMs?: number;
}

export const DEFAULT_CALL_TIMEOUT_MS = 8000;
/** A shard move's map writes, epoch advances and polls, beyond its drain window. */
const MOVE_MARGIN_MS = 60_000;
/** Errors of a connection that never carried the call: the arbiter did nothing, another may be asked. */
const NOT_SENT = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

interface Endpoint {
  readonly address: string;
  /** Where it is dialled (dialAddresses), which a TLS probe must reach too. */
  readonly dialAddress: string;
  readonly lock: Client<typeof LockService>;
  readonly admin: Client<typeof AdminService>;
  /** lock.v1's unary calls: one HTTP/2 connection, no per-call Connect machinery (issue 30, unary-channel.ts). */
  readonly unary: UnaryChannel;
}

type Mutating = 'mutating' | 'read';

const LOCK = LockService.method;

/** The routing header of a call about `key` (routing-key.ts: Envoy's ring-hash reads it). */
function routedBy(key: string): readonly [string, string] | undefined {
  return key === '' ? undefined : [ROUTING_KEY_HEADER, routingKeyValue(key)];
}

export class NetworkArbiter implements Api.ArbiterApi {
  private readonly endpoints: readonly Endpoint[];
  /** Endpoints that have answered a call of this client: their connections may carry calls across a certificate rotation. */
  private readonly answeredBy = new Set<Endpoint>();
  private readonly timeoutMs: number;
  private readonly tls: ClientTls | undefined;
  private readonly streams = new Map<string, { readonly endpoint: Endpoint; readonly stream: KeepAliveStream<{ sessionId: bigint }> }>();
  private opened = 0;

  constructor(options: NetworkArbiterOptions) {
    if (options.addresses.length === 0) throw new LockError('invalid-argument', 'a network arbiter needs at least one address (host:port)');
    this.timeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    this.tls = options.tls;
    // Behind Envoy, its ring-hash sends a key's calls to one arbiter by this header (routing-key.ts).
    const interceptors: Interceptor[] = [routingKeyInterceptor];
    const claimed = options.identity;
    if (options.tls === undefined && claimed !== undefined) {
      interceptors.push((next) => (request) => {
        request.header.set(IDENTITY_HEADER, claimed);
        return next(request);
      });
    }
    if (options.dialAddresses !== undefined && options.dialAddresses.length !== options.addresses.length) throw new LockError('invalid-argument', `a network arbiter needs one dial address per arbiter address (${options.addresses.length}), not ${options.dialAddresses.length}`);
    this.endpoints = options.addresses.map((address, i) => {
      const transport = createGrpcTransport({
        baseUrl: `${options.tls === undefined ? 'http' : 'https'}://${options.dialAddresses?.[i] ?? address}`,
        interceptors,
        readMaxBytes: MAX_MESSAGE_BYTES, // issue 28: the same bound both ways (core/limits.ts)
        writeMaxBytes: MAX_MESSAGE_BYTES,
        ...(options.tls === undefined ? {} : { nodeOptions: { cert: options.tls.cert, key: options.tls.key, ca: options.tls.ca } }),
      });
      const unary = new UnaryChannel({
        url: `${options.tls === undefined ? 'http' : 'https'}://${options.dialAddresses?.[i] ?? address}`,
        ...(options.tls === undefined ? {} : { tls: options.tls }),
        ...(options.tls === undefined && claimed !== undefined ? { fixedHeaders: { [IDENTITY_HEADER]: claimed } } : {}),
      });
      return { address, dialAddress: options.dialAddresses?.[i] ?? address, lock: createClient(LockService, transport), admin: createClient(AdminService, transport), unary };
    });
  }

  /** The arbiters in the order a key tries them: highest rendezvous score first (ADR-14/18). */
  orderFor(unit: string): readonly Endpoint[] {
    return rendezvousOrder(this.endpoints, (e) => e.address, unit);
  }

  async openSession(request: Api.OpenSessionRequest): Promise<Api.Session> {
    const answer = await this.call(this.endpoints, 'mutating', (e, o) => e.unary.call(LOCK.openSession, { ttlSeconds: request.ttlSeconds, instance: request.instance ?? '' }, o.timeoutMs));
    const session = answer.session;
    if (session === undefined) throw new LockError('unavailable', 'the arbiter answered openSession without a session');
    return { sessionId: leaseId(session.sessionId), identity: session.identity, instance: session.instance, ttlSeconds: session.ttlSeconds };
  }

  async keepAlive(request: Api.KeepAliveRequest): Promise<Api.KeepAliveResponse> {
    // Sessions are etcd leases: any arbiter renews any session. One stream per session carries all its
    // renewals (keepalive-stream.ts); a failed stream is dropped and the next arbiter in order asked.
    const id = request.sessionId.toString();
    const open = this.streams.get(id);
    const order = open === undefined ? this.orderFor(id) : [open.endpoint, ...this.orderFor(id).filter((e) => e !== open.endpoint)];
    let last: LockError | undefined;
    for (const endpoint of order) {
      const stream = this.streamFor(id, endpoint);
      try {
        return { ttlSeconds: (await stream.renew({ sessionId: request.sessionId }, this.timeoutMs)).ttlSeconds };
      } catch (error) {
        stream.close();
        if (this.streams.get(id)?.stream === stream) this.streams.delete(id);
        const failure = error instanceof LockError ? { error, tryNext: error.code === 'unavailable' } : classify(error, 'read', endpoint.address);
        if (!failure.tryNext) throw failure.error;
        last = failure.error;
      }
    }
    throw last ?? new LockError('unavailable', 'no arbiter address to call');
  }

  async closeSession(request: Api.KeepAliveRequest): Promise<void> {
    this.dropStream(request.sessionId.toString());
    await this.call(this.orderFor(request.sessionId.toString()), 'mutating', (e, o) => e.unary.call(LOCK.closeSession, { sessionId: request.sessionId }, o.timeoutMs));
  }

  /** Ends every keepalive stream: nothing of this client stays open after it (the process can exit). */
  close(): void {
    for (const id of [...this.streams.keys()]) this.dropStream(id);
    for (const endpoint of this.endpoints) endpoint.unary.close();
  }

  /** Streams opened so far, for the test that there is one per session. */
  get streamsOpened(): number {
    return this.opened;
  }

  private streamFor(id: string, endpoint: Endpoint): KeepAliveStream<{ sessionId: bigint }> {
    const open = this.streams.get(id);
    if (open !== undefined && open.endpoint === endpoint && !open.stream.closed) return open.stream;
    if (open !== undefined) this.dropStream(id);
    this.opened += 1;
    const stream = new KeepAliveStream<{ sessionId: bigint }>((requests, signal) => endpoint.lock.keepAlive(requests, { signal }));
    this.streams.set(id, { endpoint, stream });
    return stream;
  }

  private dropStream(id: string): void {
    this.streams.get(id)?.stream.close();
    this.streams.delete(id);
  }

  async acquire(request: Api.AcquireRequest): Promise<Api.Grant> {
    const answer = await this.call(this.orderFor(request.key), 'mutating', (e, o) => e.unary.call(LOCK.acquire, { sessionId: request.sessionId, key: request.key, className: request.className, waitMs: Math.round(request.waitMs) }, o.timeoutMs, routedBy(request.key)), request.waitMs);
    return grantFromWire(answer.grant);
  }

  async release(request: Api.ReleaseRequest): Promise<Api.ReleaseResponse> {
    const answer = await this.call(this.orderFor(request.key), 'mutating', (e, o) => e.unary.call(LOCK.release, { sessionId: request.sessionId, key: request.key, token: request.token.toString() }, o.timeoutMs, routedBy(request.key)));
    return { released: answer.released };
  }

  async validate(request: Api.ValidateRequest): Promise<Api.ValidateResponse> {
    const answer = await this.call(this.orderFor(request.key), 'read', (e, o) => e.unary.call(LOCK.validate, { key: request.key, token: request.token }, o.timeoutMs, routedBy(request.key)));
    return { valid: answer.valid, currentToken: answer.currentToken === '' ? undefined : (BigInt(answer.currentToken) as Api.Holder['token']) };
  }

  async inspect(key: string): Promise<Api.InspectResponse> {
    return inspectFromWire(await this.call(this.orderFor(key), 'read', (e, o) => e.unary.call(LOCK.inspect, { key }, o.timeoutMs, routedBy(key))));
  }

  /** Asked of the key's own arbiter, as its acquire would be: every arbiter serves the same registry. */
  async describeKey(request: Api.DescribeKeyRequest): Promise<Api.KeyClass> {
    return keyClassFromWire(await this.call(this.orderFor(request.key), 'read', (e, o) => e.unary.call(LOCK.describeKey, { key: request.key, className: request.className ?? '' }, o.timeoutMs, routedBy(request.key))));
  }

  async requestForceRelease(request: Api.ForceReleaseRequest): Promise<Api.ForceReleaseProposal> {
    const answer = await this.call(this.orderFor(request.key), 'mutating', (e, o) =>
      e.admin.requestForceRelease({ key: request.key, expectedToken: request.expectedToken, reason: request.reason, acknowledgeUnfenced: request.acknowledgeUnfenced ?? false }, o),
    );
    if (answer.holder === undefined) throw new LockError('unavailable', 'the arbiter answered a force-release request without the hold');
    return { requestId: answer.requestId, key: answer.key, holder: holderFromWire(answer.holder), enforcement: enforcementFromWire(answer.enforcement) ?? 'advisory', requester: answer.requester, reason: answer.reason };
  }

  async approveForceRelease(request: Api.ApproveForceReleaseRequest): Promise<Api.ForceReleaseResponse> {
    const answer = await this.onEach('stale', (e, o) => e.admin.approveForceRelease({ requestId: request.requestId, acknowledgeUnfenced: request.acknowledgeUnfenced ?? false }, o));
    return { released: answer.released, enforcement: enforcementFromWire(answer.enforcement) ?? 'advisory', recordKey: answer.recordKey, requester: answer.requester, approver: answer.approver };
  }

  async requestEpochAdvance(request: Api.AdvanceEpochRequest): Promise<Api.EpochAdvanceProposal> {
    return this.call(this.orderFor('/sys/epoch'), 'mutating', (e, o) => e.admin.requestEpochAdvance({ reason: request.reason }, o));
  }

  async approveEpochAdvance(request: Api.ApproveEpochAdvanceRequest): Promise<Api.AdvanceEpochResponse> {
    const answer = await this.onEach('stale', (e, o) => e.admin.approveEpochAdvance({ requestId: request.requestId }, o));
    return { epoch: answer.epoch, clusterId: BigInt(answer.clusterId === '' ? '0' : answer.clusterId), holdsDeleted: answer.holdsDeleted, requester: answer.requester, approver: answer.approver };
  }

  /** admin.v1 RequestShardMove (ADR-09, issue 19): served by an arbiter of a topology (lockstep serve --topology). */
  async requestShardMove(request: { range: string; from: string; to: string; reason: string }): Promise<MoveProposal> {
    const answer = await this.call(this.orderFor(`/sys/moves/${request.range}`), 'mutating', (e, o) => e.admin.requestShardMove(request, o));
    return { requestId: answer.requestId, range: answer.range, from: answer.from, to: answer.to, requester: answer.requester, reason: answer.reason, recordedStep: answer.recordedStep === '' ? undefined : (answer.recordedStep as MoveProposal['recordedStep']) };
  }

  /** Runs the move on the arbiter that took the request: the call lasts the drain window and more. */
  async approveShardMove(request: { requestId: string; range: string; from: string; to: string }, drainWaitMs = DEFAULT_DRAIN_WAIT_MS): Promise<ApproveShardMoveResponse> {
    return this.onEach('stale', (e, o) => e.admin.approveShardMove(request, { timeoutMs: o.timeoutMs + drainWaitMs + MOVE_MARGIN_MS }));
  }

  async status(): Promise<Api.ArbiterStatus> {
    return statusFromWire(await this.call(this.endpoints, 'read', (e, o) => e.admin.getStatus({}, o)));
  }

  /** The arbiters' addresses, in the order given. */
  get addresses(): readonly string[] {
    return this.endpoints.map((e) => e.address);
  }

  /** One arbiter's status (`lockstep admin status` asks each): no failing over to another. */
  async statusOf(address: string): Promise<Api.ArbiterStatus> {
    return statusFromWire(await this.call(this.endpoints.filter((e) => e.address === address), 'read', (e, o) => e.admin.getStatus({}, o)));
  }

  /**
   * The approval lives on the arbiter that took the request (core/arbiter/approvals.ts): ask each in turn
   * until one knows it. `skip` is the answer of an arbiter that does not.
   */
  private async onEach<T>(skip: 'stale', send: (endpoint: Endpoint, options: { timeoutMs: number }) => Promise<T>): Promise<T> {
    let last: unknown;
    for (const endpoint of this.endpoints) {
      try {
        return await this.call([endpoint], 'mutating', send);
      } catch (error) {
        if (!(error instanceof LockError) || (error.code !== skip && error.code !== 'unavailable')) throw error;
        last = error;
      }
    }
    throw last;
  }

  /** Tries `order` until an arbiter takes the call; a failure that may have had an effect is never retried. */
  private async call<T>(order: readonly Endpoint[], kind: Mutating, send: (endpoint: Endpoint, options: { timeoutMs: number }) => Promise<T>, waitMs = 0): Promise<T> {
    let last: LockError | undefined;
    for (const endpoint of order) {
      try {
        // grpc-timeout is a whole number of units: a fractional deadline is a protocol error.
        const answer = await send(endpoint, { timeoutMs: Math.ceil(this.timeoutMs + waitMs) });
        this.answeredBy.add(endpoint);
        return answer;
      } catch (error) {
        const failure = classify(error, kind, endpoint.address);
        if (mayBeRefusedHandshake(error, failure.error)) await this.throwIfTlsRefused(endpoint, failure.error);
        if (!failure.tryNext) throw failure.error;
        last = failure.error;
      }
    }
    throw last ?? new LockError('unavailable', 'no arbiter address to call');
  }

  /**
   * A transport failure may be the arbiter refusing this client's handshake: then nothing was served and
   * nothing happened, and the caller is told which refusal and its fix, as `unauthenticated` (issue 29).
   */
  private async throwIfTlsRefused(endpoint: Endpoint, failure: LockError): Promise<void> {
    if (this.tls === undefined) return;
    const refusal = await probeTls(endpoint.dialAddress, this.tls);
    if (refusal === undefined) return;
    // Only an arbiter that never answered this client surely refused the call's own handshake. One that has
    // answered may have taken this call on a connection made before its certificates rotated, so a call
    // that may have had an effect stays indeterminate (the library settles it), with the refusal said.
    if (this.answeredBy.has(endpoint) && failure.code === 'indeterminate') {
      throw new LockError('indeterminate', `${failure.message}; the arbiter now refuses this client's handshake: ${refusal.message}`, { cause: failure });
    }
    throw new LockError('unauthenticated', `${refusal.message}; nothing was sent`, { cause: failure });
  }
}

/**
 * A transport failure that a refused handshake could explain: not an answer of the server, nor a deadline
 * (a paused arbiter must not cost a probe's wait on top of the call's). A refused handshake can surface as
 * a reset, or as the HTTP/2 stream closed with CANCEL: both are probed.
 */
function mayBeRefusedHandshake(raw: unknown, failure: LockError): boolean {
  if (failure.code !== 'indeterminate' && failure.code !== 'unavailable') return false;
  return raw instanceof ConnectError && fromConnectError(raw) === undefined && raw.code !== Code.DeadlineExceeded;
}

function statusFromWire(answer: GetStatusResponse): Api.ArbiterStatus {
  return { epoch: answer.epoch === 0 ? undefined : answer.epoch, clusterId: answer.clusterId === '' ? undefined : BigInt(answer.clusterId), sealed: answer.sealed === undefined ? undefined : sealFromWire(answer.sealed) };
}

/**
 * What a failed call means. A LockError from the server is its answer (a draining arbiter's
 * `unavailable` wrote nothing, so the next may be asked). A transport failure before the call was sent
 * is `unavailable` and moves on; one after it may have had an effect: `indeterminate` for a mutating
 * call, which the client library settles by reading the holder key (core/client/settle.ts), never guesses.
 */
function classify(error: unknown, kind: Mutating, address: string): { error: LockError; tryNext: boolean } {
  if (error instanceof LockError) return { error, tryNext: false };
  if (!(error instanceof ConnectError)) throw error;
  const answered = fromConnectError(error);
  if (answered !== undefined) return { error: answered, tryNext: answered.code === 'unavailable' };
  // A message over MAX_MESSAGE_BYTES, refused by this client before sending or by the server before reading it: nothing happened.
  if (error.code === Code.ResourceExhausted) return { error: new LockError('resource-exhausted', `${error.rawMessage.slice(0, 200)} (MAX_MESSAGE_BYTES ${MAX_MESSAGE_BYTES}); nothing was done`), tryNext: false };
  const cause = (error.cause as { code?: unknown } | undefined)?.code;
  if (error.code === Code.Unavailable && typeof cause === 'string' && NOT_SENT.has(cause)) {
    return { error: new LockError('unavailable', `arbiter ${address} is not reachable (${cause}); nothing was sent`), tryNext: true };
  }
  if (kind === 'read') return { error: new LockError('unavailable', `arbiter ${address} failed the call: ${error.rawMessage} (${Code[error.code]})`), tryNext: true };
  return { error: new LockError('indeterminate', `arbiter ${address} failed the call after it was sent: ${error.rawMessage} (${Code[error.code]}); it may or may not have happened`), tryNext: false };
}
