// `lockstep audit holds|report|export` over a store written through the AuditStore port, and bad input for
// every subcommand (exit 2, nothing changed). The tailer itself runs against real etcd in
// src/audit/audit.etcd.test.ts.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../core/audit/events.js';
import { packToken } from '../../core/token.js';
import { clusterId, leaseId, revision } from '../../core/units.js';
import { DuckDbAuditStore } from '../audit/duckdb-store.js';
import { runCli } from '../testing/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'lockstep-audit-cli-'));
const db = join(dir, 'audit.duckdb');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CLUSTER = clusterId(0xabcdn);
const T0 = Date.UTC(2026, 5, 1, 3, 0);
const MIN = 60_000;

function event(kind: AuditRecord['kind'], rev: bigint, key: string, identity: string, grantRev: bigint, atMs: number, extra: Partial<AuditRecord> = {}): AuditRecord {
  return {
    kind, revision: revision(rev), key, namespace: key.split('/')[0] ?? '', identity, className: 'ledger', sessionId: leaseId(9n), grantRevision: revision(grantRev),
    epoch: 1, token: packToken(1, grantRev), clusterId: CLUSTER, observedAtMs: atMs, timeExact: true, ...extra,
  };
}

beforeAll(async () => {
  await new DuckDbAuditStore(db).write({
    records: [
      event('grant', 10n, 'payments/ledger-7', 'spiffe://alice', 10n, T0),
      event('release', 11n, 'payments/ledger-7', 'spiffe://alice', 10n, T0 + 5 * MIN),
      event('grant', 12n, 'payments/ledger-7', 'spiffe://bob', 12n, T0 + 5 * MIN + 200), // bob was waiting: contended
      event('expiry', 13n, 'payments/ledger-7', 'spiffe://bob', 12n, T0 + 20 * MIN),
      event('grant', 14n, 'payments/ledger-7', 'spiffe://carol', 14n, T0 + 30 * MIN, { timeExact: false }),
      event('force-release', 15n, 'payments/ledger-7', 'spiffe://carol', 14n, T0 + 40 * MIN, { requester: 'ops/dana', approver: 'ops/erin', reason: 'holder wedged since 03:30', enforcement: 'fenced' }),
      event('grant', 16n, 'payments/invoice-1', 'spiffe://alice', 16n, T0 + 41 * MIN),
    ],
    gaps: [{ clusterId: CLUSTER, fromRevision: revision(3n), toRevision: revision(9n), detectedAtMs: T0 + MIN }],
    checkpoint: { clusterId: CLUSTER, revision: revision(16n), epoch: 1, updatedAtMs: T0 + 41 * MIN },
  });
});

describe('lockstep audit holds', () => {
  it('lists who held a key, when, with which token and how each hold ended, and the people behind a force-release', async () => {
    const run = await runCli('audit', 'holds', '--db', db, '--key', 'payments/ledger-7');
    expect(run.code).toBe(0);
    const text = run.out.join('\n');
    expect(text).toContain('payments/ledger-7: 3 holds');
    expect(run.out.find((l) => l.startsWith('spiffe://bob'))).toMatch(new RegExp(`^spiffe://bob\\s+ledger\\s+${packToken(1, 12n)}\\s+2026-06-01 03:05:00.200Z\\s+2026-06-01 03:20:00.000Z\\s+expiry`));
    expect(run.out.find((l) => l.startsWith('spiffe://carol'))).toContain('≤ 2026-06-01 03:30:00.000Z'); // read while catching up
    expect(text).toContain('requested by ops/dana, approved by ops/erin: holder wedged since 03:30');
  });

  it('answers for one moment: held, or may have held when a time is only an upper bound', async () => {
    const at = await runCli('audit', 'holds', '--db', db, '--key', 'payments/ledger-7', '--at', '2026-06-01T03:12:00Z', '--json');
    expect(at.code).toBe(0);
    const answer = JSON.parse(at.out.at(-1) ?? '{}') as { holds: { identity: string; token: string; heldAt: string }[] };
    expect(answer.holds.map((h) => [h.identity, h.token, h.heldAt])).toEqual([['spiffe://bob', String(packToken(1, 12n)), 'held']]);
    // Carol's grant was read while catching up (≤ 03:30), after bob's expiry was seen live at 03:20.
    const maybe = await runCli('audit', 'holds', '--db', db, '--key', 'payments/ledger-7', '--at', '2026-06-01T03:25:00Z');
    expect(maybe.out.join('\n')).toMatch(/spiffe:\/\/carol.*may have held/);
    expect(maybe.out.join('\n')).not.toContain('spiffe://bob');
    const none = await runCli('audit', 'holds', '--db', db, '--key', 'payments/ledger-7', '--at', '2026-06-01T02:00:00Z');
    expect(none.out).toEqual(['payments/ledger-7: no hold in the audit at 2026-06-01 02:00:00.000Z']);
  });
});

