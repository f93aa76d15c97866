// `lockstep serve` as real processes on one real etcd, with real mTLS (certificates made here by
// openssl) and `lockstep lock --arbiter` clients as real processes: exclusion across two arbiters, the
// reload that keeps the last good set, the refusals before serving, and a drain under load.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { appendFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUT_DIR } from '../../bin/js-build.mjs';
import { SERVE_BUNDLE } from '../../bin/serve-bundle.mjs';
import { initLog } from '../../core/arbiter/init-log.js';
import { holderKeyOf, parseLockKey } from '../../core/lock-key.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { formatToken, packToken } from '../../core/token.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, runLockstep, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-serve-'));
const CLASS = 'svc-writes';
const CLIENTS = ['c0', 'c1', 'c2', 'c3'];
const idOf = (name: string): string => `spiffe://lockstep.test/ns/payments/sa/${name}`;
let cluster: EtcdCluster;
let log: LockLog;
let ca: DevCa;
let serverCert: CertFiles;
const clientCerts = new Map<string, CertFiles>();
const dirs = { classes: join(scratch, 'classes'), grants: join(scratch, 'grants') };
let classFile: string;
const servers: LockstepProcess[] = [];

async function serve(port: number): Promise<LockstepProcess> {
  const endpoints = cluster.endpoints.map((e) => e.replace('http://', '')).join(',');
  const server = startLockstep(['serve', '--endpoints', endpoints, '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`, '--tls-cert', serverCert.cert, '--tls-key', serverCert.key, '--client-ca', ca.cert, '--drain-grace', '3000']);
  servers.push(server);
  await server.waitForStderr(/serving lock\.v1/, 30_000);
  return server;
}

function lock(client: string, arbiters: readonly number[], key: string, command: string, wait = '60s'): LockstepProcess {
  const files = clientCerts.get(client) as CertFiles;
  return startLockstep(['lock', '--arbiter', arbiters.map((p) => `127.0.0.1:${p}`).join(','), '--tls-cert', files.cert, '--tls-key', files.key, '--ca', ca.cert, '--class', classFile, '--wait', wait, key, '--', 'sh', '-c', command]);
}

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 1 });
  log = createEtcdLockLog({ endpoints: cluster.endpoints });
  await initLog(log);
  ca = await makeDevCa(join(scratch, 'certs'));
  serverCert = await makeServerCert(ca);
  for (const name of CLIENTS) clientCerts.set(name, await makeClientCert(ca, name, [idOf(name)]));
  await mkdir(dirs.classes);
  await mkdir(dirs.grants);
  classFile = await writeFencedClass(dirs.classes, CLASS, 5);
  const grants = CLIENTS.map((name) => ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: ${name}, namespace: payments }`, `spec: { identity: "${idOf(name)}", prefixes: [payments/] }`].join('\n'));
  await writeFile(join(dirs.grants, 'grants.yaml'), `${grants.join('\n---\n')}\n`);
});

afterAll(async () => {
  for (const server of servers) server.child.kill('SIGKILL');
  await log?.close();
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/**
 * A plaintext serve started with the node flag `flag`, up to its serving line, as the first start of the serve
 * bundle under that flag: its code cache (bin/compile-cache.mjs names each by the node version, flags and
 * NODE_OPTIONS, so no other serve writes this one) is removed first, and its path returned.
 */
async function serveFirstStart(flag: string): Promise<{ server: LockstepProcess; cache: string }> {
  const hash = createHash('sha256').update(`${process.version} ${flag} ${process.env.NODE_OPTIONS ?? ''}`).digest('hex').slice(0, 12);
  const cache = join(OUT_DIR, `${SERVE_BUNDLE}.${hash}.v8-cache`);
  rmSync(cache, { force: true });
  const [port] = await freePorts(1);
  const endpoints = cluster.endpoints.map((e) => e.replace('http://', '')).join(',');
  const server = startLockstep(['serve', '--endpoints', endpoints, '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`], { nodeArgs: [flag] });
  try {
    await server.waitForStderr(/serving lock\.v1/, 30_000);
  } catch (error) {
    server.child.kill('SIGKILL');
    throw error;
  }
  return { server, cache };
}

