// Issue 28, the attacks as a test: `lockstep serve` as a real process with real mTLS on real etcd. One
// tenant (mallory) goes to each of its limits and past them: 32 MiB messages, sessions, waiters in line on
// the victim's key, holds, its call rate, a malformed token; an operator's stale force-release quotes a
// token. Meanwhile a second tenant's `lockstep lock` holds a 5 s-TTL key as a real process until the flood
// is over, and a third (victor) renews a session from a process of its own, timing each keepalive. The
// holder is never fenced, every one of victor's renewals is answered within its TTL (its p50/p99 printed,
// the TTL/3 target measured in docs/limits.md), serve's peak memory stays under
// MEMORY_BOUND_MIB, and no line of serve's log (every call at debug, refusals of every kind included)
// carries a token or runs over the bound.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Code, ConnectError, createClient } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initLog } from '../../core/arbiter/init-log.js';
import { MAX_LOG_LINE_CHARS } from '../../core/limits.js';
import { isLockError } from '../../core/lock-error.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { LockService } from '../gen/lockstep/lock/v1/lock_pb.js';
import { type CertFiles, type DevCa, makeClientCert, makeDevCa, makeServerCert } from '../service/dev-certs.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { freePorts } from '../testing/free-port.js';
import { type LockstepProcess, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';
import { reapOnExit } from '../testing/process-reaper.js';
import { tokenLeaks } from '../testing/token-leak.js';
import { REPO_ROOT } from '../repo-root.js';

const TTL_SECONDS = 5;
/** The victim that times its renewals in its own process (built into dist/js by the tests' global setup). */
const KEEPALIVE_TIMER = join(REPO_ROOT, 'dist', 'js', 'src', 'testing', 'keepalive-timer.js');
/** serve's peak resident memory under the flood (it idles near 110 MiB; a 128 MiB key took it to 2.4 GB before issue 28). */
const MEMORY_BOUND_MIB = 300;
/** Mallory's grant lowers its limits so that a test reaches each of them quickly. */
const MALLORY_LIMITS = { sessions: 6, holds: 6, waiters: 6, concurrentCalls: 12, callsPerSecond: 50, callBurst: 50 };
const CLASS = 'flood-writes';
const idOf = (name: string): string => `spiffe://lockstep.test/ns/payments/sa/${name}`;
const scratch = mkdtempSync(join(tmpdir(), 'lockstep-flood-'));
const dirs = { classes: join(scratch, 'classes'), grants: join(scratch, 'grants') };
let cluster: EtcdCluster;
let log: LockLog;
let ca: DevCa;
const certs = new Map<string, CertFiles>();
let server: LockstepProcess | undefined;
let classFile: string;
const opened: NetworkArbiter[] = [];

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 1 });
  log = createEtcdLockLog({ endpoints: cluster.endpoints });
  await initLog(log);
  ca = await makeDevCa(join(scratch, 'certs'));
  for (const name of ['holder', 'victor', 'mallory', 'ana']) certs.set(name, await makeClientCert(ca, name, [idOf(name)]));
  await mkdir(dirs.classes);
  await mkdir(dirs.grants);
  classFile = await writeFencedClass(dirs.classes, CLASS, TTL_SECONDS);
  const grant = (name: string, extra = ''): string => ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', `metadata: { name: ${name}, namespace: payments }`, `spec: { identity: "${idOf(name)}", prefixes: [payments/]${extra} }`].join('\n');
  const limits = Object.entries(MALLORY_LIMITS).map(([k, v]) => `${k}: ${v}`).join(', ');
  const grants = [grant('holder'), grant('victor'), grant('mallory', `, limits: { ${limits} }`), grant('ana', ', role: operator')];
  await writeFile(join(dirs.grants, 'grants.yaml'), `${grants.join('\n---\n')}\n`);
});

