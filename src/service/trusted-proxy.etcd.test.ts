// Identity behind a trusted proxy (issue 31; ADR-18, ADR-19), over real gRPC with real mTLS on real etcd:
// Envoy terminates the caller's mTLS and forwards its SPIFFE ID in x-forwarded-client-cert. The arbiter
// believes that header only from a peer whose own certificate is a --trusted-proxy; the same header from
// any other peer is refused, and the calls a proxy forwards are authorised as the caller, not as the proxy.
import { readFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import { ALICE, FENCED, useArbiterWorld } from '../testing/arbiter-fixture.js';
import { startTlsArbiterServer } from '../testing/tls-arbiter-server.js';
import { type DevCa, makeClientCert, makeDevCa } from './dev-certs.js';
import type { ArbiterServer } from './server.js';
import { XFCC_HEADER } from './xfcc.js';

const PROXY = 'spiffe://lockstep.test/ns/lockstep/sa/envoy';
const STRANGER = 'spiffe://lockstep.test/ns/other/sa/stranger';
const world = useArbiterWorld();
const scratch = mkdtempSync(join(tmpdir(), 'lockstep-xfcc-'));
let ca: DevCa;
let server: ArbiterServer;

beforeAll(async () => {
  ca = await makeDevCa(join(scratch, 'ca'));
  server = await startTlsArbiterServer(world.arbiter(), ca, { trustedProxies: [PROXY] });
});
afterAll(async () => {
  await server?.drain(1000);
  rmSync(scratch, { recursive: true, force: true });
});

/** A lock.v1 client with `name`'s certificate (SPIFFE ID `id`) that sends `xfcc` on every call. */
async function clientAs(name: string, id: string, xfcc: string | undefined) {
  const files = await makeClientCert(ca, name, [id]);
  const transport = createGrpcTransport({
    baseUrl: `https://127.0.0.1:${server.port}`,
    nodeOptions: { cert: await readFile(files.cert), key: await readFile(files.key), ca: await readFile(ca.cert) },
    interceptors: xfcc === undefined ? [] : [(next) => (request) => {
      request.header.set(XFCC_HEADER, xfcc);
      return next(request);
    }],
  });
  return createClient(LockService, transport);
}

async function codeOf(call: Promise<unknown>): Promise<Code | undefined> {
  return call.then(() => undefined, (error: unknown) => ConnectError.from(error).code);
}

describe('x-forwarded-client-cert from a trusted proxy', () => {
  it('authorises a call forwarded by the trusted proxy as the caller the header names', async () => {
    const proxy = await clientAs('envoy', PROXY, `By=${PROXY};URI=${ALICE}`);
    const opened = await proxy.openSession({ ttlSeconds: FENCED.ttlSeconds });
    expect(opened.session?.identity).toBe(ALICE);
    const key = world.key('xfcc-1');
    const acquired = await proxy.acquire({ sessionId: opened.session?.sessionId ?? 0n, key, className: FENCED.name, waitMs: 0 });
    expect(acquired.grant?.identity).toBe(ALICE);
    await proxy.release({ sessionId: opened.session?.sessionId ?? 0n, key, token: acquired.grant?.token ?? '' });
  });

  it('refuses the same header from a peer that is not a trusted proxy, and that peer is itself without it (control)', async () => {
    const impostor = await clientAs('stranger', STRANGER, `URI=${ALICE}`);
    expect(await codeOf(impostor.openSession({ ttlSeconds: FENCED.ttlSeconds }))).toBe(Code.Unauthenticated);
    const plain = await clientAs('stranger-plain', STRANGER, undefined);
    expect((await plain.openSession({ ttlSeconds: FENCED.ttlSeconds })).session?.identity).toBe(STRANGER);
  });

  it('refuses a malformed or multi-element header from the trusted proxy, and a proxy that forwards nobody', async () => {
    for (const header of [`URI=${ALICE},URI=${STRANGER}`, `URI=${ALICE};garbage`, 'DNS=only.example']) {
      const proxy = await clientAs('envoy', PROXY, header);
      expect(await codeOf(proxy.openSession({ ttlSeconds: FENCED.ttlSeconds })), header).toBe(Code.Unauthenticated);
    }
    const silent = await clientAs('envoy', PROXY, undefined);
    expect(await codeOf(silent.openSession({ ttlSeconds: FENCED.ttlSeconds }))).toBe(Code.Unauthenticated);
  });
});