async function holderOf(key: string): Promise<string | undefined> {
  return (await log.range({ key: holderKeyOf(parseLockKey(key)) })).kvs[0]?.value;
}

describe('lockstep serve', () => {
  it('refuses a non-loopback --listen without TLS, and an uninitialised log, before serving', async () => {
    const endpoints = cluster.endpoints.map((e) => e.replace('http://', '')).join(',');
    const open = await runLockstep(['serve', '--endpoints', endpoints, '--classes', dirs.classes, '--grants', dirs.grants, '--listen', '0.0.0.0:7499']);
    expect(open.code).toBe(2);
    expect(open.stderr).toMatch(/not a loopback address.*--tls-cert/);
    const fresh = await startEtcdCluster({ members: 1, namePrefix: 'fresh' });
    const [port] = await freePorts(1);
    try {
      const uninitialised = await runLockstep(['serve', '--endpoints', fresh.endpoints.map((e) => e.replace('http://', '')).join(','), '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`]);
      expect(uninitialised.code).toBe(5);
      expect(uninitialised.stderr).toMatch(/etcd at 127\.0\.0\.1:\d+ has no epoch record: it is not initialised; run lockstep init --endpoints/);
      // Nothing listening is not an uninitialised log (issue 29): it must not send the operator to init.
      const nobody = await runLockstep(['serve', '--endpoints', '127.0.0.1:1', '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`]);
      expect(nobody.code).toBe(5);
      expect(nobody.stderr).toMatch(/cannot reach etcd at \S*127\.0\.0\.1:1: .*ECONNREFUSED/);
      expect(nobody.stderr).not.toMatch(/lockstep init/);
    } finally {
      await fresh.stop();
    }
  });

  it('runs from its bundle and saves its code cache once it serves, not at exit: a crashed arbiter never exits (servestart)', async () => {
    const { server, cache } = await serveFirstStart('--stack-trace-limit=17');
    try {
      // Written just after the line: wait for it or for the process to end (which would be the failure).
      for (let i = 0; i < 200 && !existsSync(cache) && server.child.exitCode === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(existsSync(cache)).toBe(true);
      expect(server.child.exitCode).toBeNull();
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
      rmSync(cache, { force: true });
    }
  });

  it('drains on a SIGTERM sent the moment it says it serves (its listener is in place before the line)', async () => {
    // The first start saves its code cache at ready: the SIGTERM lands while that runs, where the default
    // action would kill it outright.
    const { server, cache } = await serveFirstStart('--stack-trace-limit=18');
    try {
      server.child.kill('SIGTERM');
      expect(await server.exited).toEqual({ code: 0, signal: null });
      expect(server.stderr()).toMatch(/SIGTERM: draining[^]*stopped/);
    } finally {
      server.child.kill('SIGKILL');
      rmSync(cache, { force: true });
    }
  });

  it('four client processes through two arbiters never overlap, and see strictly increasing tokens', { timeout: 240_000 }, async () => {
    const [a, b] = await freePorts(2);
    await Promise.all([serve(a as number), serve(b as number)]);
    const key = 'payments/shared-ledger';
    const journal = join(scratch, 'journal.txt');
    await writeFile(journal, '');
    const step = `echo "start $LOCKSTEP_TOKEN" >> ${journal}; sleep 0.3; echo "end $LOCKSTEP_TOKEN" >> ${journal}`;
    // Two clients call each arbiter: exclusion is the log's, across arbiters, not one arbiter's queue.
    const rounds = 1;
    const clients = CLIENTS.map((name, i) => (async () => {
      for (let round = 0; round < rounds; round++) {
        const run = lock(name, [i % 2 === 0 ? (a as number) : (b as number)], key, step);
        const { code } = await run.exited;
        if (code !== 0) throw new Error(`${name} exited ${code}: ${run.stderr()}`);
      }
    })());
    await Promise.all(clients);
    const lines = (await readFile(journal, 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(CLIENTS.length * rounds * 2);
    let previous = 0n;
    for (let i = 0; i < lines.length; i += 2) {
      const [start, end] = [lines[i] ?? '', lines[i + 1] ?? ''];
      const token = start.replace('start ', '');
      expect([start.startsWith('start '), end]).toEqual([true, `end ${token}`]); // nobody started inside another's hold
      expect(BigInt(token) > previous).toBe(true);
      previous = BigInt(token);
    }
    expect(await holderOf(key)).toBeUndefined();
  });

  it('keeps the last good classes serving when an invalid class file is dropped into --classes', async () => {
    const server = servers[0] as LockstepProcess;
    const port = Number(/on 127\.0\.0\.1:(\d+)/.exec(server.stderr())?.[1]);
    await appendFile(join(dirs.classes, 'broken.yaml'), 'apiVersion: lockstep.dev/v1\nkind: LockClass\nmetadata: { name: broken, namespace: payments }\nspec: { purpose: correctness, enforcement: fenced, ttlSeconds: 3 }\n');
    try {
      // The refusal's header and its problems are separate lines: wait for the one naming the file.
      await server.waitForStderr(/refused the changed classes or grants \(\d+ problem[^]*broken\.yaml/, 20_000);
      const run = lock('c0', [port], 'payments/after-reload', 'true');
      expect((await run.exited).code).toBe(0);
    } finally {
      rmSync(join(dirs.classes, 'broken.yaml'), { force: true });
    }
    await server.waitForStderr(/reloaded 1 classes and 4 grants/, 20_000);
  });

  it('drains on SIGTERM under load: it exits 0, every client ends, and no hold is left behind', { timeout: 180_000 }, async () => {
    const [port] = await freePorts(1);
    const server = await serve(port as number);
    const key = 'payments/drained';
    const started = join(scratch, 'drain-started.txt');
    await writeFile(started, '');
    const clients = CLIENTS.map((name) => lock(name, [port as number], key, `echo "$LOCKSTEP_TOKEN" >> ${started}; sleep 1`, '20s'));
    // SIGTERM once a holder is at work and the others are (most likely) in line behind it.
    for (let i = 0; i < 600 && (await readFile(started, 'utf8')) === ''; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    expect(exit.code).toBe(0);
    expect(server.stderr()).toMatch(/SIGTERM: draining/);
    const codes = await Promise.all(clients.map(async (c) => (await c.exited).code));
    const fenced = clients.filter((_, i) => codes[i] === 4);
    // Each client either ran its command (0), was refused (5: the arbiter was draining), gave up
    // waiting (3), or was fenced (4): a holder granted just before the only arbiter left cannot renew,
    // and when its command outlives the deadline of its last renewal (a loaded host) it is stopped there,
    // as ADR-12 wants. None was left hanging.
    codes.forEach((code, i) => expect([0, 3, 4, 5], clients[i]?.stderr()).toContain(code));
    for (const c of fenced) expect(c.stderr()).toMatch(/the fence deadline of payments\/drained passed before a renewal/);
    expect(codes).toContain(0);
    // No grant was made that no client got: a hold still in the log (its release came after the
    // connections closed) is one whose token a command received, and it ends with its lease.
    const delivered = (await readFile(started, 'utf8')).trim().split('\n');
    const left = (await log.range({ key: holderKeyOf(parseLockKey(key)) })).kvs[0];
    if (left !== undefined) expect(delivered).toContain(formatToken(packToken(1, left.createRevision)));
    for (let i = 0; i < 100 && (await holderOf(key)) !== undefined; i++) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await holderOf(key)).toBeUndefined();
  });
});
