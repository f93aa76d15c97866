// The questions an investigator asks the audit (ADR-21), in SQL over the embedded store: who held a key and
// when, with which token (`lockstep audit holds`), and per namespace and class what happened in a window
// (`lockstep audit report`). Times are the wall time the tailer saw each revision; one read while catching
// up is an upper bound (AuditRecord.timeExact), and the answers say which.
import type { DuckDBConnection } from '@duckdb/node-api';
import { HOLD_END_KINDS } from '../../core/audit/events.js';
import { micros } from './duckdb-store.js';

const END_KINDS_SQL = HOLD_END_KINDS.map((k) => `'${k}'`).join(', ');
/** A grant this soon after the key's previous hold ended (both seen live) had someone waiting: queue wakes are immediate, polls within a second (ADR-14/15). */
export const CONTENTION_WINDOW_MS = 1_000;
const LONGEST_HOLDS_SHOWN = 10;

export interface Hold {
  readonly clusterId: bigint;
  readonly key: string;
  readonly identity: string | undefined;
  readonly className: string | undefined;
  readonly sessionId: bigint | undefined;
  readonly token: bigint | undefined;
  readonly grantRevision: bigint | undefined;
  /** Undefined when the grant is not in the audit (it lies in a gap, or before the audit began). */
  readonly grantedAtMs: number | undefined;
  readonly grantedExact: boolean;
  /** A lower bound on the grant's time: the latest time an earlier revision of the cluster was seen live. */
  readonly grantedAfterMs: number | undefined;
  readonly endKind: string | undefined;
  readonly endRevision: bigint | undefined;
  readonly endedAtMs: number | undefined;
  readonly endedExact: boolean;
  /** A lower bound on the end's time, as for the grant. */
  readonly endedAfterMs: number | undefined;
  readonly requester: string | undefined;
  readonly approver: string | undefined;
  readonly reason: string | undefined;
}

/**
 * Whether a hold covered a moment: `held`, `maybe`, or not. A time seen live is exact; one read while
 * catching up is bounded above by when it was read and below by the last earlier revision seen live
 * (revisions are ordered in time), and the answer is certain only where the bounds decide it.
 */
export function heldAt(hold: Hold, atMs: number): 'held' | 'maybe' | undefined {
  const grantedNoEarlierThan = hold.grantedExact ? hold.grantedAtMs : hold.grantedAfterMs;
  const endedNoEarlierThan = hold.endedExact ? hold.endedAtMs : hold.endedAfterMs;
  if (grantedNoEarlierThan !== undefined && grantedNoEarlierThan > atMs) return undefined; // granted after it
  if (hold.endedAtMs !== undefined && hold.endedAtMs <= atMs) return undefined; // ended by then at the latest
  const grantedBefore = hold.grantedAtMs !== undefined && hold.grantedAtMs <= atMs;
  const endedAfter = hold.endKind === undefined || (endedNoEarlierThan !== undefined && endedNoEarlierThan > atMs);
  return grantedBefore && endedAfter ? 'held' : 'maybe';
}

