// Issue 28: lock.v1 messages are bounded (core/limits.ts MAX_MESSAGE_BYTES) on both sides. The server
// refuses an oversize request from its length prefix, before reading it whole and before the arbiter sees
// it; the network client refuses to send one, and says `resource-exhausted` (nothing happened), never
// `indeterminate`. The control: a request just under the limit reaches the arbiter.
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_BYTES } from '../../core/limits.js';
import { LockError } from '../../core/lock-error.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { IDENTITY_HEADER } from './peer-identity.js';
import { type ArbiterServer, startArbiterServer } from './server.js';

/** Keys the stub arbiter was asked to validate: whatever reached it got past the transport. */
const seen: string[] = [];
const stub = {
  validate: async (_caller: unknown, request: { key: string }) => {
    seen.push(request.key);
    throw new LockError('invalid-argument', `key of ${request.key.length} characters refused by the stub`);
  },
} as unknown as ArbiterService;

let server: ArbiterServer;
beforeAll(async () => {
  server = await startArbiterServer({ arbiter: stub, host: '127.0.0.1', port: 0, onUnexpected: (error) => { throw error; } });
});
afterAll(async () => {
  await server?.drain(1000);
});

/** A raw lock.v1 client with no size limit of its own, as an attacker would use. */
function rawClient() {
  const transport = createGrpcTransport({
    baseUrl: `http://127.0.0.1:${server.port}`,
    interceptors: [(next) => (request) => (request.header.set(IDENTITY_HEADER, 'spiffe://t/flood'), next(request))],
  });
  return createClient(LockService, transport);
}

async function codeOf(call: Promise<unknown>): Promise<Code | 'ok'> {
  return call.then(() => 'ok' as const, (error: unknown) => (error instanceof ConnectError ? error.code : Promise.reject(error)));
}

describe('message size limit (issue 28)', () => {
  it('the server refuses a request over MAX_MESSAGE_BYTES before the arbiter sees it', async () => {
    seen.length = 0;
    const huge = 'k'.repeat(4 * MAX_MESSAGE_BYTES);
    expect(await codeOf(rawClient().validate({ key: `ns/${huge}`, token: '1' }))).toBe(Code.ResourceExhausted);
    expect(seen).toEqual([]);
  });

  it('the control: a request just under the limit reaches the arbiter (and is refused there on its merits)', async () => {
    seen.length = 0;
    const under = 'k'.repeat(MAX_MESSAGE_BYTES - 100);
    expect(await codeOf(rawClient().validate({ key: `ns/${under}`, token: '1' }))).toBe(Code.InvalidArgument);
    expect(seen).toHaveLength(1);
  });

  it('the network client refuses to send an oversize request, as resource-exhausted', async () => {
    seen.length = 0;
    const client = new NetworkArbiter({ addresses: [`127.0.0.1:${server.port}`], identity: 'spiffe://t/flood' });
    const refused = await client.validate({ key: `ns/${'k'.repeat(2 * MAX_MESSAGE_BYTES)}`, token: '1' }).then(() => undefined, (error: unknown) => error);
    expect(refused).toBeInstanceOf(LockError);
    expect((refused as LockError).code).toBe('resource-exhausted');
    expect((refused as LockError).message).toMatch(/MAX_MESSAGE_BYTES/);
    expect(seen).toEqual([]);
    client.close();
  });
});
