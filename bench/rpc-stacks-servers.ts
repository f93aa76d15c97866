// The servers of the RPC-stack bench (issue 30), each on its own loopback port, plaintext and mTLS: the
// shipped lockstep server (its unary fast path, startArbiterServer over a canned arbiter), Connect-ES
// (connect-node, configured as serve configures it), @grpc/grpc-js, and a bare node:http2 echo that
// answers the canned answer's bytes with no gRPC logic at all (the floor). mTLS everywhere asks for and
// verifies the client's certificate, as serve does.
import { once } from 'node:events';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { Server, ServerCredentials } from '@grpc/grpc-js';
import { MAX_MESSAGE_BYTES } from '../core/limits.js';
import { LockService } from '../src/gen/lockstep/lock/v1/lock_pb.js';
import { CONNECT_GRPC_ONLY, startArbiterServer } from '../src/service/server.js';
import { CANNED_RESPONSE, GRPC_JS_ACQUIRE, RESPONSE_FRAME, cannedArbiter } from './rpc-stacks-wire.js';

export const SERVER_KINDS = ['fastPath', 'connect', 'grpcjs', 'bare'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** Certificates for mTLS: the server's, the client's (its URI SAN the bench identity) and their CA. */
export interface TlsMaterial {
  readonly ca: Buffer;
  readonly serverCert: Buffer;
  readonly serverKey: Buffer;
  readonly clientCert: Buffer;
  readonly clientKey: Buffer;
}

/** A server's address key: `fastPath/tls`, `bare/plain`. */
export type ServerKey = `${ServerKind}/${'plain' | 'tls'}`;

export interface StackServers {
  readonly ports: Readonly<Record<ServerKey, number>>;
  close(): Promise<void>;
}

interface Started {
  readonly port: number;
  close(): Promise<void>;
}

const HOST = '127.0.0.1';

/** Every server kind, plaintext and mTLS. */
export async function startStackServers(tls: TlsMaterial): Promise<StackServers> {
  const started: Array<readonly [ServerKey, Started]> = [];
  try {
    for (const kind of SERVER_KINDS) {
      for (const secure of [false, true]) started.push([`${kind}/${secure ? 'tls' : 'plain'}`, await startServer(kind, secure ? tls : undefined)]);
    }
  } catch (error) {
    await Promise.all(started.map(([, s]) => s.close()));
    throw error;
  }
  return {
    ports: Object.fromEntries(started.map(([key, s]) => [key, s.port])) as Record<ServerKey, number>,
    close: async () => {
      await Promise.all(started.map(([, s]) => s.close()));
    },
  };
}

function startServer(kind: ServerKind, tls: TlsMaterial | undefined): Promise<Started> {
  if (kind === 'fastPath') return fastPathServer(tls);
  if (kind === 'grpcjs') return grpcJsServer(tls);
  return listen(http2Server(tls, kind === 'connect' ? connectHandler() : undefined));
}

async function fastPathServer(tls: TlsMaterial | undefined): Promise<Started> {
  const server = await startArbiterServer({
    arbiter: cannedArbiter(),
    host: HOST,
    port: 0,
    ...(tls === undefined ? {} : { tls: { cert: tls.serverCert, key: tls.serverKey, clientCa: tls.ca } }),
    onUnexpected: (error) => process.stderr.write(`fast path: unexpected ${String(error)}\n`),
  });
  return { port: server.port, close: async () => void (await server.drain(0)) };
}

/** Connect-ES as serve configures it (server.ts): gRPC only, the same message limits. */
function connectHandler() {
  return connectNodeAdapter({
    ...CONNECT_GRPC_ONLY,
    routes: (router) => router.service(LockService, { acquire: () => CANNED_RESPONSE }),
  });
}

/** A node:http2 server: Connect's handler on the compat API, or (none) the bare echo on the stream API. */
function http2Server(tls: TlsMaterial | undefined, handler: ((request: http2.Http2ServerRequest, response: http2.Http2ServerResponse) => void) | undefined): http2.Http2Server {
  const server = tls === undefined ? http2.createServer(handler) : http2.createSecureServer({ cert: tls.serverCert, key: tls.serverKey, ca: tls.ca, requestCert: true, rejectUnauthorized: true, allowHTTP1: false }, handler);
  if (handler === undefined) server.on('stream', bareEcho);
  return server;
}

/** The floor: read the request's bytes, answer the canned answer's, no headers beyond the status. */
function bareEcho(stream: http2.ServerHttp2Stream): void {
  stream.on('data', () => {}); // the request's bytes are read and dropped
  stream.once('end', () => {
    if (stream.destroyed) return;
    stream.respond({ ':status': 200 });
    stream.end(RESPONSE_FRAME);
  });
}

async function listen(server: http2.Http2Server): Promise<Started> {
  // Every connection is cut at close (a client may keep its own open): destroying one already closed does nothing.
  const sessions: http2.ServerHttp2Session[] = [];
  server.on('session', (session) => sessions.push(session));
  server.listen(0, HOST);
  await once(server, 'listening'); // rejects on 'error'
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      const closed = once(server, 'close');
      server.close();
      for (const session of sessions) session.destroy();
      await closed;
    },
  };
}

async function grpcJsServer(tls: TlsMaterial | undefined): Promise<Started> {
  const server = new Server({ 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES, 'grpc.max_send_message_length': MAX_MESSAGE_BYTES });
  server.addService(GRPC_JS_ACQUIRE, { acquire: (_call: unknown, answer: (error: null, response: typeof CANNED_RESPONSE) => void) => answer(null, CANNED_RESPONSE) });
  const credentials = tls === undefined ? ServerCredentials.createInsecure() : ServerCredentials.createSsl(tls.ca, [{ private_key: tls.serverKey, cert_chain: tls.serverCert }], true);
  const port = await new Promise<number>((resolve, reject) => server.bindAsync(`${HOST}:0`, credentials, (error, bound) => (error === null ? resolve(bound) : reject(error))));
  return { port, close: () => Promise.resolve(server.forceShutdown()) };
}
