// lock.v1 and admin.v1 over real gRPC with real mTLS (certificates made here by openssl) on one real
// etcd: core's LockClient runs unchanged through the network client, identities come from the client
// certificate's SPIFFE ID, and each refusal arrives as a gRPC status with lockstep's detail.
import { readFile } from 'node:fs/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORCE_PREFIX } from '../../core/arbiter/records.js';
import { LockClient } from '../../core/client/lock-client.js';
import { isLockError, type LockError } from '../../core/lock-error.js';
import { createRealClock } from '../clock/index.js';
import { Health, HealthCheckResponse_ServingStatus } from '../gen/grpc/health/v1/health_pb.js';
import { ErrorCode, ErrorDetailSchema, LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import { ALICE, BILLER, BOB, FENCED, NAMESPACE, OPERATOR_IDS, OTHER_NAMESPACE, useArbiterWorld } from '../testing/arbiter-fixture.js';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa, makeServerCert } from './dev-certs.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { type ArbiterServer, startArbiterServer } from './server.js';

const world = useArbiterWorld();
const clock = createRealClock();
const scratch = mkdtempSync(join(tmpdir(), 'lockstep-grpc-'));
let ca: DevCa;
let server: ArbiterServer;
const certs = new Map<string, CertFiles>();
const opened: NetworkArbiter[] = [];
const noFence = (): void => {};

beforeAll(async () => {
  ca = await makeDevCa(join(scratch, 'ca'));
  const serverCert = await makeServerCert(ca);
  const people: Array<[string, string[]]> = [['alice', [ALICE]], ['bob', [BOB]], ['biller', [BILLER]], ['ana', [OPERATOR_IDS[0]]], ['ben', [OPERATOR_IDS[1]]], ['nobody', []], ['twice', [ALICE, BOB]]];
  for (const [name, ids] of people) certs.set(name, await makeClientCert(ca, name, ids));
  server = await startArbiterServer({
    arbiter: world.arbiter(),
    host: '127.0.0.1',
    port: 0,
    tls: { cert: await readFile(serverCert.cert), key: await readFile(serverCert.key), clientCa: await readFile(ca.cert) },
    onUnexpected: (error) => {
      throw error;
    },
  });
});
afterAll(async () => {
  await server?.drain(1000);
  rmSync(scratch, { recursive: true, force: true });
});

async function as(name: string, caFile?: string): Promise<NetworkArbiter> {
  const files = certs.get(name);
  if (files === undefined) throw new Error(`no certificate for ${name}`);
  const arbiter = new NetworkArbiter({
    addresses: [`127.0.0.1:${server.port}`],
    tls: { cert: await readFile(files.cert), key: await readFile(files.key), ca: await readFile(caFile ?? ca.cert) },
  });
  opened.push(arbiter);
  return arbiter;
}

async function refusal(promise: Promise<unknown>): Promise<LockError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  if (!isLockError(error)) throw new Error(`expected a LockError, got ${String(error)}`);
  return error;
}

