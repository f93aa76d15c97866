// The client's unary channel (issue 30) against a bare HTTP/2 gRPC stub: calls share one connection, a
// deadline resets the call, a server's status comes back as Connect's ConnectError, an unreachable arbiter
// is `unavailable` with its cause (the network client fails over on it), and an oversize request is never sent.
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { create, toBinary } from '@bufbuild/protobuf';
import { Code, ConnectError } from '@connectrpc/connect';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../core/limits.js';
import { LockService, ValidateResponseSchema } from '../gen/lockstep/lock/v1/lock_pb.js';
import { UnaryChannel } from './unary-channel.js';

type Answer = 'valid' | 'not-found' | 'never' | 'flood';

interface Stub {
  readonly url: string;
  readonly sessions: () => number;
  readonly streams: () => number;
  readonly resets: () => number;
  close(): Promise<void>;
}

async function stub(answer: Answer): Promise<Stub> {
  let sessions = 0;
  let streams = 0;
  let resets = 0;
  const server = http2.createServer();
  const live = new Set<http2.ServerHttp2Session>();
  server.on('session', (session) => {
    sessions += 1;
    live.add(session);
  });
  server.on('stream', (stream) => {
    streams += 1;
    stream.on('close', () => (resets += stream.rstCode === http2.constants.NGHTTP2_CANCEL ? 1 : 0));
    stream.resume();
    stream.on('end', () => {
      if (answer === 'never') return;
      if (answer === 'flood') {
        // A broken or hostile server: an answer that never ends.
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
        const chunk = Buffer.alloc(64 * 1024);
        const pour = (): void => {
          while (!stream.destroyed && !stream.closed && stream.write(chunk));
          if (!stream.destroyed && !stream.closed) stream.once('drain', pour);
        };
        pour();
        return;
      }
      if (answer === 'not-found') {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(Code.NotFound), 'grpc-message': 'no such key' }, { endStream: true });
        return;
      }
      const message = toBinary(ValidateResponseSchema, create(ValidateResponseSchema, { valid: true, currentToken: '7' }));
      const frame = Buffer.alloc(5 + message.length);
      frame.writeUInt32BE(message.length, 1);
      frame.set(message, 5);
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frame);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    sessions: () => sessions,
    streams: () => streams,
    resets: () => resets,
    close: () => {
      for (const session of live) session.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

const open: Array<{ close(): unknown }> = [];
afterEach(async () => {
  for (const thing of open.splice(0)) await thing.close();
});

async function failure(call: Promise<unknown>): Promise<ConnectError> {
  const outcome = await call.then(() => undefined, (error: unknown) => error);
  if (!(outcome instanceof ConnectError)) throw new Error(`expected a ConnectError, got ${String(outcome)}`);
  return outcome;
}

describe('the unary channel (issue 30)', () => {
  it('answers every call over one HTTP/2 connection; another channel is another connection (the control)', async () => {
    const server = await stub('valid');
    const channel = new UnaryChannel({ url: server.url });
    open.push(channel, server);
    for (let i = 0; i < 5; i++) expect(await channel.call(LockService.method.validate, { key: `k${i}`, token: '7' }, 5_000)).toMatchObject({ valid: true, currentToken: '7' });
    await Promise.all([1, 2, 3].map((i) => channel.call(LockService.method.validate, { key: `p${i}`, token: '7' }, 5_000)));
    expect(server.sessions()).toBe(1);
    const other = new UnaryChannel({ url: server.url });
    open.push(other);
    await other.call(LockService.method.validate, { key: 'k', token: '7' }, 5_000);
    expect(server.sessions()).toBe(2);
  });

  it('resets a call past its deadline and says deadline-exceeded; a call within it is answered', async () => {
    const silent = await stub('never');
    const channel = new UnaryChannel({ url: silent.url });
    open.push(channel, silent);
    expect((await failure(channel.call(LockService.method.validate, { key: 'k', token: '1' }, 50))).code).toBe(Code.DeadlineExceeded);
    await expect.poll(() => silent.resets()).toBe(1);
    const answering = await stub('valid');
    const other = new UnaryChannel({ url: answering.url });
    open.push(other, answering);
    expect(await other.call(LockService.method.validate, { key: 'k', token: '1' }, 50)).toMatchObject({ valid: true });
  });

  it("gives the server's status as Connect's ConnectError", async () => {
    const server = await stub('not-found');
    const channel = new UnaryChannel({ url: server.url });
    open.push(channel, server);
    const error = await failure(channel.call(LockService.method.validate, { key: 'k', token: '1' }, 5_000));
    expect([error.code, error.rawMessage]).toEqual([Code.NotFound, 'no such key']);
  });

  it('says unavailable, with the refused connection as its cause, when nothing listens', async () => {
    const server = await stub('valid');
    await server.close();
    const channel = new UnaryChannel({ url: server.url });
    open.push(channel);
    const error = await failure(channel.call(LockService.method.validate, { key: 'k', token: '1' }, 5_000));
    expect(error.code).toBe(Code.Unavailable);
    expect((error.cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('refuses to send a request over MAX_MESSAGE_BYTES: the server sees no stream', async () => {
    const server = await stub('valid');
    const channel = new UnaryChannel({ url: server.url });
    open.push(channel, server);
    const error = await failure(channel.call(LockService.method.validate, { key: 'k'.repeat(MAX_MESSAGE_BYTES + 1), token: '1' }, 5_000));
    expect(error.code).toBe(Code.ResourceExhausted);
    expect(server.streams()).toBe(0);
  });

  it('cuts off an answer larger than one message may be as it arrives: resource-exhausted, not a wait for the deadline', async () => {
    const server = await stub('flood');
    const channel = new UnaryChannel({ url: server.url });
    open.push(channel, server);
    const error = await failure(channel.call(LockService.method.validate, { key: 'k', token: '1' }, 60_000));
    expect(error.code).toBe(Code.ResourceExhausted);
  });
});
