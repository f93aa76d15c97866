// The RPC-stack bench's stacks answer what they are measured answering: each stack, plaintext and mTLS,
// makes a few calls and every answer is the canned one (no timing asserted: speed is the bench's).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clone } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AcquireResponseSchema } from '../src/gen/lockstep/lock/v1/lock_pb.js';
import { STACKS, openClient } from './rpc-stacks-clients.js';
import { benchTls } from './rpc-stacks-run.js';
import { type StackServers, type TlsMaterial, startStackServers } from './rpc-stacks-servers.js';
import { CANNED_RESPONSE, RESPONSE_FRAME, isCannedAnswer } from './rpc-stacks-wire.js';

const CALLS = 3;
let dir: string;
let tls: TlsMaterial;
let servers: StackServers;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-rpc-stacks-test-'));
  tls = await benchTls(dir);
  servers = await startStackServers(tls);
}, 60_000);

afterAll(async () => {
  await servers?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('every stack of the RPC-stack bench', () => {
  for (const stack of STACKS) {
    for (const secure of [false, true]) {
      it(`${stack.label}, ${secure ? 'mTLS' : 'plaintext'}: answers the canned response`, async () => {
        const client = openClient(stack.client, servers.ports[`${stack.server}/${secure ? 'tls' : 'plain'}`], secure ? tls : undefined);
        try {
          // Concurrent calls on the one connection, as the bench's c=64 makes them.
          const answers = await Promise.all(Array.from({ length: CALLS }, () => client.call()));
          expect(answers.map(isCannedAnswer)).toEqual(Array(CALLS).fill(true));
        } finally {
          client.close();
        }
      });
    }
  }
});

describe('the canned-answer check', () => {
  it('refuses another grant, other bytes and a value of another type (negative controls)', () => {
    const other = clone(AcquireResponseSchema, CANNED_RESPONSE);
    if (other.grant !== undefined) other.grant.token = '1';
    const bytes = Buffer.from(RESPONSE_FRAME);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 1) ^ 1, bytes.length - 1);
    expect([isCannedAnswer(CANNED_RESPONSE), isCannedAnswer(RESPONSE_FRAME)]).toEqual([true, true]);
    expect([isCannedAnswer(other), isCannedAnswer(bytes), isCannedAnswer(undefined), isCannedAnswer({})]).toEqual([false, false, false, false]);
  });
});
