// TLS to etcd (issue 31; ADR-06, ADR-20): a real etcd that serves clients over TLS only and requires a
// client certificate its own CA signed (--client-cert-auth), as a production lock etcd does. `lockstep init`
// and `lockstep serve` (a real process, its etcd files from the environment as a Deployment passes them)
// reach it with the right files, and a `lockstep lock --arbiter` client is granted through that serve; a
// client without the certificate is refused with a message that says what to give.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';
import { runCli } from '../testing/run-cli.js';


const scratch = mkdtempSync(join(tmpdir(), 'lockstep-etcd-tls-'));
const WRITER = 'spiffe://lockstep.test/ns/payments/sa/writer';
let cluster: EtcdCluster;
/** etcd's own CA: its server certificate and the arbiters' client certificate. */
let etcdCa: DevCa;
let etcdClient: CertFiles;
/** The service's CA: the arbiter's server certificate and the workload's. */
let serviceCa: DevCa;
const servers: LockstepProcess[] = [];
const dirs = { classes: join(scratch, 'classes'), grants: join(scratch, 'grants') };
let classFile: string;

beforeAll(async () => {
  etcdCa = await makeDevCa(join(scratch, 'etcd-certs'));
  const etcdServer = await makeServerCert(etcdCa, 'etcd');
  etcdClient = await makeClientCert(etcdCa, 'arbiter-etcd-client', []);
  const probe = { ca: await readFile(etcdCa.cert), cert: await readFile(etcdClient.cert), key: await readFile(etcdClient.key) };
  cluster = await startEtcdCluster({ members: 1, clientTls: { certFile: etcdServer.cert, keyFile: etcdServer.key, caFile: etcdCa.cert, clientCertAuth: true, probe } });
  serviceCa = await makeDevCa(join(scratch, 'service-certs'));
  await mkdir(dirs.classes);
  await mkdir(dirs.grants);
  classFile = await writeFencedClass(dirs.classes, 'tls-writes', 5);
  await writeFile(join(dirs.grants, 'grants.yaml'), ['apiVersion: lockstep/v1', 'kind: LockGrant', 'metadata: { name: writer, namespace: payments }', `spec: { identity: "${WRITER}", prefixes: [payments/] }`, ''].join('\n'));
});

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGKILL');
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

describe('TLS to a TLS-only etcd with client-certificate auth', () => {
  it('serves on https only: the endpoints are https://', () => {
    expect(cluster.endpoints.every((e) => e.startsWith('https://127.0.0.1:'))).toBe(true);
  });

  it('refuses a client with the CA but no client certificate, saying so, and writes nothing', async () => {
    const run = await runCli('init', '--endpoints', cluster.endpoints.join(','), '--etcd-ca', etcdCa.cert);
    expect(run.code).toBe(5);
    expect(run.err.join('\n')).toMatch(/could not initialise the lock log at https:\/\/127\.0\.0\.1:\d+: unavailable: .*etcd refused the TLS handshake: it requires a client certificate signed by its CA; give --etcd-cert and --etcd-key/);
  });

  it('refuses a certificate without its key as bad input, before dialling', async () => {
    const run = await runCli('init', '--endpoints', cluster.endpoints.join(','), '--etcd-ca', etcdCa.cert, '--etcd-cert', etcdClient.cert);
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain('--etcd-cert and --etcd-key go together');
  });

  it('init with the client certificate, then serve (etcd files from the environment) grants a lock over mTLS', async () => {
    const init = await runCli('init', '--endpoints', cluster.endpoints.join(','), '--etcd-ca', etcdCa.cert, '--etcd-cert', etcdClient.cert, '--etcd-key', etcdClient.key);
    expect(init.code, init.err.join('\n')).toBe(0);

    const arbiterCert = await makeServerCert(serviceCa);
    const writer = await makeClientCert(serviceCa, 'writer', [WRITER]);
    const [port] = await freePorts(1);
    const env = { ...process.env, LOCKSTEP_ETCD_CA: etcdCa.cert, LOCKSTEP_ETCD_CERT: etcdClient.cert, LOCKSTEP_ETCD_KEY: etcdClient.key };
    const server = startLockstep(['serve', '--endpoints', cluster.endpoints.join(','), '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`, '--tls-cert', arbiterCert.cert, '--tls-key', arbiterCert.key, '--client-ca', serviceCa.cert], { env });
    servers.push(server);
    await server.waitForStderr(/serving lock\.v1/, 30_000);

    const lock = startLockstep(['lock', '--arbiter', `127.0.0.1:${port}`, '--tls-cert', writer.cert, '--tls-key', writer.key, '--ca', serviceCa.cert, '--class', classFile, 'payments/tls/1', '--', 'true']);
    const { code } = await lock.exited;
    expect(code, lock.stderr()).toBe(0);
    expect(lock.stderr()).toContain('locked payments/tls/1');
  });
});
