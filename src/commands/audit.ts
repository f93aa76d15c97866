// `lockstep audit tail|holds|report|export` (ADR-21, docs/audit.md): the tailer that copies the lock log's
// history into an embedded store, and the questions an investigator asks of it. Bad input (flags, an
// unreadable or foreign database file) exits 2 having changed nothing.
import type { Command } from 'commander';
import { type EtcdTlsFlags, addEtcdTlsOptions, loadEtcdTls } from './etcd-tls-options.js';
import { CancelSource } from '../../core/cancel.js';
import { revision } from '../../core/units.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { parseDuration } from '../duration.js';
import type { DuckDBConnection } from '@duckdb/node-api';
import { formatDuration } from '../../core/numbers.js';
import { toJson } from '../../core/json-text.js';
import { utc } from '../audit/format.js';
import { oneLine } from '../terminal-text.js';
import { underlinedTable } from '../text-table.js';
import type { Hold } from '../audit/queries.js';
import type { TailReportLine } from '../audit/tail-service.js';
import { parseMoment, parseWindow } from '../audit/times.js';
import { renderReport } from '../audit/report-text.js';
import { registerAuditUnprotected } from './audit-unprotected.js';

/** DuckDB's native module loads only when an audit command runs (duckdb-api.ts). */
const duck = () => import('../audit/duckdb-api.js');

/** `lockstep audit tail` stopped because the log went backwards under the same cluster ID (a restore, ADR-03). */
export const AUDIT_WENT_BACKWARDS_EXIT = 6;

interface TailOptions extends EtcdTlsFlags {
  endpoints: string;
  db: string;
  fromRevision?: string;
  checkpointInterval: string;
  electionTtl: string;
  json?: boolean;
}
interface HoldsOptions {
  db: string;
  key: string;
  at?: string;
  json?: boolean;
}
interface ReportOptions {
  db: string;
  since: string;
  until?: string;
  json?: boolean;
}
interface ExportOptions {
  db: string;
  since: string;
  until?: string;
  parquet: string;
  json?: boolean;
}

export function registerAuditCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const audit = program.command('audit').description('The audit of grants, releases, expiries and force-releases, tailed from etcd\'s own revisions (ADR-21; docs/audit.md).');
  const tail = audit.command('tail');
  addEtcdTlsOptions(tail);
  tail
    .description(`Copy the lock key space's history into the audit database, from its last checkpoint, until SIGINT or SIGTERM; one tailer per cluster is elected. Exit 0 stopped; 2 bad input; ${AUDIT_WENT_BACKWARDS_EXIT} the log went backwards (restored under the same cluster ID).`)
    .requiredOption('--endpoints <list>', 'etcd client endpoints, host:port[,host:port...] (https://host:port for a TLS-only etcd)')
    .requiredOption('--db <file>', 'the audit database (DuckDB); created if it does not exist')
    .option('--from-revision <R>', 'where to start when the database has no checkpoint for this cluster (default 1: all the history etcd still has)')
    .option('--checkpoint-interval <duration>', 'how often to write events and the checkpoint', '2s')
    .option('--election-ttl <duration>', 'the lease of the tailer election: how long a standby waits after the elected tailer dies', '10s')
    .option('--json', 'one JSON object a line on stdout for each progress report')
    .action(async (options: TailOptions) => setExitCode(await runTail(options, io)));
  audit
    .command('holds')
    .description('Who held a key, when, with which token. Exit 0; 2 bad input.')
    .requiredOption('--db <file>', 'the audit database')
    .requiredOption('--key <key>', 'the lock key, namespace/path')
    .option('--at <time>', 'only the holds of that moment: now, or ISO 8601 with a zone (2026-06-01T03:12:00Z)')
    .option('--json', 'print one JSON object on the last line')
    .action(async (options: HoldsOptions) => setExitCode(await runHolds(options, io)));
  audit
    .command('report')
    .description('Per namespace and class: grants, contention, releases, expiries without release, force-releases, longest holds; and the gaps of the window. Exit 0; 2 bad input.')
    .requiredOption('--db <file>', 'the audit database')
    .option('--since <when>', 'the window\'s start: a duration back (24h, 7d) or a time', '24h')
    .option('--until <time>', 'the window\'s end (default now)')
    .option('--json', 'print one JSON object on the last line')
    .action(async (options: ReportOptions) => setExitCode(await runReport(options, io)));
  audit
    .command('export')
    .description('Write a window of the audit as Parquet files (events, force-releases, gaps) into a directory; never overwrites. Exit 0; 2 bad input.')
    .requiredOption('--db <file>', 'the audit database')
    .requiredOption('--since <when>', 'the window\'s start: a duration back (24h, 7d) or a time')
    .option('--until <time>', 'the window\'s end (default now)')
    .requiredOption('--parquet <dir>', 'the directory to write into (created if missing)')
    .option('--json', 'print one JSON object on the last line')
    .action(async (options: ExportOptions) => setExitCode(await runExport(options, io)));
  registerAuditUnprotected(audit, io, setExitCode);
}

