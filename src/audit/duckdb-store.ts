// The embedded AuditStore (ADR-21): DuckDB, so the audit works with no server. One flush is one
// transaction: the events go through an appender into a staging table and from there into audit_events,
// skipping any (cluster ID, revision, key) already stored, so a replay after a crash writes each event once;
// gaps likewise; the checkpoint only ever moves forward.
import { existsSync } from 'node:fs';
import { type DuckDBAppender, type DuckDBConnection, timestampValue } from '@duckdb/node-api';
import type { AuditCheckpoint, AuditRecord } from '../../core/audit/events.js';
import type { AuditBatch, AuditStore } from '../../core/audit/store.js';
import { type ClusterId, revision } from '../../core/units.js';
import { withAuditDb } from './duckdb-file.js';

export class DuckDbAuditStore implements AuditStore {
  /** Set once this store has opened the file and found (or made) an audit database there. */
  private formatChecked = false;

  constructor(readonly path: string) {}

  async write(batch: AuditBatch): Promise<void> {
    await withAuditDb(this.path, 'write', async (connection) => {
      this.formatChecked = true;
      await connection.run('BEGIN TRANSACTION');
      try {
        if (batch.records.length > 0) await insertRecords(connection, batch.records);
        for (const gap of batch.gaps) {
          await connection.run(
            `INSERT INTO audit_gaps VALUES ($1::UBIGINT, $2, $3, make_timestamp($4::BIGINT)) ON CONFLICT (cluster_id, from_revision) DO UPDATE SET to_revision = greatest(audit_gaps.to_revision, excluded.to_revision)`,
            [gap.clusterId.toString(10), gap.fromRevision, gap.toRevision, micros(gap.detectedAtMs)],
          );
        }
        const { checkpoint } = batch;
        const probe = checkpoint.probe;
        await connection.run(
          `INSERT INTO audit_checkpoints VALUES ($1::UBIGINT, $2, $3, make_timestamp($4::BIGINT), $5, $6, $7)
           ON CONFLICT (cluster_id) DO UPDATE SET revision = excluded.revision, epoch = excluded.epoch, updated_at = excluded.updated_at,
             probe_key = excluded.probe_key, probe_revision = excluded.probe_revision, probe_version = excluded.probe_version
           WHERE excluded.revision >= audit_checkpoints.revision`,
          [checkpoint.clusterId.toString(10), checkpoint.revision, checkpoint.epoch, micros(checkpoint.updatedAtMs), probe?.key ?? null, probe?.modRevision ?? null, probe?.version ?? null],
        );
        await connection.run('COMMIT');
      } catch (error) {
        await connection.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
    }, this.formatChecked);
  }

  async checkpoint(clusterId: ClusterId): Promise<AuditCheckpoint | undefined> {
    if (!existsSync(this.path)) return undefined; // the first flush creates the database
    return withAuditDb(this.path, 'read', async (connection) => {
      this.formatChecked = true;
      const rows = (await connection.runAndReadAll('SELECT revision, epoch, epoch_ms(updated_at) AS updated_ms, probe_key, probe_revision, probe_version FROM audit_checkpoints WHERE cluster_id = $1::UBIGINT', [clusterId.toString(10)])).getRowObjects();
      const row = rows[0];
      if (row === undefined) return undefined;
      const probe = typeof row['probe_key'] === 'string' ? { key: row['probe_key'], modRevision: revision(row['probe_revision'] as bigint), version: row['probe_version'] as bigint } : undefined;
      return { clusterId, revision: revision(row['revision'] as bigint), epoch: Number(row['epoch']), updatedAtMs: Number(row['updated_ms']), ...(probe === undefined ? {} : { probe }) };
    }, this.formatChecked);
  }
}

/** Wall ms (fractions from a simulated or high-resolution clock) as DuckDB's timestamp microseconds. */
export function micros(ms: number): bigint {
  return BigInt(Math.round(ms * 1000));
}

async function insertRecords(connection: DuckDBConnection, records: readonly AuditRecord[]): Promise<void> {
  await connection.run('CREATE TEMP TABLE staging AS SELECT * FROM audit_events LIMIT 0');
  const appender = await connection.createAppender('staging', 'main', 'temp');
  try {
    for (const record of records) appendRecord(appender, record);
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  await connection.run('INSERT INTO audit_events SELECT * FROM staging ON CONFLICT DO NOTHING');
  await connection.run('DROP TABLE staging');
}

function appendRecord(appender: DuckDBAppender, record: AuditRecord): void {
  const text = (value: string | undefined) => (value === undefined ? appender.appendNull() : appender.appendVarchar(value));
  const big = (value: bigint | undefined) => (value === undefined ? appender.appendNull() : appender.appendBigInt(value));
  const int = (value: number | undefined) => (value === undefined ? appender.appendNull() : appender.appendInteger(value));
  appender.appendUBigInt(record.clusterId);
  appender.appendBigInt(record.revision);
  appender.appendVarchar(record.key);
  appender.appendVarchar(record.kind);
  text(record.namespace);
  text(record.identity);
  text(record.className);
  big(record.sessionId);
  big(record.grantRevision);
  int(record.epoch);
  big(record.token);
  int(record.previousEpoch);
  if (record.boundClusterId === undefined) appender.appendNull();
  else appender.appendUBigInt(record.boundClusterId);
  text(record.requester);
  text(record.approver);
  text(record.reason);
  text(record.enforcement);
  int(record.shardMapVersion);
  appender.appendTimestamp(timestampValue(micros(record.observedAtMs)));
  appender.appendBoolean(record.timeExact);
  appender.endRow();
}
