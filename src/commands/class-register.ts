// `lockstep class register DIR...`: ADR-01's risk register. Every advisory class (unfenced, on a waiver)
// with its purpose, risk owner, waiver end and days left, soonest expiry first (core/classes/risk-register.ts);
// with --audit DB, what each held in a window (grants, longest hold, overlaps seen) from the audit store.
// Files are read as `class check` reads them (src/policy-files.ts). Exit 0 every waiver current; 1 a waiver
// has passed, or a document is invalid (the register would be incomplete: `class check` names why); 2 bad
// input; WAIVER_EXPIRING_EXIT when a waiver ends within 30 days and none has passed, so CI can let it
// through as a warning while the owner renews (`|| [ $? -eq 3 ]`). The command only reads.
import type { Command } from 'commander';
import { checkDocuments, isCivilDate, type Problem, type RegisterEntry, type RiskRegister, riskRegister, type SourcedDocument, WAIVER_WARNING_DAYS } from '../../core/classes/index.js';
import { BadInput } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { expandPolicyPaths, formatProblem, readDocumentFiles, refuseUnreadable, todayUtc } from '../policy-files.js';
import { oneLine } from '../terminal-text.js';
import { textTable } from '../text-table.js';
import { formatDuration } from '../../core/numbers.js';
import { toJson } from '../../core/json-text.js';
import { parseWindow } from '../audit/times.js';

/** A waiver ends within WAIVER_WARNING_DAYS, and none has passed. */
export const WAIVER_EXPIRING_EXIT = 3;

type RegisterOptions = { now?: string; json?: boolean; format: string; audit?: string; since: string; until?: string };

/** What the audit saw of one advisory class in the window. */
export interface HeldInWindow {
  readonly grants: number;
  readonly longestHoldMs: number | null;
  readonly overlaps: number;
}

type Row = RegisterEntry & { readonly held?: HeldInWindow };

export function registerClassRegisterCommand(classCommand: Command, io: CliIo, setExitCode: (code: number) => void): void {
  classCommand
    .command('register')
    .description(`ADR-01's risk register: every advisory class with purpose, risk owner, waiver end and days left, soonest expiry first. Exit 0: every waiver current; 1: a waiver has passed, or a document is invalid; 2: bad input; ${WAIVER_EXPIRING_EXIT}: a waiver ends within ${WAIVER_WARNING_DAYS} days (a warning).`)
    .argument('<paths...>', 'directories of class files (their *.yaml and *.yml, not subdirectories) or YAML files, read as class check reads them')
    .option('--now <date>', "today's date, YYYY-MM-DD, for days left (default: today in UTC)")
    .option('--audit <db>', 'add what each advisory class held in the window: grants, longest hold, overlaps seen (the store of lockstep audit tail)')
    .option('--since <when>', "the audit window's start: a duration back (30d, 24h) or a time", '30d')
    .option('--until <time>', "the audit window's end (default now)")
    .option('--format <table|md|json>', 'output: a table, a Markdown table for a pull-request comment, or JSON', 'table')
    .option('--json', 'the same as --format json: one JSON object {today, warningDays, entries, expired, expiring, problems, audit?}')
    .action(async (paths: string[], options: RegisterOptions) => {
      setExitCode(await runClassRegister(paths, options, io));
    });
}

export async function runClassRegister(paths: readonly string[], options: RegisterOptions, io: CliIo): Promise<number> {
  const today = options.now ?? todayUtc();
  if (!isCivilDate(today)) throw new BadInput(`--now ${JSON.stringify(today)} is not a calendar date; give it as YYYY-MM-DD, e.g. --now 2026-11-30`);
  if (options.json === true && options.format !== 'table' && options.format !== 'json') throw new BadInput(`--json and --format ${options.format} exclude each other; choose one`);
  const format = options.json === true ? 'json' : options.format;
  if (!['table', 'md', 'json'].includes(format)) throw new BadInput(`--format ${JSON.stringify(options.format)} must be table, md or json`);
  const window = options.audit === undefined ? undefined : auditWindow(options);
  const { documents, unreadable } = await readDocumentFiles(await expandPolicyPaths(paths));
  // Nothing is listed from a partial read: a class in the unreadable file would be missing from the register.
  refuseUnreadable(unreadable, { consequence: 'the register lists nothing from a partial read' });
  // A passed waiver is listed (and fails the command) rather than dropped as class check drops it.
  const checked = checkDocuments(documents, { today, skipWaiverExpiry: true });
  const register = riskRegister(checked.classes, today);
  const problems = checked.problems.filter((p) => mayHideAdvisoryClass(p, documents));
  const held = window === undefined || options.audit === undefined ? undefined : await heldInWindow(options.audit, window);
  const rows: Row[] = register.entries.map((e) => (held === undefined ? e : { ...e, held: held.get(`${e.namespace}/${e.name}`) ?? { grants: 0, longestHoldMs: null, overlaps: 0 } }));
  for (const problem of problems) io.err(formatProblem(problem));
  if (format === 'json') io.out(toJson({ ...register, entries: rows, problems, ...(window === undefined ? {} : { audit: { db: options.audit, ...window } }) }));
  else io.out((format === 'md' ? markdown : table)(register, rows, problems.length, window).join('\n'));
  if (register.expired > 0 || problems.length > 0) return ExitCode.failed;
  return register.expiring > 0 ? WAIVER_EXPIRING_EXIT : ExitCode.ok;
}