/** Every hold of `key` the audit knows, oldest first: each grant with the end of the same hold (same grant revision). */
export async function holdsOf(connection: DuckDBConnection, key: string): Promise<Hold[]> {
  const reader = await connection.runAndReadAll(
    `WITH g AS (SELECT * FROM audit_events WHERE key = $1 AND kind = 'grant'),
          e AS (SELECT * FROM audit_events WHERE key = $1 AND kind IN (${END_KINDS_SQL}))
     SELECT coalesce(g.cluster_id, e.cluster_id) AS cluster_id, coalesce(g.identity, e.identity) AS identity,
            coalesce(g.class_name, e.class_name) AS class_name, coalesce(g.session_id, e.session_id) AS session_id,
            coalesce(g.token, e.token) AS token, coalesce(g.grant_revision, e.grant_revision) AS grant_revision,
            epoch_ms(g.observed_at) AS granted_ms, coalesce(g.time_exact, false) AS granted_exact,
            (SELECT epoch_ms(max(x.observed_at)) FROM audit_events x WHERE x.cluster_id = g.cluster_id AND x.revision < g.revision AND x.time_exact) AS granted_after_ms,
            e.kind AS end_kind, e.revision AS end_revision, epoch_ms(e.observed_at) AS ended_ms, coalesce(e.time_exact, false) AS ended_exact,
            (SELECT epoch_ms(max(x.observed_at)) FROM audit_events x WHERE x.cluster_id = e.cluster_id AND x.revision < e.revision AND x.time_exact) AS ended_after_ms,
            e.requester, e.approver, e.reason
     FROM g FULL OUTER JOIN e ON g.cluster_id = e.cluster_id AND g.grant_revision = e.grant_revision
     ORDER BY cluster_id, coalesce(g.revision, e.grant_revision, e.revision)`,
    [key],
  );
  return reader.getRowObjects().map((row) => ({
    clusterId: row['cluster_id'] as bigint,
    key,
    identity: text(row['identity']),
    className: text(row['class_name']),
    sessionId: big(row['session_id']),
    token: big(row['token']),
    grantRevision: big(row['grant_revision']),
    grantedAtMs: ms(row['granted_ms']),
    grantedExact: row['granted_exact'] === true,
    grantedAfterMs: ms(row['granted_after_ms']),
    endKind: text(row['end_kind']),
    endRevision: big(row['end_revision']),
    endedAtMs: ms(row['ended_ms']),
    endedExact: row['ended_exact'] === true,
    endedAfterMs: ms(row['ended_after_ms']),
    requester: text(row['requester']),
    approver: text(row['approver']),
    reason: text(row['reason']),
  }));
}

export interface ClassSummary {
  readonly namespace: string;
  readonly className: string;
  readonly grants: number;
  /** Grants within CONTENTION_WINDOW_MS of the key's previous hold ending, both seen live. */
  readonly contendedGrants: number;
  readonly releases: number;
  /** Holds that ended with their session's lease: expiries without release (ADR-22's client-health signal). */
  readonly expiries: number;
  readonly forceReleases: number;
  readonly epochAdvanceEnds: number;
  readonly unexplainedEnds: number;
  readonly holderRewrites: number;
  readonly longestHoldMs: number | undefined;
  readonly longestHoldKey: string | undefined;
}

export interface LongHold {
  readonly key: string;
  readonly namespace: string;
  readonly className: string | undefined;
  readonly identity: string | undefined;
  readonly durationMs: number;
  /** The hold had not ended by the window's end: measured up to it. */
  readonly stillHeld: boolean;
  /** One of its times was read while catching up (an upper bound). */
  readonly approximate: boolean;
  /**
   * What durationMs is (issue 29). The log keeps no wall times, so a time read while catching up is only
   * an upper bound: a grant read late makes the duration a lower bound, an end read late an upper one, and
   * both read late (an audit started after the fact) leave it unknown: their difference is how fast the
   * tailer read, not how long the hold was (it showed 20 s holds as "~1 ms").
   */
  readonly bound: 'exact' | 'at-least' | 'at-most' | 'unknown';
}

function boundOf(grantedExact: boolean, endedExact: boolean): LongHold['bound'] {
  if (grantedExact && endedExact) return 'exact';
  if (endedExact) return 'at-least';
  return grantedExact ? 'at-most' : 'unknown';
}

export interface GapRow {
  readonly clusterId: bigint;
  readonly fromRevision: bigint;
  readonly toRevision: bigint;
  readonly detectedAtMs: number;
}

