// `lockstep audit export`: a window of the audit as Parquet files, ADR-21's archive (a year of grant
// history on object storage; force-releases kept seven years, so they get a file of their own). Each file
// is written under a temporary name in the target directory and renamed when complete, so a reader never
// finds half a file, and an existing file is never overwritten.
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { AuditDbError } from './duckdb-file.js';
import { micros } from './duckdb-store.js';

export interface ExportedFile {
  readonly path: string;
  readonly rows: number;
}

/** `20260601T031200Z`: a window bound in a file name. */
export function compactUtc(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

export async function exportParquet(connection: DuckDBConnection, sinceMs: number, untilMs: number, dir: string): Promise<ExportedFile[]> {
  const since = `make_timestamp(${micros(sinceMs)})`;
  const until = `make_timestamp(${micros(untilMs)})`;
  const suffix = `${compactUtc(sinceMs)}-${compactUtc(untilMs)}.parquet`;
  const parts = [
    { name: `audit-events-${suffix}`, query: `SELECT * FROM audit_events WHERE observed_at >= ${since} AND observed_at < ${until} ORDER BY cluster_id, revision, key` },
    { name: `audit-force-releases-${suffix}`, query: `SELECT * FROM audit_events WHERE kind = 'force-release' AND observed_at >= ${since} AND observed_at < ${until} ORDER BY cluster_id, revision, key` },
    { name: `audit-gaps-${suffix}`, query: `SELECT * FROM audit_gaps WHERE detected_at >= ${since} AND detected_at < ${until} ORDER BY cluster_id, from_revision` },
  ];
  for (const part of parts) {
    if (existsSync(join(dir, part.name))) throw new AuditDbError(join(dir, part.name), `${join(dir, part.name)} already exists; an export never overwrites one: remove it or export into another directory`);
  }
  await mkdir(dir, { recursive: true });
  const written: ExportedFile[] = [];
  for (const part of parts) {
    const final = join(dir, part.name);
    const temporary = join(dir, `.${part.name}.tmp-${process.pid}`);
    try {
      const copied = await connection.runAndReadAll(`COPY (${part.query}) TO '${temporary.replaceAll("'", "''")}' (FORMAT parquet)`);
      await rename(temporary, final);
      written.push({ path: final, rows: Number(copied.getRows()[0]?.[0] ?? 0) });
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }
  return written;
}
