// The service path of the bench (issue 12, ADR-18): a real `lockstep serve` child process on the bench's
// etcd, plaintext on loopback or mTLS with development certificates (issue 30 measures both), serving the
// bench class and a grant per worker identity written to a temporary directory. Stopped with SIGTERM (its
// drain), SIGKILL after a grace; also when this process exits (process-reaper).
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientTls } from '../src/client/network-arbiter.js';
import { makeClientCert, makeDevCa, makeServerCert } from '../src/service/dev-certs.js';
import { freePorts } from '../src/testing/free-port.js';
import { type LockstepProcess, startLockstep } from '../src/testing/lockstep-process.js';
import { BENCH_CLASS, BENCH_NAMESPACE } from './workloads/bench-world.js';

export interface ServiceProcess {
  readonly address: string;
  /** serve's pid, whose CPU the bench reads from /proc. */
  readonly pid: number;
  /** With `tls`: the client certificate of the first identity, its key and the CA. */
  readonly clientTls?: ClientTls;
  stop(): Promise<void>;
}

export interface BenchServiceOptions {
  /** mTLS with a development CA; the client certificate carries the first identity. */
  readonly tls?: boolean;
  /** Options for serve's node (--cpu-prof for a profile). */
  readonly nodeArgs?: readonly string[];
}

const STOP_GRACE_MS = 5_000;

/** Every identity matching `spiffe://lockstep.bench/ns/bench/sa/*` may lock in the bench namespace: one grant per name given. */
export async function startBenchService(endpoints: readonly string[], identities: readonly string[], options: BenchServiceOptions = {}): Promise<ServiceProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-bench-serve-'));
  const { classes, grants } = await writeBenchPolicy(dir, identities);
  const [port] = await freePorts(1);
  const address = `127.0.0.1:${port}`;
  const tls = options.tls === true ? await benchCertificates(join(dir, 'tls'), identities[0] ?? '') : undefined;
  const args = ['serve', '--endpoints', endpoints.map((e) => e.replace(/^http:\/\//, '')).join(','), '--classes', classes, '--grants', grants, '--listen', address, '--log-level', 'warn', ...(tls?.serveArgs ?? [])];
  const server: LockstepProcess = startLockstep(args, options.nodeArgs === undefined ? {} : { nodeArgs: options.nodeArgs });
  const stop = async (): Promise<void> => {
    server.child.kill('SIGTERM');
    const killed = setTimeout(() => server.child.kill('SIGKILL'), STOP_GRACE_MS);
    await server.exited;
    clearTimeout(killed);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await server.waitForStderr(/serving lock\.v1/, 60_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { address, pid: server.pid, ...(tls === undefined ? {} : { clientTls: tls.client }), stop };
}

/** The bench class and one grant per identity, as YAML in `dir`/classes and `dir`/grants (what serve loads). */
export async function writeBenchPolicy(dir: string, identities: readonly string[]): Promise<{ classes: string; grants: string }> {
  const classes = join(dir, 'classes');
  const grants = join(dir, 'grants');
  await mkdir(classes);
  await mkdir(grants);
  const today = new Date().toISOString().slice(0, 10);
  const c = BENCH_CLASS;
  await writeFile(join(classes, 'bench.yaml'), [
    'apiVersion: lockstep.dev/v1', 'kind: LockClass', `metadata: { name: ${c.name}, namespace: ${c.namespace} }`,
    `spec: { purpose: correctness, enforcement: fenced, resource: "bench://lockstep/${c.name}", ttlSeconds: ${c.ttlSeconds}, tier: entity }`,
    '---',
    'apiVersion: lockstep.dev/v1', 'kind: PauseTestResult', `metadata: { name: ${c.name}-pause, namespace: ${c.namespace} }`,
    `spec: { class: ${c.name}, resource: "bench://lockstep/${c.name}", passed: true, ranAt: ${today} }`, '',
  ].join('\n'));
  const grantDocs = identities.map((identity, i) => ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: worker-${i}, namespace: ${BENCH_NAMESPACE} }`, `spec: { identity: "${identity}", prefixes: [${BENCH_NAMESPACE}/] }`].join('\n'));
  await writeFile(join(grants, 'grants.yaml'), `${grantDocs.join('\n---\n')}\n`);
  return { classes, grants };
}

/** A development CA, serve's certificate and a client certificate carrying `identity`. */
export async function benchCertificates(dir: string, identity: string): Promise<{ serveArgs: string[]; client: ClientTls }> {
  const ca = await makeDevCa(dir);
  const server = await makeServerCert(ca);
  const client = await makeClientCert(ca, 'bench-client', [identity]);
  const [cert, key, caPem] = await Promise.all([readFile(client.cert), readFile(client.key), readFile(ca.cert)]);
  return { serveArgs: ['--tls-cert', server.cert, '--tls-key', server.key, '--client-ca', ca.cert], client: { cert, key, ca: caPem } };
}
