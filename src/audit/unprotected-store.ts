// The audit store's `unprotected` events (ADR-04, ADR-21): the grants an arbiter made from its own memory
// while no etcd majority answered, shipped from its spool when the quorum is back. They are not in etcd's
// log, so the tailer never sees them; they have their own table, keyed by the spool record's id, so a
// shipment repeated after a crash mid-ship stores each record once (insert or ignore).
import { type DuckDBConnection, timestampValue } from '@duckdb/node-api';
import type { UnprotectedRecord, UnprotectedStore } from '../../core/ports/spool.js';
import { UNPROTECTED_SCHEMA, UNPROTECTED_TABLE, withAuditDb } from './duckdb-file.js';
import { micros } from './duckdb-store.js';

/** The DuckDB audit file as the arbiter's UnprotectedStore (core/ports/spool.ts): where a spool ships. */
export class DuckDbUnprotectedStore implements UnprotectedStore {
  private formatChecked = false;

  constructor(
    readonly path: string,
    private readonly wallNowMs: () => number = Date.now,
  ) {}

  async shipUnprotected(records: readonly UnprotectedRecord[]): Promise<void> {
    if (records.length === 0) return;
    await withAuditDb(this.path, 'write', (connection) => insertUnprotected(connection, records, this.wallNowMs()), this.formatChecked);
    this.formatChecked = true;
  }

  async unprotected(sinceMs: number): Promise<readonly UnprotectedRecord[]> {
    const records = await withAuditDb(this.path, 'read', (connection) => unprotectedSince(connection, sinceMs), this.formatChecked);
    this.formatChecked = true;
    return records;
  }
}

const COLUMNS = `id, kind, grant_id, arbiter_id, key, namespace, class_name, identity, instance, epoch_us(happened_at) AS at_us, end_reason`;

/** Inserts the records, skipping any whose id is stored already; one transaction. */
export async function insertUnprotected(connection: DuckDBConnection, records: readonly UnprotectedRecord[], shippedAtMs: number): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(UNPROTECTED_SCHEMA);
    await connection.run(`CREATE TEMP TABLE unprotected_staging AS SELECT * FROM ${UNPROTECTED_TABLE} LIMIT 0`);
    const appender = await connection.createAppender('unprotected_staging', 'main', 'temp');
    try {
      for (const record of records) {
        for (const value of [record.id, record.kind, record.grantId, record.arbiterId, record.key, record.namespace, record.className, record.identity, record.instance]) appender.appendVarchar(value);
        appender.appendTimestamp(timestampValue(micros(record.atMs)));
        if (record.endReason === undefined) appender.appendNull();
        else appender.appendVarchar(record.endReason);
        appender.appendTimestamp(timestampValue(micros(shippedAtMs)));
        appender.endRow();
      }
      appender.flushSync();
    } finally {
      appender.closeSync();
    }
    // One row per id even when a shipment repeats a record within itself (a spool read twice).
    await connection.run(`INSERT INTO ${UNPROTECTED_TABLE} SELECT * FROM (SELECT DISTINCT ON (id) * FROM unprotected_staging) ON CONFLICT DO NOTHING`);
    await connection.run('DROP TABLE unprotected_staging');
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Every stored record with atMs >= sinceMs, ordered by time then id; none when the store has no such table yet. */
export async function unprotectedSince(connection: DuckDBConnection, sinceMs: number): Promise<UnprotectedRecord[]> {
  if (!(await hasUnprotectedTable(connection))) return [];
  const reader = await connection.runAndReadAll(`SELECT ${COLUMNS} FROM ${UNPROTECTED_TABLE} WHERE happened_at >= make_timestamp($1::BIGINT) ORDER BY happened_at, id`, [micros(sinceMs).toString(10)]);
  return reader.getRowObjects().map(recordOf);
}

/**
 * The grants that touch the window [sinceMs, untilMs) (granted before its end, and not ended before its
 * start, or not ended at all), each with its end records; at most `limit` grants, oldest first.
 */
export async function unprotectedGrantsIn(connection: DuckDBConnection, sinceMs: number, untilMs: number, limit: number): Promise<UnprotectedRecord[]> {
  if (!(await hasUnprotectedTable(connection))) return [];
  const reader = await connection.runAndReadAll(
    `WITH grants AS (
       SELECT g.grant_id, g.happened_at FROM ${UNPROTECTED_TABLE} g
       WHERE g.kind = 'grant' AND g.happened_at < make_timestamp($2::BIGINT)
         AND NOT EXISTS (SELECT 1 FROM ${UNPROTECTED_TABLE} e WHERE e.kind = 'end' AND e.grant_id = g.grant_id AND e.happened_at < make_timestamp($1::BIGINT))
       ORDER BY g.happened_at, g.grant_id LIMIT $3)
     SELECT ${COLUMNS} FROM ${UNPROTECTED_TABLE} WHERE grant_id IN (SELECT grant_id FROM grants) ORDER BY happened_at, id`,
    [micros(sinceMs).toString(10), micros(untilMs).toString(10), limit],
  );
  return reader.getRowObjects().map(recordOf);
}

async function hasUnprotectedTable(connection: DuckDBConnection): Promise<boolean> {
  const tables = await connection.runAndReadAll(`SELECT table_name FROM information_schema.tables WHERE table_name = '${UNPROTECTED_TABLE}'`);
  return tables.currentRowCount > 0;
}

function recordOf(row: Record<string, unknown>): UnprotectedRecord {
  const endReason = row['end_reason'];
  return {
    id: String(row['id']),
    kind: row['kind'] === 'end' ? 'end' : 'grant',
    grantId: String(row['grant_id']),
    arbiterId: String(row['arbiter_id']),
    key: String(row['key']),
    namespace: String(row['namespace']),
    className: String(row['class_name']),
    identity: String(row['identity']),
    instance: String(row['instance']),
    atMs: Number(row['at_us'] as bigint) / 1000,
    ...(endReason === 'release' || endReason === 'expiry' || endReason === 'recovery' ? { endReason } : {}),
  };
}
