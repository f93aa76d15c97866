// `lockstep audit unprotected` (ADR-04, issue 33): the reconciliation list of a quorum outage. Every grant
// an arbiter made from its memory for a class that declared `onQuorumLoss: open`, shipped from its spool
// when the quorum came back: holder, key, class, arbiter, start and end; then the overlaps between
// arbiters, the price the class declared. Bad input exits 2 through the CLI's boundary (BadInput).
import type { Command } from 'commander';
import { BadInput } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { utc } from '../audit/format.js';
import { formatDuration } from '../../core/numbers.js';
import { parseWindow } from '../audit/times.js';
import { type UnprotectedGrant, type UnprotectedOverlap, unprotectedGrants, unprotectedOverlaps } from '../audit/unprotected-list.js';
import { oneLine } from '../terminal-text.js';
import { textTable } from '../text-table.js';

/** Grants listed at most (the overlaps are found among them): a list longer than this is read with --since/--until. */
export const MAX_UNPROTECTED_LIMIT = 1_000_000;
const DEFAULT_LIMIT = 10_000;

interface UnprotectedOptions {
  db: string;
  since: string;
  until?: string;
  limit: string;
  json?: boolean;
}

export function registerAuditUnprotected(audit: Command, io: CliIo, setExitCode: (code: number) => void): void {
  audit
    .command('unprotected')
    .description('The reconciliation list of a quorum outage (ADR-04): every grant made from an arbiter\'s memory with token 0 for a class that fails open, with holder, key, class, arbiter, start and end, and the overlaps between arbiters. Exit 0; 2 bad input.')
    .requiredOption('--db <file>', 'the audit database the arbiters shipped their spools to')
    .option('--since <when>', 'the window\'s start: a duration back (24h, 7d) or a time; grants still held then are listed too', '24h')
    .option('--until <time>', 'the window\'s end (default now)')
    .option('--limit <n>', `list at most this many grants, oldest first (1..${MAX_UNPROTECTED_LIMIT})`, String(DEFAULT_LIMIT))
    .option('--json', 'print one JSON object on the last line')
    .action(async (options: UnprotectedOptions) => setExitCode(await runUnprotected(options, io)));
}

async function runUnprotected(options: UnprotectedOptions, io: CliIo): Promise<number> {
  const limit = parseLimit(options.limit);
  let span: { sinceMs: number; untilMs: number };
  try {
    span = parseWindow(options.since, options.until, Date.now());
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
  const { AuditDbError, withAuditDb, unprotectedGrantsIn } = await import('../audit/duckdb-api.js');
  const records = await withAuditDb(options.db, 'read', (connection) => unprotectedGrantsIn(connection, span.sinceMs, span.untilMs, limit + 1)).catch((error: unknown) => {
    throw error instanceof AuditDbError ? new BadInput(error.message) : error;
  });
  const all = unprotectedGrants(records);
  const grants = all.slice(0, limit);
  const overlaps = unprotectedOverlaps(grants);
  const more = all.length > limit;
  if (options.json === true) {
    io.out(JSON.stringify({ sinceMs: span.sinceMs, untilMs: span.untilMs, grants, overlaps: overlaps.map(overlapJson), truncated: more }));
    return ExitCode.ok;
  }
  io.out(render(grants, overlaps, span, more));
  return ExitCode.ok;
}

function parseLimit(text: string): number {
  const limit = /^[1-9][0-9]{0,6}$/.test(text) ? Number(text) : Number.NaN;
  if (!(limit <= MAX_UNPROTECTED_LIMIT)) throw new BadInput(`--limit ${JSON.stringify(text)} must be a whole number from 1 to ${MAX_UNPROTECTED_LIMIT}; narrow the window with --since and --until for more`);
  return limit;
}

function render(grants: readonly UnprotectedGrant[], overlaps: readonly UnprotectedOverlap[], span: { sinceMs: number; untilMs: number }, more: boolean): string {
  const window = `from ${utc(span.sinceMs)} to ${utc(span.untilMs)}`;
  if (grants.length === 0) return `no unprotected grant ${window}: every grant in it came from etcd with a token`;
  const lines = [`${grants.length} unprotected grant${grants.length === 1 ? '' : 's'} ${window} (token 0, granted from an arbiter's memory without a quorum; ADR-04)${more ? `; more follow: narrow the window or raise --limit` : ''}`];
  lines.push(...table(['holder', 'key', 'class', 'arbiter', 'start', 'end', 'how', 'held'], grants.map(grantRow)));
  lines.push('');
  if (overlaps.length === 0) {
    lines.push('no overlap: no two arbiters granted one key at the same time');
  } else {
    lines.push(`${overlaps.length} overlap${overlaps.length === 1 ? '' : 's'}: two arbiters granted one key from memory at the same time (what an open class accepts)`);
    lines.push(...table(['key', 'first', 'second', 'from', 'to', 'for'], overlaps.map(overlapRow)));
  }
  return lines.join('\n');
}

function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return textTable([header, header.map((h) => '-'.repeat(h.length)), ...rows]);
}

const holder = (grant: UnprotectedGrant): string => `${oneLine(grant.identity)} (${oneLine(grant.instance)})`;

function grantRow(grant: UnprotectedGrant): string[] {
  const ended = grant.endMs === undefined ? 'open' : utc(grant.endMs);
  return [holder(grant), oneLine(grant.key), `${oneLine(grant.namespace)}/${oneLine(grant.className)}`, oneLine(grant.arbiterId), utc(grant.startMs), ended, grant.endReason, grant.endMs === undefined ? '-' : formatDuration(grant.endMs - grant.startMs)];
}

function overlapRow(overlap: UnprotectedOverlap): string[] {
  const side = (grant: UnprotectedGrant) => `${oneLine(grant.arbiterId)}: ${holder(grant)}`;
  return [oneLine(overlap.key), side(overlap.first), side(overlap.second), utc(overlap.fromMs), overlap.toMs === undefined ? 'open' : utc(overlap.toMs), overlap.toMs === undefined ? '-' : formatDuration(overlap.toMs - overlap.fromMs)];
}

function overlapJson(overlap: UnprotectedOverlap): { key: string; firstGrantId: string; secondGrantId: string; fromMs: number; toMs: number | undefined } {
  return { key: overlap.key, firstGrantId: overlap.first.grantId, secondGrantId: overlap.second.grantId, fromMs: overlap.fromMs, toMs: overlap.toMs };
}
