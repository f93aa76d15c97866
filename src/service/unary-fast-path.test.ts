// lock.v1's unary fast path (issue 30) speaks the gRPC wire a stock client expects: a stock Connect client
// is answered by it (plain requests) and by Connect behind it (a compressed request falls through), with
// the same caller, the same answers and the same lockstep error detail either way; a caller the transport
// cannot name is refused before the arbiter is asked.
import { ConnectError, createClient } from '@connectrpc/connect';
import { compressionGzip, createGrpcTransport } from '@connectrpc/connect-node';
import { connect, constants } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockError } from '../../core/lock-error.js';
import type { ArbiterService, Caller } from '../../core/ports/caller.js';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import { IDENTITY_HEADER } from './peer-identity.js';
import { type ArbiterServer, startArbiterServer } from './server.js';
import { fromConnectError } from './wire-errors.js';

/** Who asked the stub for what: whatever reached it got past the transport. */
const asked: Array<{ readonly identity: string; readonly key: string }> = [];
const stub = {
  acquire: async (caller: Caller, request: { key: string; sessionId: bigint }) => {
    asked.push({ identity: caller.identity, key: request.key });
    if (request.key.endsWith('/held')) throw new LockError('contended', `${request.key} is held by another session`);
    return { key: request.key, token: 42n, sessionId: request.sessionId, revision: 7n, reentered: false, enforcement: 'fenced', fairness: 'memory', ttlSeconds: 15 };
  },
} as unknown as ArbiterService;

let server: ArbiterServer;
beforeAll(async () => {
  server = await startArbiterServer({ arbiter: stub, host: '127.0.0.1', port: 0, onUnexpected: (error) => { throw error; } });
});
afterAll(async () => {
  await server?.drain(1000);
});

function client(options: { identity?: string; gzip?: boolean }) {
  const transport = createGrpcTransport({
    baseUrl: `http://127.0.0.1:${server.port}`,
    interceptors: options.identity === undefined ? [] : [(next) => (request) => (request.header.set(IDENTITY_HEADER, options.identity as string), next(request))],
    ...(options.gzip === true ? { sendCompression: compressionGzip, acceptCompression: [compressionGzip], compressMinBytes: 0 } : {}),
  });
  return createClient(LockService, transport);
}

async function lockErrorOf(call: Promise<unknown>): Promise<LockError | undefined> {
  const outcome = await call.then(() => undefined, (error: unknown) => error);
  return outcome instanceof ConnectError ? fromConnectError(outcome) : undefined;
}

describe('the unary fast path (issue 30)', () => {
  for (const gzip of [false, true]) {
    const route = gzip ? 'a compressed request, through Connect' : 'a plain request, through the fast path';
    it(`answers ${route} with the arbiter's grant, as the caller the header names`, async () => {
      asked.length = 0;
      const answer = await client({ identity: 'spiffe://t/a', gzip }).acquire({ sessionId: 5n, key: 'ns/k', className: 'c', waitMs: 0 });
      expect(answer.grant?.token).toBe('42');
      expect(asked).toEqual([{ identity: 'spiffe://t/a', key: 'ns/k' }]);
    });

    it(`gives ${route} the arbiter's refusal with lockstep's detail`, async () => {
      const refused = await lockErrorOf(client({ identity: 'spiffe://t/a', gzip }).acquire({ sessionId: 5n, key: 'ns/held', className: 'c', waitMs: 0 }));
      expect(refused?.code).toBe('contended');
      expect(refused?.message).toMatch(/ns\/held is held by another session/);
    });
  }

  it('refuses a caller the transport cannot name before the arbiter is asked (the control: the same call with a name reaches it)', async () => {
    asked.length = 0;
    expect((await lockErrorOf(client({}).acquire({ sessionId: 5n, key: 'ns/x', className: 'c', waitMs: 0 })))?.code).toBe('unauthenticated');
    expect(asked).toEqual([]);
    await client({ identity: 'spiffe://t/b' }).acquire({ sessionId: 5n, key: 'ns/x', className: 'c', waitMs: 0 });
    expect(asked).toHaveLength(1);
  });
  it('refuses bytes past the one message a prefix declares as they arrive, and the declared message alone passes (the control)', async () => {
    // The over-long request is written and left open: the answer must come before the caller ends it.
    const raw = async (declared: number, sent: number, end: boolean): Promise<string | undefined> => {
      const session = connect(`http://127.0.0.1:${server.port}`);
      try {
        const stream = session.request({ ':method': 'POST', ':path': `/${LockService.typeName}/Acquire`, 'content-type': 'application/grpc', [IDENTITY_HEADER]: 'spiffe://t/raw' });
        const frame = Buffer.alloc(5 + sent);
        frame.writeUInt32BE(declared, 1);
        const status = new Promise<string | undefined>((resolve) => stream.on('trailers', (trailers) => resolve(trailers['grpc-status'] as string | undefined)));
        if (end) stream.end(frame);
        else stream.write(frame);
        stream.resume();
        return await status;
      } finally {
        session.close();
      }
    };
    expect(await raw(1, 64 * 1024, false)).toBe('3'); // INVALID_ARGUMENT: a lying prefix
    asked.length = 0;
    expect(await raw(0, 0, true)).not.toBe('3'); // an empty acquire, exactly as declared, reaches the arbiter
    expect(asked).toHaveLength(1);
  });

  it('keeps serving after a caller resets its call half-sent (a reset is an error on the server\'s stream, and an unheard one would end serve)', async () => {
    const session = connect(`http://127.0.0.1:${server.port}`);
    try {
      const stream = session.request({ ':method': 'POST', ':path': `/${LockService.typeName}/Acquire`, 'content-type': 'application/grpc', [IDENTITY_HEADER]: 'spiffe://t/reset' });
      stream.on('error', () => undefined);
      stream.write(Buffer.from([0, 0, 0, 0, 9, 1]));
      await new Promise<void>((resolve) => stream.close(constants.NGHTTP2_INTERNAL_ERROR, resolve));
    } finally {
      session.close();
    }
    asked.length = 0;
    const answer = await client({ identity: 'spiffe://t/after' }).acquire({ sessionId: 5n, key: 'ns/after', className: 'c', waitMs: 0 });
    expect(answer.grant?.token).toBe('42');
    expect(asked).toEqual([{ identity: 'spiffe://t/after', key: 'ns/after' }]);
  });
});
