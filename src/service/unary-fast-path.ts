// lock.v1's unary calls served straight from node's HTTP/2 stream (issue 30): Connect's handler spent
// more CPU per call than the arbiter behind it (async iterables, an AbortSignal and its DOMException, web
// headers, a handler context), which made the hop 4-6 ms. This path reads the one length-prefixed message,
// decodes it once, runs it through the same call guard, caller and arbiter as Connect would, and writes
// the answer and its status in one go. It takes the stream itself, not node's compatibility request and
// response (a Readable, a Stream and eleven listeners on the stream per call, built only for what falls
// through, server.ts). Everything else (streams, admin.v1, health, reflection, a compressed or unexpected
// request) goes to Connect unchanged. The gRPC wire: the length prefix, grpc-status/grpc-message/
// grpc-status-details-bin trailers (Connect's own setTrailerStatus).
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { type DescMessage, type DescMethodUnary, create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { setTrailerStatus } from '@connectrpc/connect/protocol-grpc';
import { MAX_MESSAGE_BYTES } from '../../core/limits.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import type { CallGuard, CallerOutcome } from './call-guard.js';
import { LOCK_UNARY, type UnaryHandler } from './lock-service.js';

const PREFIX_BYTES = 5;
const OK_TRAILERS = Object.freeze({ 'grpc-status': '0' });

interface Route {
  readonly method: DescMethodUnary;
  readonly handler: UnaryHandler<DescMessage, DescMessage>;
}

/** Serves a stream it recognises and returns true; false leaves it to Connect, untouched (nothing read, no listener added). */
export type FastPath = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => boolean;

/** Who calls on a stream (peer-identity.ts through server.ts). */
export type StreamCaller = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => CallerOutcome;

export function unaryFastPath(arbiter: ArbiterService, guard: CallGuard, callerOf: StreamCaller): FastPath {
  const routes = new Map<string, Route>();
  for (const [name, handler] of Object.entries(LOCK_UNARY)) {
    const method = LockService.method[name as keyof typeof LOCK_UNARY] as DescMethodUnary;
    routes.set(`/${LockService.typeName}/${method.name}`, { method, handler: handler as unknown as UnaryHandler<DescMessage, DescMessage> });
  }
  return (stream, headers) => {
    const path = headers[':path'];
    const route = headers[':method'] === 'POST' && path !== undefined ? routes.get(path) : undefined;
    if (route === undefined) return false;
    const contentType = headers['content-type'];
    if (contentType !== 'application/grpc' && contentType !== 'application/grpc+proto') return false;
    const encoding = headers['grpc-encoding'];
    if (encoding !== undefined && encoding !== 'identity') return false;
    // A reset by the caller (its deadline, a cancel) is an error event on the stream; nobody is left to answer.
    stream.on('error', ignoreStreamError);
    readMessage(stream, (body) => {
      if (closed(stream)) return; // reset while it was read: the arbiter is not asked for an answer nobody reads
      if (body instanceof ConnectError) return answerError(stream, contentType, body);
      let message;
      try {
        message = fromBinary(route.method.input, body);
      } catch (error) {
        return answerError(stream, contentType, new ConnectError(`cannot decode the request: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300), Code.InvalidArgument));
      }
      guard
        .runAs(callerOf(stream, headers), async (caller) => toBinary(route.method.output, create(route.method.output, await route.handler.call(arbiter, caller, message))), route.handler.starts)
        .then(
          (answer) => answerMessage(stream, contentType, answer),
          (error: unknown) => answerError(stream, contentType, error instanceof ConnectError ? error : guard.toWire(error)),
        )
        .catch((error: unknown) => guard.toWire(error)); // an answer that could not be written: logged as unexpected
    });
    return true;
  };
}

function ignoreStreamError(): void {}

/** The request's one message (its prefix checked against MAX_MESSAGE_BYTES before it is read, issue 28), or the error to answer. */
function readMessage(stream: ServerHttp2Stream, done: (body: Uint8Array | ConnectError) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let refused = false;
  const onData = (chunk: Buffer) => {
    if (refused) return;
    chunks.push(chunk);
    size += chunk.length;
    if (size >= PREFIX_BYTES) {
      const head = chunks.length === 1 ? chunk : Buffer.concat(chunks);
      const length = head.readUInt32BE(1);
      if (length > MAX_MESSAGE_BYTES) {
        refused = true;
        done(new ConnectError(`message size ${length} is larger than configured readMaxBytes ${MAX_MESSAGE_BYTES}`, Code.ResourceExhausted));
      } else if (size > PREFIX_BYTES + length) {
        // More bytes than the one message declared (a second message, or a lying prefix): refused as it
        // arrives, so what a caller sends past its declared length is never buffered (issue 28's limit).
        refused = true;
        done(new ConnectError('protocol error: a unary request must carry exactly one message', Code.InvalidArgument));
      }
    }
  };
  stream.on('data', onData);
  stream.once('end', () => {
    if (refused) return;
    const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    if (body.length < PREFIX_BYTES || body.readUInt32BE(1) !== body.length - PREFIX_BYTES) return done(new ConnectError('protocol error: a unary request must carry exactly one message', Code.InvalidArgument));
    if (body[0] !== 0) return done(new ConnectError('protocol error: a compressed message without grpc-encoding', Code.Internal));
    done(body.subarray(PREFIX_BYTES));
  });
}

function answerMessage(stream: ServerHttp2Stream, contentType: string, message: Uint8Array): void {
  if (message.length > MAX_MESSAGE_BYTES) return answerError(stream, contentType, new ConnectError(`message size ${message.length} is larger than configured writeMaxBytes ${MAX_MESSAGE_BYTES}`, Code.ResourceExhausted));
  if (closed(stream)) return;
  const frame = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, PREFIX_BYTES);
  stream.respond({ ':status': 200, 'content-type': contentType }, { waitForTrailers: true });
  stream.once('wantTrailers', sendOkTrailers);
  stream.end(frame);
}

/** A listener shared by every call, not a closure per call: `this` is the stream. */
function sendOkTrailers(this: ServerHttp2Stream): void {
  this.sendTrailers(OK_TRAILERS);
}

function answerError(stream: ServerHttp2Stream, contentType: string, error: ConnectError): void {
  if (closed(stream)) return;
  const trailers: OutgoingHttpHeaders = {};
  setTrailerStatus(new Headers(), error).forEach((value, name) => (trailers[name] = value));
  stream.respond({ ':status': 200, 'content-type': contentType }, { waitForTrailers: true });
  stream.once('wantTrailers', () => stream.sendTrailers(trailers));
  stream.end();
}

/** The caller went away (a reset, its deadline): there is nobody to answer. */
function closed(stream: ServerHttp2Stream): boolean {
  return stream.destroyed || stream.closed || stream.headersSent;
}
