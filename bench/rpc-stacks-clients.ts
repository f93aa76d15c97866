// The clients of the RPC-stack bench (issue 30) and the stacks they make with the servers
// (rpc-stacks-servers.ts): lockstep's UnaryChannel as shipped, Connect-ES's gRPC transport as the network
// client configures it, @grpc/grpc-js, and a bare node:http2 request of the same bytes (the floor). Each
// client keeps one connection, reused by every call, as lockstep's network client does; every gRPC call
// carries a deadline (CALL_TIMEOUT_MS), as lockstep's calls do.
import http2 from 'node:http2';
import { createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { Client, Metadata, credentials } from '@grpc/grpc-js';
import { MAX_MESSAGE_BYTES } from '../core/limits.js';
import { UnaryChannel } from '../src/client/unary-channel.js';
import { LockService } from '../src/gen/lockstep/lock/v1/lock_pb.js';
import { IDENTITY_HEADER } from '../src/service/peer-identity.js';
import type { ServerKind, TlsMaterial } from './rpc-stacks-servers.js';
import { ACQUIRE_PATH, BENCH_IDENTITY, CALL_TIMEOUT_MS, CANNED_REQUEST, GRPC_JS_ACQUIRE, REQUEST_FRAME } from './rpc-stacks-wire.js';

export type ClientKind = 'channel' | 'connect' | 'grpcjs' | 'bare';

export interface Stack {
  /** Short name, for --json and the progress lines. */
  readonly id: string;
  readonly label: string;
  readonly server: ServerKind;
  readonly client: ClientKind;
}

export const STACKS: readonly Stack[] = [
  { id: 'lockstep', label: 'fast path <- UnaryChannel (as shipped)', server: 'fastPath', client: 'channel' },
  { id: 'connect', label: 'Connect <- Connect', server: 'connect', client: 'connect' },
  { id: 'grpcjs', label: 'grpc-js <- grpc-js', server: 'grpcjs', client: 'grpcjs' },
  { id: 'grpcjs-to-fast', label: 'fast path <- grpc-js', server: 'fastPath', client: 'grpcjs' },
  { id: 'channel-to-grpcjs', label: 'grpc-js <- UnaryChannel', server: 'grpcjs', client: 'channel' },
  { id: 'bare', label: 'floor: bare node:http2 echo', server: 'bare', client: 'bare' },
];

export interface StackClient {
  /** One Acquire (or, bare, one request of its bytes); resolves with the answer. */
  call(): Promise<unknown>;
  close(): void;
}

/** A client of `kind` to 127.0.0.1:`port`, with mTLS when `tls` is given (the identity header without). */
export function openClient(kind: ClientKind, port: number, tls: TlsMaterial | undefined): StackClient {
  const url = `${tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  if (kind === 'channel') {
    const channel = new UnaryChannel({ url, ...(tls === undefined ? { fixedHeaders: { [IDENTITY_HEADER]: BENCH_IDENTITY } } : { tls: { cert: tls.clientCert, key: tls.clientKey, ca: tls.ca } }) });
    return { call: () => channel.call(LockService.method.acquire, CANNED_REQUEST, CALL_TIMEOUT_MS), close: () => channel.close() };
  }
  if (kind === 'connect') return connectClient(url, tls);
  if (kind === 'grpcjs') return grpcJsClient(port, tls);
  return bareClient(url, tls);
}

function connectClient(url: string, tls: TlsMaterial | undefined): StackClient {
  const transport = createGrpcTransport({
    baseUrl: url,
    readMaxBytes: MAX_MESSAGE_BYTES,
    writeMaxBytes: MAX_MESSAGE_BYTES,
    ...(tls === undefined ? { interceptors: [(next) => (request) => (request.header.set(IDENTITY_HEADER, BENCH_IDENTITY), next(request))] } : { nodeOptions: { cert: tls.clientCert, key: tls.clientKey, ca: tls.ca } }),
  });
  const client = createClient(LockService, transport);
  // Connect's transport has no close: its HTTP/2 session ends when idle (and with the process).
  return { call: () => client.acquire(CANNED_REQUEST, { timeoutMs: CALL_TIMEOUT_MS }), close: () => {} };
}

function grpcJsClient(port: number, tls: TlsMaterial | undefined): StackClient {
  const channelCredentials = tls === undefined ? credentials.createInsecure() : credentials.createSsl(tls.ca, tls.clientKey, tls.clientCert);
  // The server certificate names localhost too: grpc-js would otherwise send the IP as the TLS server name (node warns, RFC 6066).
  const options = { 'grpc.max_receive_message_length': MAX_MESSAGE_BYTES, 'grpc.max_send_message_length': MAX_MESSAGE_BYTES, ...(tls === undefined ? {} : { 'grpc.ssl_target_name_override': 'localhost' }) };
  const client = new Client(`127.0.0.1:${port}`, channelCredentials, options);
  const metadata = new Metadata();
  if (tls === undefined) metadata.set(IDENTITY_HEADER, BENCH_IDENTITY);
  const { path, requestSerialize, responseDeserialize } = GRPC_JS_ACQUIRE.acquire;
  return {
    call: () =>
      new Promise((resolve, reject) => {
        client.makeUnaryRequest(path, requestSerialize, responseDeserialize, CANNED_REQUEST, metadata, { deadline: Date.now() + CALL_TIMEOUT_MS }, (error, answer) => (error === null ? resolve(answer) : reject(error)));
      }),
    close: () => client.close(),
  };
}

/** The floor: one POST of the request's bytes on one reused connection; the answer's bytes, no gRPC parsing. */
function bareClient(url: string, tls: TlsMaterial | undefined): StackClient {
  let session: http2.ClientHttp2Session | undefined;
  const open = () => {
    if (session !== undefined && !session.closed && !session.destroyed) return session;
    session = http2.connect(url, tls === undefined ? {} : { cert: tls.clientCert, key: tls.clientKey, ca: tls.ca });
    session.on('error', () => (session = undefined)); // the call in flight learns it from its stream
    return session;
  };
  const headers = { ':method': 'POST', ':path': ACQUIRE_PATH };
  return {
    call: () =>
      new Promise((resolve, reject) => {
        const stream = open().request(headers);
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
        stream.once('error', reject);
        stream.end(REQUEST_FRAME);
      }),
    close: () => session?.close(),
  };
}
