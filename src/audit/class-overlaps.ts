// Overlapping holds per class, as the audit saw them (ADR-01's risk register, `lockstep class register
// --audit`): two holds of one key whose observed times intersect within the window. etcd's grant txn
// refuses a second holder, so an overlap in the audit is either a time read while catching up (an upper
// bound, not exact) or two holders at once: for an advisory class, the risk its owner signed for.
import type { DuckDBConnection } from '@duckdb/node-api';
import { HOLD_END_KINDS } from '../../core/audit/events.js';
import { micros } from './duckdb-store.js';

const END_KINDS_SQL = HOLD_END_KINDS.map((k) => `'${k}'`).join(', ');

export interface ClassOverlaps {
  readonly namespace: string;
  readonly className: string;
  /** Pairs of holds of one key whose observed intervals intersect in the window. */
  readonly overlaps: number;
  /** Of those, pairs whose four times were all seen live (not upper bounds from catching up). */
  readonly exactOverlaps: number;
}

export async function overlapsOf(connection: DuckDBConnection, sinceMs: number, untilMs: number): Promise<ClassOverlaps[]> {
  const until = 'make_timestamp($2::BIGINT)';
  const rows = await connection.runAndReadAll(
    `WITH holds AS (
       SELECT g.cluster_id, g.key, g.revision, coalesce(g.namespace, '?') AS namespace, coalesce(g.class_name, '?') AS class_name,
              g.observed_at AS granted_at, coalesce(e.observed_at, ${until}) AS ended_at, g.time_exact AND coalesce(e.time_exact, true) AS exact
       FROM audit_events g LEFT JOIN audit_events e
         ON e.cluster_id = g.cluster_id AND e.key = g.key AND e.grant_revision = g.revision AND e.kind IN (${END_KINDS_SQL})
       WHERE g.kind = 'grant' AND g.observed_at < ${until} AND (e.observed_at IS NULL OR e.observed_at >= make_timestamp($1::BIGINT))
     )
     SELECT a.namespace, a.class_name, count(*) AS overlaps, count(*) FILTER (a.exact AND b.exact) AS exact_overlaps
     FROM holds a JOIN holds b
       ON a.key = b.key AND (a.granted_at < b.granted_at OR (a.granted_at = b.granted_at AND (a.cluster_id < b.cluster_id OR (a.cluster_id = b.cluster_id AND a.revision < b.revision))))
      AND b.granted_at < a.ended_at
     GROUP BY ALL ORDER BY a.namespace, a.class_name`,
    [micros(sinceMs).toString(10), micros(untilMs).toString(10)],
  );
  return rows.getRowObjects().map((row) => ({ namespace: String(row['namespace']), className: String(row['class_name']), overlaps: Number(row['overlaps']), exactOverlaps: Number(row['exact_overlaps']) }));
}