describe('lockstep audit report', () => {
  it('sums each namespace and class, names the longest holds, and says where the window has gaps', async () => {
    const run = await runCli('audit', 'report', '--db', db, '--since', '2026-06-01T00:00:00Z', '--until', '2026-06-02T00:00:00Z', '--json');
    expect(run.code).toBe(0);
    const report = JSON.parse(run.out.at(-1) ?? '{}') as { classes: Record<string, unknown>[]; longestHolds: { key: string; durationMs: number; stillHeld: boolean }[]; gaps: unknown[] };
    expect(report.classes).toEqual([
      expect.objectContaining({ namespace: 'payments', className: 'ledger', grants: 4, contendedGrants: 1, releases: 1, expiries: 1, forceReleases: 1, longestHoldKey: 'payments/invoice-1' }),
    ]);
    expect(report.longestHolds[0]).toMatchObject({ key: 'payments/invoice-1', stillHeld: true });
    expect(report.longestHolds.find((h) => h.durationMs === 15 * MIN - 200)).toMatchObject({ key: 'payments/ledger-7', stillHeld: false });
    expect(report.gaps).toHaveLength(1);
    const text = await runCli('audit', 'report', '--db', db, '--since', '2026-06-01T00:00:00Z', '--until', '2026-06-02T00:00:00Z');
    expect(text.out.join('\n')).toMatch(/payments\s+ledger\s+4\s+1\s+1\s+1\s+1\s+0\s+0/);
    expect(text.out.join('\n')).toContain('revisions 3..9');
  });
});

describe('lockstep audit export', () => {
  it('writes the window as Parquet files, and refuses to overwrite them', async () => {
    const out = join(dir, 'archive');
    const run = await runCli('audit', 'export', '--db', db, '--since', '2026-06-01T00:00:00Z', '--until', '2026-06-02T00:00:00Z', '--parquet', out, '--json');
    expect(run.code).toBe(0);
    const files = (JSON.parse(run.out.at(-1) ?? '{}') as { files: { path: string; rows: number }[] }).files;
    expect(files.map((f) => [f.path.slice(out.length + 1), f.rows])).toEqual([
      ['audit-events-20260601T000000Z-20260602T000000Z.parquet', 7],
      ['audit-force-releases-20260601T000000Z-20260602T000000Z.parquet', 1],
      ['audit-gaps-20260601T000000Z-20260602T000000Z.parquet', 1],
    ]);
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    const read = await connection.runAndReadAll(`SELECT reason FROM '${files[1]?.path ?? ''}'`);
    expect(read.getRowObjects()).toEqual([{ reason: 'holder wedged since 03:30' }]);
    connection.closeSync();
    instance.closeSync();
    const before = readFileSync(files[0]?.path ?? '');
    const again = await runCli('audit', 'export', '--db', db, '--since', '2026-06-01T00:00:00Z', '--until', '2026-06-02T00:00:00Z', '--parquet', out);
    expect(again.code).toBe(2);
    expect(again.err.join('\n')).toMatch(/already exists; an export never overwrites one/);
    expect(readFileSync(files[0]?.path ?? '').equals(before)).toBe(true);
    expect(readdirSync(out).filter((f) => f.startsWith('.'))).toEqual([]);
  });
});

describe('bad input: exit 2, nothing changed', () => {
  const text = join(dir, 'notes.txt');
  const foreign = join(dir, 'foreign.duckdb');
  beforeAll(async () => {
    writeFileSync(text, 'a text file\n');
    const instance = await DuckDBInstance.create(foreign);
    const connection = await instance.connect();
    await connection.run('CREATE TABLE t (x INTEGER)');
    connection.closeSync();
    instance.closeSync();
    mkdirSync(join(dir, 'a-directory'), { recursive: true });
  });

  const cases: [string, string[], RegExp][] = [
    ['a missing database', ['holds', '--db', join(dir, 'missing.duckdb'), '--key', 'a/b'], /no audit database there; start one with lockstep audit tail/],
    ['a text file as the database', ['report', '--db', text], /is not a DuckDB database file; it was left untouched/],
    ['another program\'s DuckDB database', ['holds', '--db', foreign, '--key', 'a/b'], /is a DuckDB database but not a lockstep audit store/],
    ['a directory as the database', ['tail', '--endpoints', '127.0.0.1:1', '--db', join(dir, 'a-directory')], /is not a file/],
    ['a text file for the tailer', ['tail', '--endpoints', '127.0.0.1:1', '--db', text], /is not a DuckDB database file/],
    ['no endpoints', ['tail', '--endpoints', ' , ', '--db', db], /--endpoints is empty/],
    ['a revision that is not one', ['tail', '--endpoints', '127.0.0.1:1', '--db', db, '--from-revision', '0'], /--from-revision "0" must be a revision/],
    ['a checkpoint interval out of range', ['tail', '--endpoints', '127.0.0.1:1', '--db', db, '--checkpoint-interval', '10m'], /between 100ms and 60s/],
    ['a time without a zone', ['holds', '--db', db, '--key', 'a/b', '--at', '2026-06-01T03:12:00'], /ISO 8601 with a zone/],
    ['a window start that is neither', ['report', '--db', db, '--since', 'yesterday'], /neither a duration back from now/],
    ['an empty window', ['report', '--db', db, '--since', '2026-06-02T00:00:00Z', '--until', '2026-06-01T00:00:00Z'], /the window is empty/],
  ];
  for (const [what, args, message] of cases) {
    it(what, async () => {
      const before = existsSync(text) ? readFileSync(text, 'utf8') : '';
      const run = await runCli('audit', ...args);
      expect(run.code).toBe(2);
      expect(run.err.join('\n')).toMatch(message);
      expect(readFileSync(text, 'utf8')).toBe(before);
      expect(existsSync(join(dir, 'missing.duckdb'))).toBe(false);
    });
  }

  it('has --help on every subcommand', async () => {
    for (const sub of ['tail', 'holds', 'report', 'export']) {
      const run = await runCli('audit', sub, '--help');
      expect(run.code).toBe(0);
      expect(run.out.join('\n')).toContain(`Usage: lockstep audit ${sub}`);
    }
  });
});