/**
 * A problem matters to the register when its document may be an advisory class the register would then
 * miss: a LockClass not declared fenced, or a document it cannot tell. A fenced class's stale pause test or
 * a grant's bad prefix is class check's business, not the register's.
 */
function mayHideAdvisoryClass(problem: Problem, documents: readonly SourcedDocument[]): boolean {
  const document = documents.find((d) => {
    const value = d.value as { metadata?: { name?: unknown; namespace?: unknown } } | null;
    return d.source === problem.source && value?.metadata?.name === problem.name && value.metadata.namespace === problem.namespace;
  });
  const value = document?.value as { kind?: unknown; spec?: { enforcement?: unknown } } | undefined;
  if (value === undefined) return true;
  return value.kind === 'LockClass' && value.spec?.enforcement !== 'fenced';
}

function auditWindow(options: RegisterOptions): { sinceMs: number; untilMs: number } {
  try {
    return parseWindow(options.since, options.until, Date.now());
  } catch (error) {
    throw new BadInput((error as Error).message);
  }
}

/** Grants, longest hold and overlaps per `namespace/class` in the window (the audit report's figures and class-overlaps.ts). */
async function heldInWindow(db: string, window: { sinceMs: number; untilMs: number }): Promise<Map<string, HeldInWindow>> {
  const { AuditDbError, overlapsOf, reportOf, withAuditDb } = await import('../audit/duckdb-api.js');
  try {
    return await withAuditDb(db, 'read', async (connection) => {
      const report = await reportOf(connection, window.sinceMs, window.untilMs);
      const overlaps = new Map((await overlapsOf(connection, window.sinceMs, window.untilMs)).map((o) => [`${o.namespace}/${o.className}`, o.overlaps]));
      return new Map(report.classes.map((c) => [`${c.namespace}/${c.className}`, { grants: c.grants, longestHoldMs: c.longestHoldMs ?? null, overlaps: overlaps.get(`${c.namespace}/${c.className}`) ?? 0 }]));
    });
  } catch (error) {
    if (error instanceof AuditDbError) throw new BadInput(`--audit ${error.message}`);
    throw error;
  }
}

const STATUS_TEXT: Readonly<Record<RegisterEntry['status'], string>> = { current: 'current', expiring: 'EXPIRING', expired: 'EXPIRED' };

function daysLeft(e: RegisterEntry): string {
  return e.daysLeft < 0 ? `${-e.daysLeft} ago` : String(e.daysLeft);
}

function cells(r: Row, withAudit: boolean): string[] {
  const base = [oneLine(`${r.namespace}/${r.name}`), r.purpose, oneLine(r.riskOwner), r.waiverExpires, daysLeft(r), STATUS_TEXT[r.status]];
  if (!withAudit) return base;
  return [...base, String(r.held?.grants ?? 0), r.held?.longestHoldMs == null ? '-' : formatDuration(r.held.longestHoldMs), String(r.held?.overlaps ?? 0)];
}

function header(withAudit: boolean): string[] {
  const base = ['class', 'purpose', 'risk owner', 'waiver ends', 'days left', 'status'];
  return withAudit ? [...base, 'grants', 'longest hold', 'overlaps'] : base;
}

function summary(register: RiskRegister, problems: number, window: { sinceMs: number; untilMs: number } | undefined): string {
  const parts = [`${register.entries.length} advisory class${register.entries.length === 1 ? '' : 'es'}`, `${register.expired} waiver(s) passed`, `${register.expiring} end within ${register.warningDays} days`];
  if (problems > 0) parts.push(`${problems} problem(s) in the documents (listed on stderr; the register is incomplete)`);
  const span = window === undefined ? '' : `; audit ${new Date(window.sinceMs).toISOString()} .. ${new Date(window.untilMs).toISOString()}`;
  return `risk register: ${parts.join(', ')} (today is ${register.today}${span})`;
}

function table(register: RiskRegister, rows: readonly Row[], problems: number, window: { sinceMs: number; untilMs: number } | undefined): string[] {
  const withAudit = window !== undefined;
  const numeric = new Set(withAudit ? [4, 6, 8] : [4]);
  return [...textTable([header(withAudit), ...rows.map((r) => cells(r, withAudit))], { rightAligned: (i) => numeric.has(i) }), summary(register, problems, window)];
}

/** A pull-request comment: a heading, one Markdown table, the summary; `|` in a cell is escaped. */
function markdown(register: RiskRegister, rows: readonly Row[], problems: number, window: { sinceMs: number; untilMs: number } | undefined): string[] {
  const withAudit = window !== undefined;
  const line = (values: readonly string[]): string => `| ${values.map((v) => v.replace(/\|/g, '\\|')).join(' | ')} |`;
  const head = header(withAudit);
  return ['### Risk register (ADR-01)', '', line(head), line(head.map(() => '---')), ...rows.map((r) => line(cells(r, withAudit))), '', `**${summary(register, problems, window)}**`];
}
