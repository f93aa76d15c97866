// The audit on real etcd, end to end through the command line (ADR-21): `lockstep lock` processes take and
// release locks, one is killed so its lease expires, one is force-released by two operators; two
// `lockstep audit tail` processes run at once, the elected one is killed mid-run and the other takes over,
// and a compaction past the checkpoint (while no tailer runs) shows as a gap row. The audit must hold every
// grant, release, expiry and force-release exactly once, and say nothing of what was compacted away but
// the gap. The workload is the test's own knowledge, not the tailer's account of it.
import { authenticated } from '../../core/ports/caller.js';
import { forceReleaseByTwo } from '../../core/arbiter/two-person.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { PrefixGrants, namespaceOperatorGrant } from '../../core/authz/index.js';
import { ClassRegistry, checkDocuments, parseDocuments } from '../../core/classes/index.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { revision } from '../../core/units.js';
import { createRealClock, createSeededRandom, sleepMs } from '../clock/index.js';
import { createEtcdLockLog, initEtcdLog } from '../etcd/index.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { reapOnExit } from '../testing/process-reaper.js';
import { withAuditDb } from './duckdb-file.js';

const TODAY = '2026-12-01';
const CLASS_YAML = `apiVersion: lockstep.dev/v1
kind: LockClass
metadata: { name: ledger-writes, namespace: payments }
spec: { purpose: correctness, enforcement: fenced, resource: postgresql://ledger-db/ledger.entries, ttlSeconds: 5, tier: entity, fairness: memory }
---
apiVersion: lockstep.dev/v1
kind: PauseTestResult
metadata: { name: ledger-writes-2026-11, namespace: payments }
spec: { class: ledger-writes, resource: postgresql://ledger-db/ledger.entries, passed: true, ranAt: 2026-11-01 }
`;
const OPERATORS = ['spiffe://ops/dana', 'spiffe://ops/erin'] as const;
const REASON = 'the holder is wedged; its job was moved elsewhere';

let cluster: EtcdCluster;
let log: LockLog;
let dir: string;
let classFile: string;
const children = new Set<Child>();

interface Child {
  readonly process: ChildProcess;
  readonly stdout: string[];
  readonly stderr: string[];
  readonly exited: Promise<number | null>;
}

function lockstep(args: readonly string[]): Child {
  // Its own process group, so a kill reaches the locked command too (the test's stand-in for issue 11's S4).
  const child = spawn(process.execPath, ['bin/lockstep.mjs', ...args], { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  reapOnExit(child);
  const stdout: string[] = [];
  const stderr: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => stdout.push(...chunk.toString('utf8').split('\n').filter((l) => l.length > 0)));
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(...chunk.toString('utf8').split('\n').filter((l) => l.length > 0)));
  const handle: Child = { process: child, stdout, stderr, exited: new Promise<number | null>((resolve) => child.once('exit', (code) => (children.delete(handle), resolve(code)))) };
  children.add(handle);
  return handle;
}

function killGroup(child: Child, signal: NodeJS.Signals): void {
  if (child.process.pid !== undefined) {
    try {
      process.kill(-child.process.pid, signal);
    } catch {
      // Already gone.
    }
  }
}

function lock(key: string, identity: string, command: readonly string[]): Child {
  return lockstep(['lock', '--endpoints', cluster.endpoints.join(','), '--class', classFile, '--identity', identity, '--now', TODAY, '--wait', '30s', key, '--', ...command]);
}

function tail(db: string): Child {
  return lockstep(['audit', 'tail', '--endpoints', cluster.endpoints.join(','), '--db', db, '--checkpoint-interval', '300ms', '--election-ttl', '5s', '--json']);
}

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleepMs(100);
  }
}

const progressLines = (child: Child) => child.stdout.map((l) => JSON.parse(l) as { event: string; checkpointRevision?: string });

async function holderOf(key: string): Promise<boolean> {
  return (await log.range({ key: `/l/${key}` })).kvs.length > 0;
}

