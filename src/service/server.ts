// The lock.v1 / admin.v1 server (ADR-18): gRPC over HTTP/2 with Connect-ES, mTLS when given certificates
// (the caller is the client certificate's SPIFFE ID, peer-identity.ts), plaintext h2c on loopback for
// development. Graceful shutdown (drain): health says NOT_SERVING, no new connection is accepted, new
// calls on open ones are answered `unavailable`, calls in flight run to their end (a grant being made is
// delivered), and only then are the connections closed.
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createContextValues } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { MAX_MESSAGE_BYTES } from '../../core/limits.js';
import { LockError, isLockError } from '../../core/lock-error.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import { Health } from '../gen/grpc/health/v1/health_pb.js';
import { ServerReflection } from '../gen/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ServerReflectionV1Alpha } from '../gen/grpc/reflection/v1alpha/reflection_pb.js';
import { AdminService } from '../gen/lockstep/admin/v1/admin_pb.js';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import { type MoveDesk, adminServiceImpl } from './admin-service.js';
import { CALLER, CallGuard, type CallerOutcome } from './call-guard.js';
import type { HandshakeRefusals } from './handshake-refusals.js';
import { HealthState, healthServiceImpl } from './health.js';
import { reflectionServices } from './reflection.js';
import { lockServiceImpl } from './lock-service.js';
import { type StreamCaller, unaryFastPath } from './unary-fast-path.js';
import { IDENTITY_HEADER, callerOf } from './peer-identity.js';
import { XFCC_HEADER } from './xfcc.js';

export interface ServerTls {
  readonly cert: Buffer;
  readonly key: Buffer;
  /** The CA that signs client certificates: a client without one is refused in the handshake. */
  readonly clientCa: Buffer;
}

export interface ArbiterServerOptions {
  readonly arbiter: ArbiterService;
  /** With --topology: the shard moves this arbiter runs (admin.v1 RequestShardMove/ApproveShardMove). */
  readonly moves?: MoveDesk;
  readonly host: string;
  readonly port: number;
  readonly tls?: ServerTls;
  /** SPIFFE IDs of proxies whose x-forwarded-client-cert names the caller (serve --trusted-proxy, xfcc.ts). */
  readonly trustedProxies?: readonly string[];
  readonly onUnexpected: (error: unknown) => void;
  /** With TLS: the book of refused handshakes, which logs them once per peer a minute. */
  readonly handshakeRefusals?: HandshakeRefusals;
}

export interface ArbiterServer {
  readonly host: string;
  readonly port: number;
  readonly health: HealthState;
  /** Calls in flight now. */
  inFlight(): number;
  /**
   * New certificates for new connections (a rotated SVID, tls-reload.ts); connections already open keep
   * theirs. Throws, changing nothing, for a key that does not match its certificate; false without TLS.
   */
  setTls(tls: ServerTls): boolean;
  /**
   * Stops accepting, waits up to `graceMs` for calls in flight, then `beforeClose` (the arbiter's close,
   * which ends waits in line with `unavailable`), waits for those answers, and closes every connection.
   */
  drain(graceMs: number, beforeClose?: () => void): Promise<{ readonly cutShort: boolean }>;
}

/** Longest time a drain waits for the answers of calls ended by `beforeClose`. */
const ANSWER_FLUSH_MS = 2000;

/** How serve runs Connect: gRPC only, every message within the limit (bench:rpc measures the same). */
export const CONNECT_GRPC_ONLY = {
  grpc: true,
  connect: false,
  grpcWeb: false,
  // Issue 28: a message over the limit is refused (resource-exhausted) from its length prefix, before it
  // is read whole; the default (~4 GiB) let one tenant's 128 MiB key stall serve for every tenant.
  readMaxBytes: MAX_MESSAGE_BYTES,
  writeMaxBytes: MAX_MESSAGE_BYTES,
} as const;

/** Connect's handler of every service, each call told its caller by `outcomeOf`. */
function connectHandler(options: ArbiterServerOptions, guard: CallGuard, health: HealthState, outcomeOf: StreamCaller) {
  return connectNodeAdapter({
    ...CONNECT_GRPC_ONLY,
    routes: (router) => {
      router.service(LockService, lockServiceImpl(options.arbiter, guard));
      router.service(AdminService, adminServiceImpl(options.arbiter, guard, options.moves));
      router.service(Health, healthServiceImpl(health));
      // Server reflection (issue 29): stock tools list and describe the services above.
      const reflection = reflectionServices([LockService, AdminService, Health]);
      router.service(ServerReflection, reflection.v1);
      router.service(ServerReflectionV1Alpha, reflection.v1alpha);
    },
    contextValues: (request) => createContextValues().set(CALLER, outcomeOf((request as http2.Http2ServerRequest).stream, request.headers)),
  });
}

export async function startArbiterServer(options: ArbiterServerOptions): Promise<ArbiterServer> {
  const guard = new CallGuard(options.onUnexpected);
  const health = new HealthState();
  const tls = options.tls !== undefined;
  const trustedProxies = new Set(options.trustedProxies ?? []);
  const outcomeOf: StreamCaller = (stream, headers): CallerOutcome => {
    // The session's socket, one per connection, so its verified certificate is parsed once (peer-identity.ts).
    const socket = stream.session?.socket;
    if (socket === undefined) return { refused: new LockError('unavailable', 'the connection closed before the call was read; nobody is left to answer') };
    try {
      return { caller: callerOf(socket, headers[IDENTITY_HEADER], tls, { trustedProxies, xfcc: headers[XFCC_HEADER] }) };
    } catch (error) {
      if (!isLockError(error)) throw error;
      return { refused: error };
    }
  };
  const handler = connectHandler(options, guard, health, outcomeOf);
  // Issue 30: lock.v1's unary calls skip Connect's per-call machinery and node's compatibility request and
  // response (unary-fast-path.ts); the rest gets both, built as node's own createServer(handler) builds them.
  const fast = unaryFastPath(options.arbiter, guard, outcomeOf);
  const server =
    options.tls === undefined
      ? http2.createServer()
      : http2.createSecureServer({ cert: options.tls.cert, key: options.tls.key, ca: options.tls.clientCa, requestCert: true, rejectUnauthorized: true, allowHTTP1: false });
  server.on('stream', (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
    if (!fast(stream, headers)) handler(new http2.Http2ServerRequest(stream, headers, {}, rawHeaders), new http2.Http2ServerResponse(stream));
  });
  if (options.tls !== undefined) options.handshakeRefusals?.watch(server as http2.Http2SecureServer);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.on('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const waitIdle = async (ms: number): Promise<boolean> => {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), ms)));
    const idle = guard.idle().then(() => false);
    const outcome = await Promise.race([idle, timedOut]);
    clearTimeout(timer);
    return outcome;
  };
  return {
    host: address.address,
    port: address.port,
    health,
    inFlight: () => guard.inFlight,
    setTls(next) {
      if (options.tls === undefined) return false;
      (server as http2.Http2SecureServer).setSecureContext({ cert: next.cert, key: next.key, ca: next.clientCa });
      return true;
    },
    async drain(graceMs, beforeClose) {
      health.stopServing();
      guard.drain();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const cutShort = await waitIdle(graceMs);
      beforeClose?.();
      await waitIdle(ANSWER_FLUSH_MS);
      for (const session of sessions) session.close();
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, ANSWER_FLUSH_MS))]);
      for (const session of sessions) session.destroy();
      return { cutShort };
    },
  };
}
