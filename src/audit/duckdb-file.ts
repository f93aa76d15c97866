// The audit store's file (ADR-21, docs/audit.md): one DuckDB database, opened only for as long as one
// flush or one query takes, because DuckDB lets one process at a time hold a file it writes: a tailer that
// kept it open would lock `lockstep audit holds` and `report` out. A flush that meets a reader's lock (or a
// reader the tailer's) waits a moment and tries again.
//
// A file is adopted only if it is a lockstep audit store (its format table says so) or does not exist yet:
// anything else (not a DuckDB file, another program's DuckDB database, a newer format) is refused with an
// AuditDbError and left as it was, opened read-only to look.
import { existsSync, statSync } from 'node:fs';
import { DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { sleepMs } from '../clock/index.js';

export const AUDIT_DB_FORMAT = 'lockstep.audit';
export const AUDIT_DB_VERSION = 1;
/** How long an open waits for another process's lock on the file (a flush takes well under a second). */
const LOCK_WAIT_MS = 5_000;
const LOCK_RETRY_MS = 50;

/** Bad input about the database file: the CLI exits 2, having changed nothing. */
export class AuditDbError extends Error {
  override readonly name = 'AuditDbError';
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

export type OpenMode = 'read' | 'write';

/** Unprotected grants shipped from arbiters' spools (ADR-04; unprotected-store.ts). */
export const UNPROTECTED_TABLE = 'audit_unprotected';
/** Additive: a store made before it gets the table on its first shipment (IF NOT EXISTS), same format version. */
export const UNPROTECTED_SCHEMA = `CREATE TABLE IF NOT EXISTS ${UNPROTECTED_TABLE} (
    id VARCHAR NOT NULL PRIMARY KEY, kind VARCHAR NOT NULL, grant_id VARCHAR NOT NULL, arbiter_id VARCHAR NOT NULL,
    key VARCHAR NOT NULL, namespace VARCHAR NOT NULL, class_name VARCHAR NOT NULL, identity VARCHAR NOT NULL, instance VARCHAR NOT NULL,
    happened_at TIMESTAMP NOT NULL, end_reason VARCHAR, shipped_at TIMESTAMP NOT NULL)`;

const SCHEMA = [
  `CREATE TABLE lockstep_audit_format (format VARCHAR NOT NULL, version INTEGER NOT NULL, created_at TIMESTAMP NOT NULL)`,
  `CREATE TABLE audit_events (
    cluster_id UBIGINT NOT NULL, revision BIGINT NOT NULL, key VARCHAR NOT NULL, kind VARCHAR NOT NULL,
    namespace VARCHAR, identity VARCHAR, class_name VARCHAR, session_id BIGINT, grant_revision BIGINT,
    epoch INTEGER, token BIGINT, previous_epoch INTEGER, bound_cluster_id UBIGINT,
    requester VARCHAR, approver VARCHAR, reason VARCHAR, enforcement VARCHAR, shard_map_version INTEGER,
    observed_at TIMESTAMP NOT NULL, time_exact BOOLEAN NOT NULL,
    PRIMARY KEY (cluster_id, revision, key))`,
  `CREATE TABLE audit_gaps (cluster_id UBIGINT NOT NULL, from_revision BIGINT NOT NULL, to_revision BIGINT NOT NULL, detected_at TIMESTAMP NOT NULL, PRIMARY KEY (cluster_id, from_revision))`,
  `CREATE TABLE audit_checkpoints (cluster_id UBIGINT NOT NULL PRIMARY KEY, revision BIGINT NOT NULL, epoch INTEGER NOT NULL, updated_at TIMESTAMP NOT NULL,
    probe_key VARCHAR, probe_revision BIGINT, probe_version BIGINT)`,
  UNPROTECTED_SCHEMA,
];

/**
 * Runs `use` on a connection to the audit database at `path`, then closes it. `formatChecked`: the caller
 * already saw this file pass checkFormat (the store, flush after flush), so it is opened once, not twice.
 */
export async function withAuditDb<T>(path: string, mode: OpenMode, use: (connection: DuckDBConnection) => Promise<T>, formatChecked = false): Promise<T> {
  const fresh = !existsSync(path);
  if (fresh && mode === 'read') throw new AuditDbError(path, `${path}: no audit database there; start one with lockstep audit tail --db ${path}`);
  if (!fresh && !formatChecked) await checkFormat(path);
  const instance = await openWaitingForLock(path, mode);
  try {
    const connection = await instance.connect();
    try {
      if (fresh) await createSchema(connection);
      return await use(connection);
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

/** Creates the database if it does not exist, or checks that it is one; for a command's bad-input check up front. */
export async function prepareAuditDb(path: string, mode: OpenMode): Promise<void> {
  await withAuditDb(path, mode, () => Promise.resolve());
}

async function createSchema(connection: DuckDBConnection): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  for (const statement of SCHEMA) await connection.run(statement);
  await connection.run('INSERT INTO lockstep_audit_format VALUES ($1, $2, now()::TIMESTAMP)', [AUDIT_DB_FORMAT, AUDIT_DB_VERSION]);
  await connection.run('COMMIT');
}

/** Looks at an existing file read-only: a lockstep audit store of a format this build reads, or an AuditDbError. */
async function checkFormat(path: string): Promise<void> {
  if (statSync(path, { throwIfNoEntry: false })?.isFile() !== true) throw new AuditDbError(path, `${path} is not a file; give the path of an audit database file (it is created if it does not exist)`);
  const instance = await openWaitingForLock(path, 'read');
  try {
    const connection = await instance.connect();
    try {
      const tables = await connection.runAndReadAll(`SELECT table_name FROM information_schema.tables WHERE table_name = 'lockstep_audit_format'`);
      if (tables.currentRowCount === 0) {
        throw new AuditDbError(path, `${path} is a DuckDB database but not a lockstep audit store (it has no lockstep_audit_format table); it was left untouched: give another path`);
      }
      const rows = (await connection.runAndReadAll('SELECT format, version FROM lockstep_audit_format')).getRowObjects();
      const row = rows[0];
      if (rows.length !== 1 || row?.['format'] !== AUDIT_DB_FORMAT) throw new AuditDbError(path, `${path}: its lockstep_audit_format table does not name ${AUDIT_DB_FORMAT}; it was left untouched`);
      if (row['version'] !== AUDIT_DB_VERSION) {
        throw new AuditDbError(path, `${path} is an audit store of format version ${String(row['version'])}; this lockstep reads version ${AUDIT_DB_VERSION}: use the lockstep that wrote it, or another path`);
      }
    } finally {
      connection.closeSync();
    }
  } finally {
    instance.closeSync();
  }
}

async function openWaitingForLock(path: string, mode: OpenMode): Promise<DuckDBInstance> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      return await DuckDBInstance.create(path, mode === 'read' ? { access_mode: 'READ_ONLY' } : {});
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/Could not set lock on file/.test(message) && Date.now() < deadline) {
        await sleepMs(LOCK_RETRY_MS);
        continue;
      }
      if (/not a valid DuckDB database file/.test(message)) throw new AuditDbError(path, `${path} is not a DuckDB database file; it was left untouched: give the path of an audit database (it is created if it does not exist)`);
      if (/Could not set lock on file/.test(message)) throw new AuditDbError(path, `${path} stayed locked by another process for ${LOCK_WAIT_MS / 1000} s (${message.split('\n')[0]}); is another lockstep holding it?`);
      throw new AuditDbError(path, `${path} could not be opened: ${message.split('\n')[0]}`);
    }
  }
}
