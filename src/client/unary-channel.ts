// lock.v1's unary calls from the client (issue 30), straight over node's HTTP/2: one connection per
// arbiter, reused by every call, opened again when the arbiter goes away (GOAWAY, a reset, a drain).
// Connect's client cost more CPU per call than the arbiter behind it (an AbortSignal, a linked controller
// and a timer per call, async iterables, web headers), which made the hop 4-6 ms. Here a call is its
// encoded message, one request, and its answer read once; deadlines are kept by one ticker per channel
// that cancels the calls past theirs (the stream is reset, as a gRPC deadline does), not a timer per call.
// Failures come back as the ConnectErrors Connect would give (same codes and causes), so the network
// client's classification (nothing sent / answered / indeterminate, network-arbiter.ts) is unchanged.
import http2 from 'node:http2';
import { type DescMessage, type DescMethodUnary, type MessageInitShape, type MessageShape, create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { findTrailerError } from '@connectrpc/connect/protocol-grpc';
import { MAX_MESSAGE_BYTES } from '../../core/limits.js';

const PREFIX_BYTES = 5;
/** How often the deadlines of calls in flight are checked: the most a deadline can be overrun by. */
export const DEADLINE_TICK_MS = 10;
/** Node error codes of a connection that never carried the call (as Connect's client maps them). */
const UNREACHABLE = new Set(['ETIMEDOUT', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);
const ABORTED = new Set(['ERR_STREAM_DESTROYED', 'ERR_HTTP2_INVALID_STREAM', 'ECONNRESET']);

export interface ChannelOptions {
  /** http://host:port or https://host:port. */
  readonly url: string;
  /** With https: the client certificate, its key and the CA of the server's. */
  readonly tls?: { readonly cert: Buffer; readonly key: Buffer; readonly ca: Buffer };
  /** Headers every call carries (the claimed identity without TLS). */
  readonly fixedHeaders?: Readonly<Record<string, string>>;
}

/** Response headers and trailers as node gives them (`:status` a number). */
type Status = Record<string, string | string[] | number | undefined>;

interface Pending {
  readonly stream: http2.ClientHttp2Stream;
  readonly deadlineMs: number;
  timedOut: boolean;
}

export class UnaryChannel {
  #session: http2.ClientHttp2Session | undefined;
  readonly #pending = new Set<Pending>();
  #ticker: NodeJS.Timeout | undefined;

  constructor(private readonly options: ChannelOptions) {}

  /** One unary call; `extraHeader` is one more header (the routing key). */
  call<I extends DescMessage, O extends DescMessage>(method: DescMethodUnary<I, O>, message: MessageInitShape<I>, timeoutMs: number, extraHeader?: readonly [string, string]): Promise<MessageShape<O>> {
    const bytes = toBinary(method.input, create(method.input, message));
    if (bytes.length > MAX_MESSAGE_BYTES) return Promise.reject(new ConnectError(`message size ${bytes.length} is larger than configured writeMaxBytes ${MAX_MESSAGE_BYTES}`, Code.ResourceExhausted));
    const frame = Buffer.allocUnsafe(PREFIX_BYTES + bytes.length);
    frame[0] = 0;
    frame.writeUInt32BE(bytes.length, 1);
    frame.set(bytes, PREFIX_BYTES);
    const headers: http2.OutgoingHttpHeaders = {
      ':method': 'POST',
      ':path': `/${method.parent.typeName}/${method.name}`,
      'content-type': 'application/grpc+proto',
      te: 'trailers',
      // grpc-timeout is a whole number of units: a fractional deadline is a protocol error.
      'grpc-timeout': `${Math.ceil(timeoutMs)}m`,
      ...this.options.fixedHeaders,
    };
    if (extraHeader !== undefined) headers[extraHeader[0]] = extraHeader[1];
    return new Promise((resolve, reject) => {
      let stream: http2.ClientHttp2Stream;
      try {
        stream = this.#sessionNow().request(headers);
      } catch (error) {
        reject(fromNodeError(error));
        return;
      }
      this.#track(stream, timeoutMs, method.output, resolve, reject);
      stream.end(frame);
    });
  }

  /** Closes the connection; calls in flight end with it. */
  close(): void {
    this.#session?.close();
    this.#session = undefined;
    if (this.#ticker !== undefined) clearInterval(this.#ticker);
    this.#ticker = undefined;
  }

  #sessionNow(): http2.ClientHttp2Session {
    const open = this.#session;
    if (open !== undefined && !open.closed && !open.destroyed) return open;
    const session = http2.connect(this.options.url, this.options.tls === undefined ? {} : { cert: this.options.tls.cert, key: this.options.tls.key, ca: this.options.tls.ca });
    const forget = () => {
      if (this.#session === session) this.#session = undefined;
    };
    session.on('error', forget); // each call in flight learns it from its own stream
    session.on('goaway', forget);
    session.on('close', forget);
    session.unref(); // only calls in flight keep the process alive (#track refs it)
    this.#session = session;
    return session;
  }

  #track<O extends DescMessage>(stream: http2.ClientHttp2Stream, timeoutMs: number, output: O, resolve: (answer: MessageShape<O>) => void, reject: (error: ConnectError) => void): void {
    const pending: Pending = { stream, deadlineMs: performance.now() + timeoutMs, timedOut: false };
    if (this.#pending.size === 0) stream.session?.ref();
    this.#pending.add(pending);
    this.#ticker ??= setInterval(() => this.#tick(), DEADLINE_TICK_MS);
    const chunks: Buffer[] = [];
    let status: Status | undefined;
    let failure: unknown;
    stream.on('response', (headers) => (status = headers));
    let received = 0;
    let tooLarge: ConnectError | undefined;
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      // An answer larger than one message may be is cut off as it arrives, never buffered (issue 28's limit).
      if (received <= PREFIX_BYTES + MAX_MESSAGE_BYTES) chunks.push(chunk);
      else if (tooLarge === undefined) {
        tooLarge = new ConnectError(`an answer of more than ${MAX_MESSAGE_BYTES} bytes (readMaxBytes)`, Code.ResourceExhausted);
        stream.close(http2.constants.NGHTTP2_CANCEL);
      }
    });
    stream.on('trailers', (trailers) => (status = { ...status, ...trailers }));
    stream.on('error', (error) => (failure = error));
    stream.once('close', () => {
      this.#pending.delete(pending);
      if (this.#pending.size === 0) stream.session?.unref();
      const answer = pending.timedOut ? new ConnectError('the operation timed out', Code.DeadlineExceeded) : (tooLarge ?? outcome(output, status, chunks, failure, stream.rstCode));
      if (answer instanceof ConnectError) reject(answer);
      else resolve(answer);
    });
  }

  /** Resets the calls past their deadline; stops itself once nothing is in flight. */
  #tick(): void {
    if (this.#pending.size === 0) {
      clearInterval(this.#ticker);
      this.#ticker = undefined;
      return;
    }
    const nowMs = performance.now();
    for (const pending of this.#pending) {
      if (pending.deadlineMs > nowMs || pending.timedOut) continue;
      pending.timedOut = true;
      pending.stream.close(http2.constants.NGHTTP2_CANCEL);
    }
  }
}

/** The answer of a finished stream, or the ConnectError Connect's client would have given. */
function outcome<O extends DescMessage>(output: O, status: Status | undefined, chunks: readonly Buffer[], failure: unknown, rstCode: number | undefined): MessageShape<O> | ConnectError {
  if (status === undefined || status['grpc-status'] === undefined) {
    if (failure !== undefined) return fromNodeError(failure);
    if (status !== undefined && status[':status'] !== 200) return new ConnectError(`HTTP ${String(status[':status'])}`, Code.Unavailable);
    return fromResetCode(rstCode ?? http2.constants.NGHTTP2_INTERNAL_ERROR);
  }
  if (status['grpc-status'] !== '0') return errorOfTrailers(status);
  const body = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
  if (body.length < PREFIX_BYTES) return new ConnectError('protocol error: missing output message for unary method', Code.Unimplemented);
  const length = body.readUInt32BE(1);
  if (length > MAX_MESSAGE_BYTES) return new ConnectError(`message size ${length} is larger than configured readMaxBytes ${MAX_MESSAGE_BYTES}`, Code.ResourceExhausted);
  if (body[0] !== 0 || length !== body.length - PREFIX_BYTES) return new ConnectError('protocol error: a unary answer must be one uncompressed message', Code.Internal);
  try {
    return fromBinary(output, body.subarray(PREFIX_BYTES));
  } catch (error) {
    return new ConnectError(`cannot decode the answer: ${error instanceof Error ? error.message : String(error)}`.slice(0, 300), Code.Internal);
  }
}

function errorOfTrailers(status: Status): ConnectError {
  const headers = new Headers();
  for (const [name, value] of Object.entries(status)) {
    if (!name.startsWith(':') && value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : String(value));
  }
  return findTrailerError(headers) ?? new ConnectError('the arbiter answered without a status', Code.Internal);
}

function fromNodeError(reason: unknown): ConnectError {
  if (reason instanceof ConnectError) return reason;
  const codes: string[] = [];
  for (let r: unknown = reason; r instanceof Error && codes.length < 8; r = r.cause) {
    const code = (r as { code?: unknown }).code;
    if (typeof code === 'string') codes.push(code);
  }
  const code = codes.some((c) => ABORTED.has(c)) ? Code.Aborted : codes.some((c) => UNREACHABLE.has(c)) ? Code.Unavailable : Code.Internal;
  const error = ConnectError.from(reason, code);
  // A refused connection reaches a stream as ERR_HTTP2_STREAM_CANCEL caused by ECONNREFUSED: the cause
  // given is the root one, which the network client reads to know that nothing was sent (NOT_SENT).
  if (error !== reason) error.cause = code === Code.Unavailable ? unreachableCause(reason) : reason;
  return error;
}

function unreachableCause(reason: unknown): unknown {
  for (let r: unknown = reason; r instanceof Error; r = r.cause) {
    const code = (r as { code?: unknown }).code;
    if (typeof code === 'string' && UNREACHABLE.has(code)) return r;
    if (r.cause === r) break;
  }
  return reason;
}

function fromResetCode(rstCode: number): ConnectError {
  const { NGHTTP2_CANCEL, NGHTTP2_REFUSED_STREAM, NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_INADEQUATE_SECURITY, NGHTTP2_NO_ERROR } = http2.constants;
  const text = `http/2 stream closed with error code 0x${rstCode.toString(16)}`;
  if (rstCode === NGHTTP2_NO_ERROR) return new ConnectError('protocol error: the arbiter ended the call without a status', Code.Internal);
  if (rstCode === NGHTTP2_CANCEL) return new ConnectError(text, Code.Canceled);
  if (rstCode === NGHTTP2_REFUSED_STREAM) return new ConnectError(text, Code.Unavailable);
  if (rstCode === NGHTTP2_ENHANCE_YOUR_CALM) return new ConnectError(text, Code.ResourceExhausted);
  if (rstCode === NGHTTP2_INADEQUATE_SECURITY) return new ConnectError(text, Code.PermissionDenied);
  return new ConnectError(text, Code.Internal);
}