afterAll(async () => {
  for (const client of opened) client.close();
  server?.child.kill('SIGKILL');
  await log?.close();
  await cluster?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

async function arbiterAs(name: string, port: number): Promise<NetworkArbiter> {
  const files = certs.get(name) as CertFiles;
  const client = new NetworkArbiter({ addresses: [`127.0.0.1:${port}`], tls: { cert: await readFile(files.cert), key: await readFile(files.key), ca: await readFile(ca.cert) } });
  opened.push(client);
  return client;
}

async function rawAs(name: string, port: number) {
  const files = certs.get(name) as CertFiles;
  return createClient(LockService, createGrpcTransport({ baseUrl: `https://127.0.0.1:${port}`, nodeOptions: { cert: await readFile(files.cert), key: await readFile(files.key), ca: await readFile(ca.cert) } }));
}

const codeOf = (promise: Promise<unknown>): Promise<string> => promise.then(() => 'ok', (error: unknown) => (isLockError(error) ? error.code : error instanceof ConnectError ? `wire:${Code[error.code]}` : String(error)));

function peakMemoryMib(pid: number): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Number(hwm) / 1024;
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Mallory at each limit and past it; every outcome by kind. */
async function flood(port: number, victimToken: bigint, tokens: bigint[]): Promise<Record<string, string[]>> {
  const mallory = await arbiterAs('mallory', port);
  const raw = await rawAs('mallory', port);
  const seen: Record<string, string[]> = {};
  const note = async (what: string, promise: Promise<unknown>) => void (seen[what] ??= []).push(await codeOf(promise));
  const huge = `payments/${'k'.repeat(32 * 1024 * 1024)}`;
  await Promise.all([1, 2, 3].map(() => note('oversize', raw.validate({ key: huge, token: '1' }).catch((error: unknown) => {
    (seen['oversize-text'] ??= []).push(error instanceof ConnectError ? error.rawMessage.slice(0, 120) : String(error));
    throw error;
  }))));
  const sessions = [];
  for (let i = 0; i < MALLORY_LIMITS.sessions + 2; i++) {
    const session = mallory.openSession({ ttlSeconds: TTL_SECONDS });
    await note('sessions', session);
    sessions.push(await session.catch(() => undefined));
  }
  const second = sessions[1];
  if (second === undefined) throw new Error('mallory opened no second session');
  // Waiters in line behind the holder's key: at the limit, and past it, on a session kept alive meanwhile.
  const renewing = setInterval(() => void mallory.keepAlive({ sessionId: second.sessionId }).catch(() => undefined), 1000);
  const waiting = Array.from({ length: MALLORY_LIMITS.waiters + 2 }, () => note('waiters', mallory.acquire({ sessionId: second.sessionId, key: 'payments/victim', className: CLASS, waitMs: 4000 })));
  await note('bad-token', mallory.validate({ key: 'payments/victim', token: `${victimToken}x` }));
  // Its rate and its calls in flight: four bursts' worth at once (sent one by one, a loaded machine's round
  // trips alone kept the rate under the limit).
  await Promise.all(Array.from({ length: 4 * MALLORY_LIMITS.callBurst }, () => note('rate', mallory.validate({ key: 'payments/victim', token: String(victimToken) }))));
  await Promise.all(waiting).finally(() => clearInterval(renewing));
  await sleep(1000); // the bucket refills
  // Mallory's sessions were not renewed: their leases are gone, and so are their places in its quota.
  const fresh = await mallory.openSession({ ttlSeconds: TTL_SECONDS });
  for (let i = 0; i < MALLORY_LIMITS.holds + 2; i++) {
    const acquired = mallory.acquire({ sessionId: fresh.sessionId, key: `payments/m-${i}`, className: CLASS, waitMs: 0 });
    await note('holds', acquired);
    tokens.push(...(await acquired.then((grant) => [grant.token], () => [])));
  }
  const ana = await arbiterAs('ana', port);
  await note('stale', ana.requestForceRelease({ key: 'payments/victim', expectedToken: String(victimToken - 1n), reason: 'flood test: a stale expected token' }));
  return seen;
}

describe('one tenant at every limit (issue 28)', () => {
  it('cannot fence, stall or leak into the log another tenant renewing through the same serve', { timeout: 180_000 }, async () => {
    const [port] = (await freePorts(1)) as [number];
    const endpoints = cluster.endpoints.map((e) => e.replace('http://', '')).join(',');
    const serverCert = await makeServerCert(ca);
    server = startLockstep(['serve', '--endpoints', endpoints, '--classes', dirs.classes, '--grants', dirs.grants, '--listen', `127.0.0.1:${port}`, '--tls-cert', serverCert.cert, '--tls-key', serverCert.key, '--client-ca', ca.cert, '--json', '--log-level', 'debug']);
    await server.waitForStderr(/serving lock\.v1/, 30_000);

    // The holder: a real `lockstep lock` process on a 5 s-TTL class, writing its token where this test reads it.
    const tokenFile = join(scratch, 'victim-token');
    const doneFile = join(scratch, 'flood-done'); // the holder holds until the flood is over, however long it takes
    const files = certs.get('holder') as CertFiles;
    const holder = startLockstep(['lock', '--arbiter', `127.0.0.1:${port}`, '--tls-cert', files.cert, '--tls-key', files.key, '--ca', ca.cert, '--class', classFile, 'payments/victim', '--', 'sh', '-c', `echo $LOCKSTEP_TOKEN > ${tokenFile}; while [ ! -e ${doneFile} ]; do sleep 0.2; done`]);
    while (!existsSync(tokenFile) || readFileSync(tokenFile, 'utf8').trim() === '') await sleep(100);
    const victimToken = BigInt(readFileSync(tokenFile, 'utf8').trim());

    // Victor renews every 250 ms through the flood, timing each keepalive in a process of its own.
    const victorFiles = certs.get('victor') as CertFiles;
    const victor = spawn(process.execPath, [KEEPALIVE_TIMER, String(port), victorFiles.cert, victorFiles.key, ca.cert, 'payments/victor', CLASS, String(TTL_SECONDS)], { stdio: ['pipe', 'pipe', 'pipe'] });
    reapOnExit(victor);
    let victorOut = '';
    let victorErr = '';
    victor.stdout.on('data', (chunk: Buffer) => (victorOut += chunk.toString()));
    const victorExit = new Promise<number | null>((done) => victor.once('exit', (code) => done(code)));
    await new Promise<void>((done, fail) => {
      victor.stderr.on('data', (chunk: Buffer) => ((victorErr += chunk.toString()), victorErr.includes('holding') && done()));
      void victorExit.then(() => fail(new Error(`keepalive-timer exited: ${victorErr}`)));
    });
    const mallorysTokens: bigint[] = [];
    const seen = await flood(port, victimToken, mallorysTokens).finally(() => {
      victor.stdin.end();
      void writeFile(doneFile, '');
    });
    expect(await victorExit, victorErr).toBe(0);
    const { latenciesMs, token: victorToken } = JSON.parse(victorOut) as { latenciesMs: number[]; token: string };

    const holderExit = await holder.exited;
    const stderr = server.stderr();
    const peakMib = peakMemoryMib(server.pid);
    const [p50, p99] = [percentile(latenciesMs, 50), percentile(latenciesMs, 99)];
    console.log(`flood: victor keepalive p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms over ${latenciesMs.length} renewals; serve peak RSS ${peakMib.toFixed(0)} MiB; outcomes ${JSON.stringify(seen)}`);

    // Mallory reached each limit and was refused past it, by name of the kind.
    const count = (what: string, code: string): number => (seen[what] ?? []).filter((c) => c === code).length;
    // Refused from the length prefix: resource-exhausted, or (seen here) the stream reset while the client
    // still sends (NGHTTP2_ENHANCE_YOUR_CALM / INTERNAL_ERROR); the arbiter never sees it, and serve stays small.
    expect(seen['oversize']?.filter((code) => code === 'wire:ResourceExhausted' || code === 'wire:Internal')).toHaveLength(3);
    expect([count('sessions', 'ok'), count('sessions', 'resource-exhausted')]).toEqual([MALLORY_LIMITS.sessions, 2]);
    expect([count('waiters', 'wait-timeout'), count('waiters', 'resource-exhausted')]).toEqual([MALLORY_LIMITS.waiters, 2]);
    expect(count('rate', 'resource-exhausted')).toBeGreaterThan(0);
    expect([count('holds', 'ok'), count('holds', 'resource-exhausted')]).toEqual([MALLORY_LIMITS.holds, 2]);
    expect([seen['bad-token'], seen['stale']]).toEqual([['invalid-argument'], ['stale']]);

    // The others never noticed: the holder exits with its command's 0 (4 is fenced), victor renewed well in time.
    expect(holderExit.code, holder.stderr()).toBe(0);
    // Safety, not speed (STYLE.md: no timed assertions): every renewal was answered within the TTL, so the
    // session was never at risk. The TTL/3 target for p99 is a measured figure (docs/limits.md): on this
    // shared 2-core machine, at load average 4 to 14, one renewal in a run has stalled for up to 2.1 s.
    expect(Math.max(...latenciesMs)).toBeLessThan(TTL_SECONDS * 1000);
    expect(peakMib).toBeLessThan(MEMORY_BOUND_MIB);

    // The log: every refusal kind is there, no line over the bound, no token of anyone's.
    const lines = stderr.split('\n').filter((line) => line !== '');
    for (const code of ['resource-exhausted', 'invalid-argument', 'stale', 'wait-timeout']) expect(lines.some((line) => line.includes(`"code":"${code}"`)), code).toBe(true);
    expect(lines.filter((line) => line.length > MAX_LOG_LINE_CHARS).map((line) => line.slice(0, 200))).toEqual([]);
    expect(tokenLeaks(stderr, [victimToken, victimToken - 1n, BigInt(victorToken), ...mallorysTokens])).toEqual([]);
    // The control: the same search finds the holder's token where it is (the file its command wrote).
    expect(tokenLeaks(readFileSync(tokenFile, 'utf8'), [victimToken])).not.toEqual([]);
    expect(mallorysTokens).toHaveLength(MALLORY_LIMITS.holds);
  });
});