export interface AuditReport {
  readonly sinceMs: number;
  readonly untilMs: number;
  /** What `contendedGrants` counts: grants this soon after the key's previous hold ended. */
  readonly contentionWindowMs: number;
  readonly classes: readonly ClassSummary[];
  readonly longestHolds: readonly LongHold[];
  /** Gaps recorded in the window: the report is incomplete over them. */
  readonly gaps: readonly GapRow[];
  readonly events: number;
}

export async function reportOf(connection: DuckDBConnection, sinceMs: number, untilMs: number): Promise<AuditReport> {
  const window = [micros(sinceMs).toString(10), micros(untilMs).toString(10)];
  const since = 'make_timestamp($1::BIGINT)';
  const until = 'make_timestamp($2::BIGINT)';
  const inWindow = `observed_at >= ${since} AND observed_at < ${until}`;
  const holdsInWindow = holdsInWindowSql(since, until);
  const counted = await connection.runAndReadAll(
    `WITH ordered AS (
       SELECT *, lag(kind) OVER w AS prev_kind, lag(observed_at) OVER w AS prev_at, lag(time_exact) OVER w AS prev_exact
       FROM audit_events WHERE kind = 'grant' OR kind = 'holder-rewrite' OR kind IN (${END_KINDS_SQL}) WINDOW w AS (PARTITION BY cluster_id, key ORDER BY revision)
     )
     SELECT coalesce(namespace, '?') AS namespace, coalesce(class_name, '?') AS class_name,
       count(*) FILTER (kind = 'grant') AS grants,
       count(*) FILTER (kind = 'grant' AND prev_kind IN (${END_KINDS_SQL}) AND time_exact AND prev_exact AND observed_at - prev_at <= INTERVAL ${CONTENTION_WINDOW_MS} MILLISECONDS) AS contended,
       count(*) FILTER (kind = 'release') AS releases, count(*) FILTER (kind = 'expiry') AS expiries,
       count(*) FILTER (kind = 'force-release') AS forced, count(*) FILTER (kind = 'epoch-advance') AS epoch_ends,
       count(*) FILTER (kind = 'unexplained') AS unexplained, count(*) FILTER (kind = 'holder-rewrite') AS rewrites
     FROM ordered WHERE ${inWindow}
     GROUP BY ALL ORDER BY namespace, class_name`,
    window,
  );
  const longestPerClass = await connection.runAndReadAll(
    `${holdsInWindow}
     SELECT coalesce(namespace, '?') AS namespace, coalesce(class_name, '?') AS class_name, max(duration_ms) FILTER (NOT unmeasured) AS longest_ms,
       arg_max(key, duration_ms) FILTER (NOT unmeasured) AS longest_key
     FROM measured GROUP BY ALL`,
    window,
  );
  const longest = await connection.runAndReadAll(`${holdsInWindow} SELECT * FROM measured ORDER BY unmeasured, duration_ms DESC, key LIMIT ${LONGEST_HOLDS_SHOWN}`, window);
  const gaps = await connection.runAndReadAll(`SELECT cluster_id, from_revision, to_revision, epoch_ms(detected_at) AS detected_ms FROM audit_gaps WHERE detected_at >= ${since} AND detected_at < ${until} ORDER BY cluster_id, from_revision`, window);
  const events = await connection.runAndReadAll(`SELECT count(*) AS n FROM audit_events WHERE ${inWindow}`, window);
  const classes = classSummaries(counted.getRowObjects(), longestPerClass.getRowObjects());
  return {
    sinceMs,
    untilMs,
    contentionWindowMs: CONTENTION_WINDOW_MS,
    classes: [...classes.values()].sort((a, b) => (a.namespace === b.namespace ? compare(a.className, b.className) : compare(a.namespace, b.namespace))),
    longestHolds: longest.getRowObjects().map(longHoldOf),
    gaps: gaps.getRowObjects().map((row) => ({ clusterId: row['cluster_id'] as bigint, fromRevision: row['from_revision'] as bigint, toRevision: row['to_revision'] as bigint, detectedAtMs: ms(row['detected_ms']) ?? 0 })),
    events: count(events.getRowObjects()[0]?.['n']),
  };
}

