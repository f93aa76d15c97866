// lockstep's reference fence for PostgreSQL (ADR-16, ADR-17), as a small module to copy: one conditional
// UPDATE that checks the record's high-water mark and writes, atomically, in the same statement. The
// statements are docs/fences/postgresql.sql's (a test keeps them equal); the comparison comes from the
// one fence rule (core/fence). The `pg` client is passed in, so the caller owns connections and pools.
import { DEFAULT_FENCE_MODE, type FenceMode, sqlMarkComparison } from '../../core/fence/index.js';
import { formatToken } from '../../core/token.js';
import type { FencingToken } from '../../core/units.js';

/** The part of pg.Client and pg.Pool this module uses. */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null; rows: unknown[] }>;
}

export interface PostgresFenceStatements {
  readonly createTable: string;
  readonly createRecord: string;
  readonly guardedWrite: string;
  readonly read: string;
}

/** Unquoted PostgreSQL identifiers, optionally schema-qualified: nothing here needs quoting or escaping. */
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}(\.[a-z_][a-z0-9_]{0,62})?$/;

export function checkTableName(table: string): string {
  if (!TABLE_NAME.test(table)) {
    throw new RangeError(`table ${JSON.stringify(table)} is not a plain PostgreSQL table name (lowercase letters, digits and _, optionally schema.table); use one such as lockstep_fenced or ledger.fenced`);
  }
  return table;
}

export function postgresFenceStatements(table: string, mode: FenceMode = DEFAULT_FENCE_MODE): PostgresFenceStatements {
  const name = checkTableName(table);
  return {
    createTable: `CREATE TABLE IF NOT EXISTS ${name} (\n  id    text   PRIMARY KEY,\n  fence bigint NOT NULL DEFAULT 0,\n  value text\n);`,
    createRecord: `INSERT INTO ${name} (id) VALUES ($1) ON CONFLICT (id) DO NOTHING;`,
    guardedWrite: `UPDATE ${name} SET value = $3, fence = $2 WHERE id = $1 AND fence ${sqlMarkComparison(mode)} $2;`,
    read: `SELECT fence::text AS fence, value FROM ${name} WHERE id = $1;`,
  };
}

export interface FencedRecord {
  readonly fence: bigint;
  readonly value: string | null;
}

export class PostgresFence {
  readonly statements: PostgresFenceStatements;

  constructor(
    private readonly db: Queryable,
    readonly table: string,
    readonly mode: FenceMode = DEFAULT_FENCE_MODE,
  ) {
    this.statements = postgresFenceStatements(table, mode);
  }

  /** The table, if it is not there yet (for a staging database; production creates it by migration). */
  async createTable(): Promise<void> {
    await this.db.query(this.statements.createTable);
  }

  async createRecord(id: string): Promise<void> {
    await this.db.query(this.statements.createRecord, [id]);
  }

  /** The guarded write: true when the record took it, false when the fence refused it. */
  async write(id: string, token: FencingToken | bigint, value: string): Promise<boolean> {
    const result = await this.db.query(this.statements.guardedWrite, [id, formatToken(token as FencingToken), value]);
    return result.rowCount === 1;
  }

  async read(id: string): Promise<FencedRecord | undefined> {
    const { rows } = await this.db.query(this.statements.read, [id]);
    const row = rows[0] as { fence: string; value: string | null } | undefined;
    return row === undefined ? undefined : { fence: BigInt(row.fence), value: row.value };
  }
}