/** Runs a read of the database, turning a bad file into exit 2. */
async function reading<T>(io: CliIo, command: string, path: string, read: (connection: DuckDBConnection) => Promise<T>): Promise<T | number> {
  const { AuditDbError, withAuditDb } = await duck();
  try {
    return await withAuditDb(path, 'read', read);
  } catch (error) {
    if (error instanceof AuditDbError) throw new BadInput(error.message);
    throw error;
  }
}

async function runTail(options: TailOptions, io: CliIo): Promise<number> {
  const endpoints = options.endpoints.split(',').map((e) => e.trim()).filter((e) => e.length > 0);
  if (endpoints.length === 0) throw new BadInput('--endpoints is empty; give host:port of at least one etcd member');
  let checkpointIntervalMs: number;
  try {
    checkpointIntervalMs = parseDuration(options.checkpointInterval, '--checkpoint-interval');
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
  if (checkpointIntervalMs < 100 || checkpointIntervalMs > 60_000) throw new BadInput(`--checkpoint-interval ${options.checkpointInterval} must be between 100ms and 60s`);
  let electionTtlMs: number;
  try {
    electionTtlMs = parseDuration(options.electionTtl, '--election-ttl');
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
  if (!Number.isInteger(electionTtlMs / 1_000) || electionTtlMs < 5_000 || electionTtlMs > 300_000) {
    throw new BadInput(`--election-ttl ${options.electionTtl} must be whole seconds from 5s to 300s (an etcd lease TTL, ADR-11's range)`);
  }
  const etcdTls = await loadEtcdTls(options);
  const from = options.fromRevision;
  if (from !== undefined && !/^[1-9][0-9]{0,17}$/.test(from)) throw new BadInput(`--from-revision ${JSON.stringify(from)} must be a revision, a whole number from 1`);
  const { AuditDbError, prepareAuditDb, runTailService } = await duck();
  try {
    await prepareAuditDb(options.db, 'write');
  } catch (error) {
    if (error instanceof AuditDbError) throw new BadInput(error.message);
    throw error;
  }
  const signal = new CancelSource();
  const stop = () => signal.cancel();
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    const stopped = await runTailService({
      endpoints,
      ...(etcdTls === undefined ? {} : { etcdTls }),
      db: options.db,
      ...(from === undefined ? {} : { fromRevision: revision(BigInt(from)) }),
      checkpointIntervalMs,
      electionTtlSeconds: electionTtlMs / 1_000,
      signal,
      report: (line) => (options.json === true ? io.out(toJson(line)) : io.err(describeTailLine(line))),
    });
    if (stopped.reason === 'went-backwards') {
      throw new Refusal(`cluster ${stopped.clusterId.toString(16)} answers at revision ${stopped.revision}, below the audit's checkpoint ${stopped.checkpoint}: it was restored or replaced under the same cluster ID (ADR-03). Its new revisions would collide with the audited ones: audit it into a new database (--db), and keep this one as the record of the old history`, AUDIT_WENT_BACKWARDS_EXIT);
    }
    return ExitCode.ok;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

function describeTailLine(line: TailReportLine): string {
  switch (line.event) {
    case 'waiting':
      return `lockstep audit tail: standing by; the elected tailer is ${oneLine(line.leader)}`;
    case 'elected':
      return `lockstep audit tail: elected as the cluster's tailer (${oneLine(line.candidate)})`;
    case 'leadership-lost':
      return 'lockstep audit tail: lost the election (a renewal failed); stopped writing, campaigning again';
    case 'retrying':
      return `lockstep audit tail: etcd did not answer (${oneLine(line.message)}); trying again`;
    case 'store-error':
      return `lockstep audit tail: writing to the database failed (${oneLine(line.message)}); the events stay buffered and are written at the next checkpoint`;
    case 'progress':
      return `lockstep audit tail: cluster ${line.clusterId.toString(16)}: checkpoint at revision ${line.checkpointRevision}, log at ${line.headRevision}, ${line.lagRevisions} behind${line.behindMs > 0 ? ` (for ${formatDuration(line.behindMs)})` : ''}; ${line.eventsWritten} events and ${line.gapsRecorded} gaps written`;
  }
}

async function runHolds(options: HoldsOptions, io: CliIo): Promise<number> {
  let atMs: number | undefined;
  try {
    atMs = options.at === undefined ? undefined : parseMoment(options.at, '--at', Date.now());
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
  const { heldAt, holdsOf } = await duck();
  const holds = await reading(io, 'holds', options.db, (connection) => holdsOf(connection, options.key));
  if (typeof holds === 'number') return holds;
  const shown = atMs === undefined ? holds.map((hold) => ({ hold, at: undefined })) : holds.flatMap((hold) => {
    const at = heldAt(hold, atMs);
    return at === undefined ? [] : [{ hold, at }];
  });
  if (options.json === true) {
    io.out(toJson({ key: options.key, ...(atMs === undefined ? {} : { atMs }), holds: shown.map(({ hold, at }) => ({ ...hold, ...(at === undefined ? {} : { heldAt: at }) })) }));
    return ExitCode.ok;
  }
  const when = atMs === undefined ? '' : ` at ${utc(atMs)}`;
  if (shown.length === 0) {
    io.out(`${oneLine(options.key)}: no hold in the audit${when}`);
    return ExitCode.ok;
  }
  io.out(`${oneLine(options.key)}: ${shown.length} hold${shown.length === 1 ? '' : 's'}${when} (times are when the tailer saw them; ≤ marks one read while catching up, an upper bound)`);
  io.out(underlinedTable(['holder', 'class', 'token', 'granted', 'ended', 'how', ...(atMs === undefined ? [] : ['at that time'])], shown.map(({ hold, at }) => holdRow(hold, at))));
  const forced = shown.filter(({ hold }) => hold.endKind === 'force-release');
  for (const { hold } of forced) {
    io.out(`force-release of token ${String(hold.token ?? '?')}: requested by ${oneLine(hold.requester ?? '?')}, approved by ${oneLine(hold.approver ?? '?')}: ${oneLine(hold.reason ?? '?')}`);
  }
  return ExitCode.ok;
}

function holdRow(hold: Hold, at: 'held' | 'maybe' | undefined): string[] {
  const ended = hold.endKind === undefined ? 'still held' : utc(hold.endedAtMs, hold.endedExact);
  return [
    oneLine(hold.identity ?? '?'),
    oneLine(hold.className ?? '?'),
    hold.token === undefined ? '?' : hold.token.toString(10),
    hold.grantedAtMs === undefined ? '? (not in the audit)' : utc(hold.grantedAtMs, hold.grantedExact),
    ended,
    hold.endKind ?? '',
    ...(at === undefined ? [] : [at === 'held' ? 'held' : 'may have held']),
  ];
}

function window(options: { since: string; until?: string }): { sinceMs: number; untilMs: number } {
  try {
    return parseWindow(options.since, options.until, Date.now());
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
}

async function runReport(options: ReportOptions, io: CliIo): Promise<number> {
  const span = window(options);
  const { reportOf } = await duck();
  const report = await reading(io, 'report', options.db, (connection) => reportOf(connection, span.sinceMs, span.untilMs));
  if (typeof report === 'number') return report;
  io.out(options.json === true ? toJson(report) : renderReport(report));
  return ExitCode.ok;
}

async function runExport(options: ExportOptions, io: CliIo): Promise<number> {
  const span = window(options);
  const { exportParquet } = await duck();
  const files = await reading(io, 'export', options.db, (connection) => exportParquet(connection, span.sinceMs, span.untilMs, options.parquet));
  if (typeof files === 'number') return files;
  if (options.json === true) io.out(toJson({ sinceMs: span.sinceMs, untilMs: span.untilMs, files }));
  else for (const file of files) io.out(`${oneLine(file.path)}: ${file.rows} rows`);
  return ExitCode.ok;
}