async function head(): Promise<bigint> {
  return (await log.status()).header.revision;
}

interface Row {
  readonly kind: string;
  readonly key: string;
  readonly identity: string | null;
  readonly grant_revision: bigint | null;
  readonly requester: string | null;
  readonly approver: string | null;
  readonly reason: string | null;
}

async function rows(db: string): Promise<Row[]> {
  return withAuditDb(db, 'read', async (c) => (await c.runAndReadAll(`SELECT kind, key, identity, grant_revision, requester, approver, reason FROM audit_events WHERE kind <> 'epoch' ORDER BY revision`)).getRowObjects() as unknown as Row[]);
}

beforeAll(async () => {
  cluster = await startEtcdCluster({ members: 1 });
  await initEtcdLog(cluster.endpoints);
  log = createEtcdLockLog({ endpoints: cluster.endpoints });
  dir = mkdtempSync(join(tmpdir(), 'lockstep-audit-e2e-'));
  classFile = join(dir, 'ledger.yaml');
  writeFileSync(classFile, CLASS_YAML);
}, 180_000);

afterAll(async () => {
  for (const child of children) killGroup(child, 'SIGKILL');
  await log?.close();
  await cluster?.stop();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('lockstep audit on real etcd', () => {
  it('records every grant, release, expiry and force-release once across a tailer killed mid-run, with one tailer writing at a time, and a gap for a compaction past its checkpoint', async () => {
    const db = join(dir, 'audit.duckdb');
    const first = tail(db);
    await until('a tailer is elected', () => progressLines(first).some((l) => l.event === 'elected'));
    const second = tail(db);
    await until('the second tailer stands by', () => progressLines(second).some((l) => l.event === 'waiting'));

    // Three holders in turn on one key: grant and release each.
    for (const identity of ['spiffe://svc/a', 'spiffe://svc/b', 'spiffe://svc/c']) {
      expect(await lock('payments/ledger-1', identity, ['true']).exited).toBe(0);
    }
    // One killed while it holds: its lease expires (TTL 5 s) without a release.
    const killed = lock('payments/ledger-2', 'spiffe://svc/d', ['sleep', '120']);
    await until('ledger-2 is held', () => holderOf('payments/ledger-2'));
    killGroup(killed, 'SIGKILL');

    // The elected tailer dies mid-run; the standby takes over once its election lease runs out.
    killGroup(first, 'SIGKILL');
    const killedAtMs = Date.now();
    const forcedHolder = lock('payments/ledger-3', 'spiffe://svc/e', ['sleep', '120']);
    await until('ledger-3 is held', () => holderOf('payments/ledger-3'));
    // Two operators force-release it through the core Arbiter (ADR-20).
    const arbiter = new Arbiter({ log, clock: createRealClock(), random: createSeededRandom('audit-e2e'), classes: new ClassRegistry(checkDocuments(parseDocuments(CLASS_YAML, classFile).documents, { today: TODAY }).classes), authorizer: new PrefixGrants(OPERATORS.map((id) => namespaceOperatorGrant(id, 'payments'))) });
    const operators = [authenticated(OPERATORS[0]), authenticated(OPERATORS[1])] as const;
    const inspected = await arbiter.inspect(operators[0], 'payments/ledger-3');
    const forced = await forceReleaseByTwo(arbiter, operators, { key: 'payments/ledger-3', expectedToken: String(inspected.holder?.token), reason: REASON });
    expect(forced.released).toBe(true);
    arbiter.close();
    killGroup(forcedHolder, 'SIGKILL');
    await until('ledger-2\'s lease expired', async () => !(await holderOf('payments/ledger-2')), 30_000);

    await until('the standby is elected', () => progressLines(second).some((l) => l.event === 'elected'), 60_000);
    const electedAfterMs = Date.now() - killedAtMs;
    const caughtUpTo = await head();
    await until('the audit has caught up', async () => progressLines(second).some((l) => l.event === 'progress' && BigInt(l.checkpointRevision ?? 0) >= caughtUpTo));
    // A restarted first tailer stands by behind the second.
    const restarted = tail(db);
    await until('the restarted tailer stands by', () => progressLines(restarted).some((l) => l.event === 'waiting'));

    const audited = await rows(db);
    // In revision order per key (the keys' events interleave as the processes' timing has it).
    expect([...audited].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((r) => `${r.kind} ${r.key} ${r.identity}`)).toEqual([
      'grant payments/ledger-1 spiffe://svc/a',
      'release payments/ledger-1 spiffe://svc/a',
      'grant payments/ledger-1 spiffe://svc/b',
      'release payments/ledger-1 spiffe://svc/b',
      'grant payments/ledger-1 spiffe://svc/c',
      'release payments/ledger-1 spiffe://svc/c',
      'grant payments/ledger-2 spiffe://svc/d',
      'expiry payments/ledger-2 spiffe://svc/d',
      'grant payments/ledger-3 spiffe://svc/e',
      'force-release payments/ledger-3 spiffe://svc/e',
    ]);
    expect(audited.find((r) => r.kind === 'force-release')).toMatchObject({ requester: OPERATORS[0], approver: OPERATORS[1], reason: REASON });
    // Each end names the grant it ends.
    for (const end of audited.filter((r) => r.kind !== 'grant')) expect(audited.some((g) => g.kind === 'grant' && g.key === end.key && g.grant_revision === end.grant_revision)).toBe(true);
    // One writer at a time: the standby wrote nothing until it was elected, after the first died.
    expect(electedAfterMs).toBeGreaterThan(1_000);
    const secondLines = progressLines(second);
    expect(secondLines.findIndex((l) => l.event === 'progress')).toBeGreaterThan(secondLines.findIndex((l) => l.event === 'elected'));
    expect(progressLines(restarted).some((l) => l.event === 'progress' || l.event === 'elected')).toBe(false);

    // No tailer runs; two more holds; the log is compacted past the checkpoint; a tailer starts again.
    killGroup(second, 'SIGTERM');
    killGroup(restarted, 'SIGTERM');
    expect(await second.exited).toBe(0);
    await restarted.exited;
    const checkpoint = await withAuditDb(db, 'read', async (c) => (await c.runAndReadAll('SELECT revision FROM audit_checkpoints')).getRowObjects()[0]?.['revision'] as bigint);
    for (const identity of ['spiffe://svc/f', 'spiffe://svc/g']) expect(await lock('payments/ledger-4', identity, ['true']).exited).toBe(0);
    const compactedAt = await head();
    await log.compact(revision(compactedAt));
    expect(await lock('payments/ledger-5', 'spiffe://svc/h', ['true']).exited).toBe(0);
    const after = tail(db);
    const target = await head();
    await until('the audit has read past the compaction', async () => progressLines(after).some((l) => l.event === 'progress' && BigInt(l.checkpointRevision ?? 0) >= target));
    killGroup(after, 'SIGTERM');
    expect(await after.exited).toBe(0);
    const gaps = await withAuditDb(db, 'read', async (c) => (await c.runAndReadAll('SELECT from_revision, to_revision FROM audit_gaps')).getRowObjects());
    expect(gaps).toEqual([{ from_revision: checkpoint + 1n, to_revision: compactedAt }]);
    const final = await rows(db);
    expect(final.filter((r) => r.key === 'payments/ledger-4')).toEqual([]); // compacted away: said by the gap, not by rows
    expect(final.filter((r) => r.key === 'payments/ledger-5').map((r) => r.kind)).toEqual(['grant', 'release']);
    // No token in any line the tailers printed (ADR-22).
    const tokens = [inspected.holder?.token].map(String);
    for (const child of [first, second, restarted, after]) for (const line of [...child.stdout, ...child.stderr]) for (const token of tokens) expect(line).not.toContain(token);
  }, 240_000);
});
