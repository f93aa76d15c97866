import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../core/audit/events.js';
import { packToken } from '../../core/token.js';
import { clusterId, leaseId, revision } from '../../core/units.js';
import { AuditDbError, prepareAuditDb, withAuditDb } from './duckdb-file.js';
import { DuckDbAuditStore } from './duckdb-store.js';

const dir = mkdtempSync(join(tmpdir(), 'lockstep-audit-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Above 2^63: real cluster IDs are uint64 and often are.
const CLUSTER = clusterId(0xcdef_0123_4567_89abn);
const AT_MS = Date.UTC(2026, 5, 1, 3, 12);

function grant(rev: bigint, key = 'payments/ledger-7', identity = 'spiffe://a'): AuditRecord {
  return { kind: 'grant', revision: revision(rev), key, namespace: 'payments', identity, className: 'ledger', sessionId: leaseId(77n), grantRevision: revision(rev), epoch: 1, token: packToken(1, rev), clusterId: CLUSTER, observedAtMs: AT_MS, timeExact: true };
}

async function rows(path: string, sql: string): Promise<Record<string, unknown>[]> {
  return withAuditDb(path, 'read', async (connection) => (await connection.runAndReadAll(sql)).getRowObjects());
}

describe('DuckDbAuditStore', () => {
  it('writes events once however often a batch is replayed, and never moves a checkpoint back', async () => {
    const path = join(dir, 'replay.duckdb');
    const store = new DuckDbAuditStore(path);
    const checkpoint = (rev: bigint) => ({ clusterId: CLUSTER, revision: revision(rev), epoch: 1, updatedAtMs: AT_MS });
    await store.write({ records: [grant(5n), grant(6n, 'payments/ledger-8')], gaps: [], checkpoint: checkpoint(6n) });
    await store.write({ records: [grant(5n), grant(6n, 'payments/ledger-8'), grant(9n)], gaps: [{ clusterId: CLUSTER, fromRevision: revision(7n), toRevision: revision(8n), detectedAtMs: AT_MS }], checkpoint: checkpoint(9n) });
    await store.write({ records: [], gaps: [], checkpoint: checkpoint(4n) }); // a late writer that lost its election
    const events = await rows(path, 'SELECT revision, key, token, cluster_id, epoch_ms(observed_at) AS at FROM audit_events ORDER BY revision');
    expect(events.map((e) => [e['revision'], e['key'], e['token']])).toEqual([
      [5n, 'payments/ledger-7', packToken(1, 5n)],
      [6n, 'payments/ledger-8', packToken(1, 6n)],
      [9n, 'payments/ledger-7', packToken(1, 9n)],
    ]);
    expect(events[0]?.['cluster_id']).toBe(CLUSTER);
    expect(events[0]?.['at']).toBe(BigInt(AT_MS));
    expect(await rows(path, 'SELECT from_revision, to_revision FROM audit_gaps')).toEqual([{ from_revision: 7n, to_revision: 8n }]);
    expect(await store.checkpoint(CLUSTER)).toEqual({ clusterId: CLUSTER, revision: 9n, epoch: 1, updatedAtMs: AT_MS });
    expect(await store.checkpoint(clusterId(1n))).toBeUndefined();
  });

  it('writes a batch whole or not at all', async () => {
    const path = join(dir, 'atomic.duckdb');
    const store = new DuckDbAuditStore(path);
    const broken = { ...grant(5n), kind: undefined as unknown as 'grant' }; // NOT NULL violated by the second record
    await expect(store.write({ records: [grant(4n), broken], gaps: [], checkpoint: { clusterId: CLUSTER, revision: revision(5n), epoch: 1, updatedAtMs: AT_MS } })).rejects.toThrow();
    expect(await rows(path, 'SELECT count(*) AS n FROM audit_events')).toEqual([{ n: 0n }]);
    expect(await store.checkpoint(CLUSTER)).toBeUndefined();
  });

  it('refuses a file that is not a lockstep audit store, and leaves it as it was', async () => {
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'not a database\n'.repeat(100));
    await expect(prepareAuditDb(text, 'write')).rejects.toThrow(AuditDbError);
    await expect(prepareAuditDb(text, 'write')).rejects.toThrow(/is not a DuckDB database file; it was left untouched/);
    expect(readFileSync(text, 'utf8')).toBe('not a database\n'.repeat(100));

    const foreign = join(dir, 'foreign.duckdb');
    const instance = await DuckDBInstance.create(foreign);
    const connection = await instance.connect();
    await connection.run('CREATE TABLE invoices (id INTEGER)');
    connection.closeSync();
    instance.closeSync();
    const before = readFileSync(foreign);
    await expect(prepareAuditDb(foreign, 'write')).rejects.toThrow(/is a DuckDB database but not a lockstep audit store/);
    expect(readFileSync(foreign).equals(before)).toBe(true);

    await expect(prepareAuditDb(dir, 'write')).rejects.toThrow(/is not a file/);
    await expect(prepareAuditDb(join(dir, 'missing.duckdb'), 'read')).rejects.toThrow(/no audit database there; start one with lockstep audit tail/);
  });

  it('refuses a store of another format version', async () => {
    const path = join(dir, 'future.duckdb');
    await prepareAuditDb(path, 'write');
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    await connection.run('UPDATE lockstep_audit_format SET version = 99');
    connection.closeSync();
    instance.closeSync();
    await expect(prepareAuditDb(path, 'read')).rejects.toThrow(/format version 99; this lockstep reads version 1/);
  });
});