/** Every hold that overlapped the window, measured within it (up to its end, or the window's end). */
function holdsInWindowSql(since: string, until: string): string {
  return `
    WITH holds AS (
      SELECT g.key, g.namespace, g.class_name, g.identity, g.observed_at AS granted_at, g.time_exact AS granted_exact,
             e.observed_at AS ended_at, e.time_exact AS ended_exact
      FROM audit_events g LEFT JOIN audit_events e
        ON e.cluster_id = g.cluster_id AND e.key = g.key AND e.grant_revision = g.revision AND e.kind IN (${END_KINDS_SQL})
      WHERE g.kind = 'grant' AND g.observed_at < ${until} AND (e.observed_at IS NULL OR e.observed_at >= ${since})
    ), measured AS (
      SELECT *, ended_at IS NULL OR ended_at >= ${until} AS still_held, NOT (granted_exact AND coalesce(ended_exact, true)) AS approximate,
             NOT granted_exact AND NOT coalesce(ended_exact, true) AS unmeasured,
             epoch_ms(least(coalesce(ended_at, ${until}), ${until})) - epoch_ms(greatest(granted_at, ${since})) AS duration_ms
      FROM holds
    )`;
}

type Row = Record<string, unknown>;

/** One summary per class: its counts in the window, and its longest hold (a class may have only the latter). */
function classSummaries(counted: readonly Row[], longestPerClass: readonly Row[]): Map<string, ClassSummary> {
  const longestOf = new Map(longestPerClass.map((row) => [`${String(row['namespace'])}/${String(row['class_name'])}`, row]));
  const classes = new Map<string, ClassSummary>();
  for (const row of counted) {
    const id = `${String(row['namespace'])}/${String(row['class_name'])}`;
    const long = longestOf.get(id);
    classes.set(id, {
      namespace: String(row['namespace']),
      className: String(row['class_name']),
      grants: count(row['grants']),
      contendedGrants: count(row['contended']),
      releases: count(row['releases']),
      expiries: count(row['expiries']),
      forceReleases: count(row['forced']),
      epochAdvanceEnds: count(row['epoch_ends']),
      unexplainedEnds: count(row['unexplained']),
      holderRewrites: count(row['rewrites']),
      longestHoldMs: ms(long?.['longest_ms']),
      longestHoldKey: text(long?.['longest_key']),
    });
  }
  for (const [id, row] of longestOf) {
    // A class whose only activity in the window is a hold granted before it.
    if (!classes.has(id)) classes.set(id, { ...emptySummary(String(row['namespace']), String(row['class_name'])), longestHoldMs: ms(row['longest_ms']), longestHoldKey: text(row['longest_key']) });
  }
  return classes;
}

function longHoldOf(row: Row): LongHold {
  return {
    key: String(row['key']),
    namespace: String(row['namespace']),
    className: text(row['class_name']),
    identity: text(row['identity']),
    durationMs: ms(row['duration_ms']) ?? 0,
    stillHeld: row['still_held'] === true,
    approximate: row['approximate'] === true,
    bound: boundOf(row['granted_exact'] === true, row['ended_exact'] !== false),
  };
}

function emptySummary(namespace: string, className: string): ClassSummary {
  return { namespace, className, grants: 0, contendedGrants: 0, releases: 0, expiries: 0, forceReleases: 0, epochAdvanceEnds: 0, unexplainedEnds: 0, holderRewrites: 0, longestHoldMs: undefined, longestHoldKey: undefined };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function big(value: unknown): bigint | undefined {
  return typeof value === 'bigint' ? value : undefined;
}

function ms(value: unknown): number | undefined {
  return typeof value === 'bigint' || typeof value === 'number' ? Number(value) : undefined;
}

function count(value: unknown): number {
  return ms(value) ?? 0;
}