describe('lock.v1 over gRPC with mTLS', () => {
  it('runs the LockClient through the network: one holder at a time, a contended second caller, rising tokens', async () => {
    const key = world.key('grpc-turns');
    const alice = new LockClient({ arbiter: await as('alice'), clock, identity: ALICE });
    const bob = new LockClient({ arbiter: await as('bob'), clock, identity: BOB });
    try {
      const first = await alice.acquire({ key, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, onFence: noFence });
      expect(first.grant.identity).toBe(ALICE); // the certificate's SPIFFE ID, no field of the request
      expect((await refusal(bob.acquire({ key, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, waitMs: 0, onFence: noFence }))).code).toBe('contended');
      const waiting = bob.acquire({ key, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, waitMs: 10_000, onFence: noFence });
      await clock.sleep(200);
      expect(await first.release()).toBe(true);
      const second = await waiting;
      expect(second.grant.identity).toBe(BOB);
      expect(second.token > first.token).toBe(true);
      expect(await second.release()).toBe(true);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
    }
  });

  it('renews a session on one keepalive stream, and a closed session\'s stream is ended', async () => {
    const alice = await as('alice');
    const session = await alice.openSession({ ttlSeconds: FENCED.ttlSeconds });
    const renewals = [];
    for (let i = 0; i < 4; i++) renewals.push(await alice.keepAlive({ sessionId: session.sessionId }));
    expect(renewals.map((r) => r.ttlSeconds)).toEqual([FENCED.ttlSeconds, FENCED.ttlSeconds, FENCED.ttlSeconds, FENCED.ttlSeconds]);
    expect(alice.streamsOpened).toBe(1);
    await alice.closeSession({ sessionId: session.sessionId });
    // The lease is revoked: renewing it again is refused (a new stream, since the old one was ended).
    expect((await refusal(alice.keepAlive({ sessionId: session.sessionId }))).code).toBe('session-expired');
    expect(alice.streamsOpened).toBe(2);
    alice.close();
  });

  it('denies a key outside the caller\'s grants with one error, held or free, as a typed status a stock client can read', async () => {
    const key = world.key('grpc-denied', OTHER_NAMESPACE);
    const alice = await as('alice');
    const session = await alice.openSession({ ttlSeconds: FENCED.ttlSeconds });
    const whileFree = await refusal(alice.acquire({ sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 }));
    const biller = new LockClient({ arbiter: await as('biller'), clock, identity: BILLER });
    const held = await biller.acquire({ key, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, onFence: noFence });
    const whileHeld = await refusal(alice.acquire({ sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 }));
    expect(whileFree.code).toBe('denied');
    expect([whileHeld.code, whileHeld.message]).toEqual([whileFree.code, whileFree.message]);
    // The same refusal as a generic gRPC client sees it: PERMISSION_DENIED with lockstep's ErrorDetail.
    const files = certs.get('alice') as CertFiles;
    const raw = createClient(LockService, createGrpcTransport({ baseUrl: `https://127.0.0.1:${server.port}`, nodeOptions: { cert: await readFile(files.cert), key: await readFile(files.key), ca: await readFile(ca.cert) } }));
    const wire = await raw.acquire({ sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 }).then(() => undefined, (e: unknown) => e);
    expect(wire).toBeInstanceOf(ConnectError);
    expect((wire as ConnectError).code).toBe(Code.PermissionDenied);
    expect((wire as ConnectError).findDetails(ErrorDetailSchema).map((d) => d.code)).toEqual([ErrorCode.DENIED]);
    await held.release();
    await biller.close();
    await alice.closeSession({ sessionId: session.sessionId });
  });

  it.each([
    ['no SPIFFE ID', 'nobody', /no spiffe:\/\/ URI/],
    ['two SPIFFE IDs', 'twice', /2 spiffe:\/\/ URIs/],
  ])('refuses a client certificate with %s, before anything is read', async (_label, name, message) => {
    const arbiter = await as(name);
    const error = await refusal(arbiter.openSession({ ttlSeconds: FENCED.ttlSeconds }));
    expect(error.code).toBe('unauthenticated');
    expect(error.message).toMatch(message);
    expect((await refusal(arbiter.inspect(`${NAMESPACE}/anything`))).code).toBe('unauthenticated');
  });

  it('refuses a client certificate from another CA in the handshake (nothing reaches the arbiter)', async () => {
    const other = await makeDevCa(join(scratch, 'other-ca'));
    const stranger = await makeClientCert(other, 'stranger', [ALICE]);
    const arbiter = new NetworkArbiter({ addresses: [`127.0.0.1:${server.port}`], tls: { cert: await readFile(stranger.cert), key: await readFile(stranger.key), ca: await readFile(ca.cert) } });
    const error = await refusal(arbiter.status());
    // Issue 29: a definite refusal, said as one (not 'unavailable', which a retry might cure).
    expect(error.code).toBe('unauthenticated');
    expect(error.message).toMatch(/refused the client certificate in the TLS handshake.*nothing was sent/);
  });

  it('force-releases only with two different authenticated operators, and records both', async () => {
    const key = world.key('grpc-force');
    const holder = new LockClient({ arbiter: await as('alice'), clock, identity: ALICE });
    const handle = await holder.acquire({ key, className: FENCED.name, ttlSeconds: FENCED.ttlSeconds, onFence: noFence });
    const [ana, ben, bob] = [await as('ana'), await as('ben'), await as('bob')];
    const request = { key, expectedToken: handle.token.toString(), reason: 'holder wedged since 02:10 (INC-4711)' };

    expect((await refusal(bob.requestForceRelease(request))).code).toBe('denied'); // a workload is no operator
    const proposal = await ana.requestForceRelease(request);
    expect([proposal.enforcement, proposal.holder.identity, proposal.requester]).toEqual(['fenced', ALICE, OPERATOR_IDS[0]]);
    expect((await refusal(ana.approveForceRelease({ requestId: proposal.requestId }))).code).toBe('approval-required'); // the same operator twice
    expect((await world.holder(key))?.createRevision).toBe(handle.grant.revision);

    const done = await ben.approveForceRelease({ requestId: proposal.requestId });
    expect([done.released, done.requester, done.approver]).toEqual([true, OPERATOR_IDS[0], OPERATOR_IDS[1]]);
    expect(done.recordKey.startsWith(`${FORCE_PREFIX}${key}/`)).toBe(true);
    const record = JSON.parse((await world.log().range({ key: done.recordKey })).kvs[0]?.value ?? '{}') as Record<string, string>;
    expect([record['requester'], record['approver'], record['reason']]).toEqual([OPERATOR_IDS[0], OPERATOR_IDS[1], request.reason]);
    expect(await world.holder(key)).toBeUndefined();
    await holder.close();
  });

  it('answers the standard gRPC health check', async () => {
    const files = certs.get('alice') as CertFiles;
    const health = createClient(Health, createGrpcTransport({ baseUrl: `https://127.0.0.1:${server.port}`, nodeOptions: { cert: await readFile(files.cert), key: await readFile(files.key), ca: await readFile(ca.cert) } }));
    expect((await health.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await health.check({ service: 'lockstep.lock.v1.LockService' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const unknown = await health.check({ service: 'no.such.Service' }).then(() => undefined, (e: unknown) => e);
    expect((unknown as ConnectError).code).toBe(Code.NotFound);
  });
});
