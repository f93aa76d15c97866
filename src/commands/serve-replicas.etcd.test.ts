// Issue 29 through real processes: two `lockstep serve` arbiters over mTLS on one real etcd, and
// `lockstep lock --arbiter` clients that carry no class file. Three replicas with one certificate take
// turns on one key in arrival order with rising tokens; a second process claiming the same instance is
// refused as a leak; a local --class that disagrees with the arbiters' is refused naming both; and with
// holds granted through both arbiters, lockstep_holds summed over the arbiters equals the holds in etcd.
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLog } from '../../core/arbiter/init-log.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-replicas-'));
const CLASS = 'replica-writes';
const WORKLOAD = 'spiffe://lockstep.test/ns/payments/sa/worker';
const POLL_MS = 100;
const POLLS = 300;
let cluster: EtcdCluster;
let log: LockLog;
let ca: DevCa;
let worker: CertFiles;
const arbiters: Array<{ port: number; metricsPort: number; process: LockstepProcess }> = [];
const started: LockstepProcess[] = [];

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 1, namePrefix: 'replicas' });
  log = createEtcdLockLog({ endpoints: cluster.endpoints });
  await initLog(log);
  ca = await makeDevCa(join(scratch, 'certs'));
  const serverCert = await makeServerCert(ca);
  worker = await makeClientCert(ca, 'worker', [WORKLOAD]);
  const dirs = { classes: join(scratch, 'classes'), grants: join(scratch, 'grants') };
  await mkdir(dirs.classes);
  await mkdir(dirs.grants);
  await writeFencedClass(dirs.classes, CLASS, 5);
  await writeFile(join(dirs.grants, 'grants.yaml'), ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', 'metadata: { name: worker, namespace: payments }', `spec: { identity: "${WORKLOAD}", prefixes: [payments/] }`, ''].join('\n'));
  const ports = (await freePorts(4)) as [number, number, number, number];
  const endpoints = cluster.endpoints.map((e) => e.replace('http://', '')).join(',');
  for (const [port, metricsPort] of [[ports[0], ports[1]], [ports[2], ports[3]]] as const) {
    const process = startLockstep(['serve', '--endpoints', endpoints, '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`, '--metrics-listen', `127.0.0.1:${metricsPort}`, '--tls-cert', serverCert.cert, '--tls-key', serverCert.key, '--client-ca', ca.cert]);
    arbiters.push({ port, metricsPort, process });
  }
  await Promise.all(arbiters.map((a) => a.process.waitForStderr(/metrics at http/, 30_000)));
}, 120_000);

afterAll(async () => {
  for (const process of [...started, ...arbiters.map((a) => a.process)]) process.child.kill('SIGKILL');
  await log?.close();
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** `lockstep lock` as a replica of the workload: one certificate, no --class; `order` lists the arbiters by index. */
function lock(key: string, command: string, extra: readonly string[] = [], order: readonly number[] = [0, 1]): LockstepProcess {
  const arbiterList = order.map((i) => `127.0.0.1:${arbiters[i]?.port}`).join(',');
  const process = startLockstep(['lock', '--arbiter', arbiterList, '--tls-cert', worker.cert, '--tls-key', worker.key, '--ca', ca.cert, '--wait', '60s', ...extra, key, '--', 'sh', '-c', command]);
  started.push(process);
  return process;
}

/** A metric summed over every series of both arbiters' /metrics. */
async function summed(metric: string): Promise<number> {
  let total = 0;
  for (const { metricsPort } of arbiters) {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    for (const [, value] of text.matchAll(new RegExp(`^${metric}\\{[^}]*\\} (\\S+)$`, 'gm'))) total += Number(value);
  }
  return total;
}

async function until(what: string, ready: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < POLLS; i++) {
    if (await ready()) return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`${what} did not happen within ${(POLLS * POLL_MS) / 1000} s`);
}

const holdsInEtcd = async (): Promise<number> => (await log.range({ key: '/l/', prefix: true })).kvs.length;

describe('replicas of one workload through lockstep serve (issue 29)', () => {
  it('three replicas with one certificate take turns on one key in arrival order with rising tokens', { timeout: 120_000 }, async () => {
    const key = 'payments/leader';
    const journal = join(scratch, 'leader.txt');
    const gate = join(scratch, 'leader-gate');
    await writeFile(journal, '');
    // The first holds until the gate opens, so the other two are certainly in line, in the order they arrived.
    const step = (name: string, wait: string) => `echo "start ${name} $LOCKSTEP_TOKEN" >> ${journal}; ${wait} echo "end ${name} $LOCKSTEP_TOKEN" >> ${journal}`;
    const replicas = [lock(key, step('r1', `while [ ! -e ${gate} ]; do sleep 0.1; done;`))];
    await until('the first replica\'s grant', async () => (await readFile(journal, 'utf8')) !== '');
    for (const [i, name] of ['r2', 'r3'].entries()) {
      replicas.push(lock(key, step(name, 'sleep 0.2;')));
      await until(`${name} waiting in line`, async () => (await summed('lockstep_waiters')) === i + 1);
    }
    await writeFile(gate, '');
    const exits = await Promise.all(replicas.map((r) => r.exited));
    expect(exits.map((e) => e.code), replicas.map((r) => r.stderr()).join('\n')).toEqual([0, 0, 0]);
    const lines = (await readFile(journal, 'utf8')).trim().split('\n').map((line) => line.split(' '));
    expect(lines.map(([event, name]) => `${event} ${name}`)).toEqual(['start r1', 'end r1', 'start r2', 'end r2', 'start r3', 'end r3']);
    const tokens = lines.filter(([event]) => event === 'start').map(([, , token]) => BigInt(token ?? '0'));
    expect(tokens[0]! < tokens[1]! && tokens[1]! < tokens[2]!).toBe(true);
  });

  it('refuses a second process claiming the same instance while it holds the key: a leak (ADR-13)', { timeout: 60_000 }, async () => {
    const key = 'payments/one-instance';
    const journal = join(scratch, 'leak.txt');
    const gate = join(scratch, 'leak-gate');
    await writeFile(journal, '');
    const holder = lock(key, `echo "$LOCKSTEP_TOKEN" >> ${journal}; while [ ! -e ${gate} ]; do sleep 0.1; done`, ['--instance', 'pod-0']);
    await until('the holder\'s grant', async () => (await readFile(journal, 'utf8')) !== '');
    const second = lock(key, 'true', ['--instance', 'pod-0']);
    const refused = await second.exited;
    await writeFile(gate, '');
    expect((await holder.exited).code).toBe(0);
    expect(refused.code).toBe(5);
    expect(second.stderr()).toMatch(/already held by spiffe:\/\/lockstep\.test\/ns\/payments\/sa\/worker \(instance pod-0\) under session/);
  });

  it('refuses a local --class that disagrees with the arbiters\', naming both', { timeout: 60_000 }, async () => {
    await mkdir(join(scratch, 'stale'));
    const stale = await writeFencedClass(join(scratch, 'stale'), CLASS, 7);
    const run = lock('payments/with-stale-class', 'true', ['--class', stale]);
    expect((await run.exited).code, run.stderr()).toBe(2);
    expect(run.stderr()).toMatch(/declares payments\/replica-writes \(ttl 7 s.*arbiters serve payments\/replica-writes \(ttl 5 s/);
  });

  it('counts every hold once across two arbiters, whichever arbiter opened its session: the holds gauge summed equals the holds in etcd', { timeout: 120_000 }, async () => {
    // Keys homed on each arbiter (rendezvous over the addresses, as every client computes it), and
    // sessions opened on each (a client opens its session on the first arbiter it lists).
    const router = new NetworkArbiter({ addresses: arbiters.map((a) => `127.0.0.1:${a.port}`), identity: WORKLOAD });
    const homeOf = (key: string): number => arbiters.findIndex((a) => `127.0.0.1:${a.port}` === router.orderFor(key)[0]?.address);
    router.close();
    const keys: string[][] = [[], []];
    for (let i = 0; keys.some((k) => k.length < 2); i++) keys[homeOf(`payments/held-${i}`)]?.push(`payments/held-${i}`);
    const gate = join(scratch, 'holds-gate');
    const journal = join(scratch, 'holds.txt');
    await writeFile(journal, '');
    const holders = [keys[0]![0]!, keys[0]![1]!, keys[1]![0]!, keys[1]![1]!].map((key, i) =>
      // Even holders open their session on the key's own arbiter, odd ones on the other.
      lock(key, `echo "$LOCKSTEP_TOKEN" >> ${journal}; while [ ! -e ${gate} ]; do sleep 0.1; done`, [], i % 2 === 0 ? [homeOf(key), 1 - homeOf(key)] : [1 - homeOf(key), homeOf(key)]),
    );
    await until('four grants', async () => (await readFile(journal, 'utf8')).trim().split('\n').length === 4);
    expect(await holdsInEtcd()).toBe(4);
    expect(await summed('lockstep_holds')).toBe(4);
    await writeFile(gate, '');
    expect((await Promise.all(holders.map((h) => h.exited))).map((e) => e.code)).toEqual([0, 0, 0, 0]);
    await until('the holds to end', async () => (await holdsInEtcd()) === 0);
    expect(await summed('lockstep_holds')).toBe(0);
  });
});
