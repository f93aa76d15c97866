// The service path of the bench (issue 12, ADR-18): a real `lockstep serve` child process on the bench's
// etcd, plaintext on loopback (the bench measures the hop, not TLS), serving the bench class and a grant
// per worker identity written to a temporary directory. Stopped with SIGTERM (its drain), SIGKILL after
// a grace; also when this process exits (process-reaper).
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts } from '../src/testing/free-port.js';
import { type LockstepProcess, startLockstep } from '../src/testing/lockstep-process.js';
import { BENCH_CLASS, BENCH_NAMESPACE } from './workloads/bench-world.js';

export interface ServiceProcess {
  readonly address: string;
  stop(): Promise<void>;
}

const STOP_GRACE_MS = 5_000;

/** Every identity matching `spiffe://lockstep.bench/ns/bench/sa/*` may lock in the bench namespace: one grant per name given. */
export async function startBenchService(endpoints: readonly string[], identities: readonly string[]): Promise<ServiceProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-bench-serve-'));
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
  const [port] = await freePorts(1);
  const address = `127.0.0.1:${port}`;
  const server: LockstepProcess = startLockstep(['serve', '--endpoints', endpoints.map((e) => e.replace(/^http:\/\//, '')).join(','), '--classes', classes, '--grants', grants, '--listen', address, '--log-level', 'warn']);
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
  return { address, stop };
}
