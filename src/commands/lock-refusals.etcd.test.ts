// Definite refusals are definite (issue 29): `lockstep lock --arbiter` against a real `lockstep serve` over
// mTLS, with a certificate from another CA, an expired one, a wrong --ca, a key that is not the
// certificate's, and certificates with no or two SPIFFE IDs. Each exits 6 with a message naming which
// refusal and its fix, none is called "indeterminate", and the server logs the refused handshakes once per
// peer a minute. The negative control: the same command with the right files is granted.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLog } from '../../core/arbiter/init-log.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, runLockstep, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-refusals-'));
const ID = 'spiffe://lockstep.test/ns/payments/sa/writer';
let cluster: EtcdCluster;
let log: LockLog;
let ca: DevCa;
let other: DevCa;
let server: LockstepProcess;
let port: number;
let classFile: string;
const certs: Record<string, CertFiles> = {};

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 1 });
  log = createEtcdLockLog({ endpoints: cluster.endpoints });
  await initLog(log);
  ca = await makeDevCa(join(scratch, 'certs'));
  other = await makeDevCa(join(scratch, 'other'));
  const serverCert = await makeServerCert(ca);
  certs.good = await makeClientCert(ca, 'writer', [ID]);
  certs.foreign = await makeClientCert(other, 'foreign', [ID]);
  certs.expired = await makeClientCert(ca, 'expired', [ID], '-1');
  certs.none = await makeClientCert(ca, 'no-san', []);
  certs.two = await makeClientCert(ca, 'two-sans', [ID, `${ID}-2`]);
  const dirs = { classes: join(scratch, 'classes'), grants: join(scratch, 'grants') };
  await mkdir(dirs.classes);
  await mkdir(dirs.grants);
  classFile = await writeFencedClass(dirs.classes, 'writes', 5);
  await writeFile(join(dirs.grants, 'g.yaml'), `apiVersion: lockstep.dev/v1\nkind: LockGrant\nmetadata: { name: writer, namespace: payments }\nspec: { identity: "${ID}", prefixes: [payments/] }\n`);
  [port] = (await freePorts(1)) as [number];
  const endpoints = cluster.endpoints.map((e) => e.replace('http://', '')).join(',');
  server = startLockstep(['serve', '--endpoints', endpoints, '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`, '--tls-cert', serverCert.cert, '--tls-key', serverCert.key, '--client-ca', ca.cert]);
  await server.waitForStderr(/serving lock\.v1/, 30_000);
});

afterAll(async () => {
  server?.child.kill('SIGKILL');
  await log?.close();
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

function lock(files: { cert: string; key: string; ca: string }): ReturnType<typeof runLockstep> {
  return runLockstep(['lock', '--arbiter', `127.0.0.1:${port}`, '--tls-cert', files.cert, '--tls-key', files.key, '--ca', files.ca, '--class', classFile, '--wait', '0', 'payments/refusals', '--', 'true']);
}

describe('lockstep lock --arbiter: refusals of authentication', () => {
  it('grants with the right certificate, key and CA (the negative control)', async () => {
    const run = await lock({ cert: certs.good?.cert as string, key: certs.good?.key as string, ca: ca.cert });
    expect(run.code, run.stderr).toBe(0);
  });

  const cases: [string, () => { cert: string; key: string; ca: string }, RegExp][] = [
    ['a certificate from another CA', () => ({ cert: certs.foreign?.cert as string, key: certs.foreign?.key as string, ca: ca.cert }), /refused the client certificate in the TLS handshake: it is not signed by the CA the arbiter trusts/],
    ['an expired certificate', () => ({ cert: certs.expired?.cert as string, key: certs.expired?.key as string, ca: ca.cert }), /refused the client certificate, which has expired: renew it/],
    ['a wrong --ca', () => ({ cert: certs.good?.cert as string, key: certs.good?.key as string, ca: other.cert }), /certificate is not signed by the CA given in --ca .*: give --ca the CA that signed/],
    ['a key that is not the certificate\'s', () => ({ cert: certs.good?.cert as string, key: certs.foreign?.key as string, ca: ca.cert }), /--tls-key is not the private key of --tls-cert/],
    ['a certificate without a SPIFFE ID', () => ({ cert: certs.none?.cert as string, key: certs.none?.key as string, ca: ca.cert }), /carries no spiffe:\/\/ URI/],
    ['a certificate with two SPIFFE IDs', () => ({ cert: certs.two?.cert as string, key: certs.two?.key as string, ca: ca.cert }), /carries 2 spiffe:\/\/ URIs/],
  ];
  for (const [name, files, message] of cases) {
    it(`exits 6 for ${name}, naming it and the fix, never "indeterminate"`, async () => {
      const run = await lock(files());
      expect(run.stderr).toMatch(message);
      expect(run.stderr).not.toMatch(/indeterminate|may or may not/);
      expect(run.code, run.stderr).toBe(6);
    });
  }

  it('logs refused handshakes once per peer a minute: address and reason', async () => {
    // Both foreign-CA and expired attempts above came from 127.0.0.1, within the minute: one line.
    const lines = server.stderr().split('\n').filter((line) => line.includes('refused a TLS handshake'));
    expect(lines, server.stderr()).toHaveLength(1);
    expect(lines[0]).toMatch(/peer=127\.0\.0\.1 reason=UNABLE_TO_VERIFY_LEAF_SIGNATURE/);
  });
});
