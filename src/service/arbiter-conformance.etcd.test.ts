// The one ArbiterApi conformance suite (src/testing/arbiter-conformance.ts) on each lock.v1
// implementation: the arbiter in process on real etcd, the simulated RPC on simulated etcd, and the real
// gRPC server with mTLS on real etcd.
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest';
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import { actingAs, authenticated } from '../../core/ports/caller.js';
import { SimDriver } from '../../sim/cluster/driver.js';
import { World } from '../../sim/world/world.js';
import { type ArbiterSubject, arbiterConformance } from '../testing/arbiter-conformance.js';
import { NAMESPACE, fixtureClasses, fixtureGrants, useArbiterWorld } from '../testing/arbiter-fixture.js';
import { type DevCa, makeClientCert, makeDevCa, makeServerCert } from './dev-certs.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { type ArbiterServer, startArbiterServer } from './server.js';

// The assertions are the shared kit's (src/testing/arbiter-conformance.ts); every test here must make at least one.
beforeEach(() => {
  expect.hasAssertions();
});

const world = useArbiterWorld();

describe('ArbiterApi conformance: the arbiter in process (real etcd)', () => {
  arbiterConformance(() => {
    const arbiter = world.arbiter();
    return { as: async (identity) => actingAs(arbiter, authenticated(identity)), key: (label, namespace) => world.key(`local-${label}`, namespace) };
  });
});

describe('ArbiterApi conformance: the simulated RPC (simulated etcd)', () => {
  const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
  let sim: World;
  let driver: SimDriver;
  const clients = new Map<string, ArbiterApi>();
  let keys = 0;
  beforeAll(async () => {
    sim = new World({ seed: 'arbiter-conformance', yieldToHost, classes: fixtureClasses(), authorizer: fixtureGrants() });
    await sim.start();
    driver = new SimDriver(sim.kernel);
  });
  /** Every call runs the simulated world until it is answered. */
  const driven = (api: ArbiterApi): ArbiterApi => ({
    openSession: (r) => driver.wait(api.openSession(r)),
    keepAlive: (r) => driver.wait(api.keepAlive(r)),
    closeSession: (r) => driver.wait(api.closeSession(r)),
    describeKey: (r) => driver.wait(api.describeKey(r)),
    acquire: (r) => driver.wait(api.acquire(r)),
    release: (r) => driver.wait(api.release(r)),
    validate: (r) => driver.wait(api.validate(r)),
    inspect: (key) => driver.wait(api.inspect(key)),
    requestForceRelease: (r) => driver.wait(api.requestForceRelease(r)),
    approveForceRelease: (r) => driver.wait(api.approveForceRelease(r)),
    requestEpochAdvance: (r) => driver.wait(api.requestEpochAdvance(r)),
    approveEpochAdvance: (r) => driver.wait(api.approveEpochAdvance(r)),
    status: () => driver.wait(api.status()),
  });
  arbiterConformance(() => ({
    as: async (identity) => {
      let api = clients.get(identity);
      if (api === undefined) {
        api = driven(sim.addClient(`client-${clients.size}`, { identity }).api);
        clients.set(identity, api);
      }
      return api;
    },
    key: (label, namespace = NAMESPACE) => `${namespace}/sim-${label}-${++keys}`,
  }));
});

describe('ArbiterApi conformance: lock.v1 over gRPC with mTLS (real etcd)', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'lockstep-conformance-'));
  let ca: DevCa;
  let server: ArbiterServer;
  const clients = new Map<string, NetworkArbiter>();
  beforeAll(async () => {
    ca = await makeDevCa(join(scratch, 'ca'));
    const cert = await makeServerCert(ca);
    server = await startArbiterServer({ arbiter: world.arbiter(), host: '127.0.0.1', port: 0, tls: { cert: await readFile(cert.cert), key: await readFile(cert.key), clientCa: await readFile(ca.cert) }, onUnexpected: (error) => { throw error; } });
  });
  afterAll(async () => {
    await server?.drain(1000);
    rmSync(scratch, { recursive: true, force: true });
  });
  arbiterConformance((): ArbiterSubject => ({
    as: async (identity) => {
      let api = clients.get(identity);
      if (api === undefined) {
        const files = await makeClientCert(ca, `client-${clients.size}`, [identity]);
        api = new NetworkArbiter({ addresses: [`127.0.0.1:${server.port}`], tls: { cert: await readFile(files.cert), key: await readFile(files.key), ca: await readFile(ca.cert) } });
        clients.set(identity, api);
      }
      return api;
    },
    key: (label, namespace) => world.key(`grpc-${label}`, namespace),
  }));
});
