// `lockstep serve --audit-db FILE [--spool FILE] [--arbiter-id NAME]`: failing open (ADR-04, issue 33).
// With an audit database to ship to, an arbiter that loses its etcd majority grants the classes that
// declared `onQuorumLoss: open` from its memory with token 0, spooling each grant and its end to a local
// file first (src/spool/file-spool.ts); when the quorum is back it ships the spool into the audit
// database's unprotected events and truncates it. Without --audit-db every class fails closed: a grant from
// memory that no spool recorded would be an overlap nobody could reconcile.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import type { UnprotectedOptions } from '../../core/arbiter/fail-open.js';
import { BadInput } from '../cli-errors.js';
import type { CliIo } from '../cli-io.js';
import { FileSpool } from '../spool/file-spool.js';
import { oneLine } from '../terminal-text.js';

export interface UnprotectedFlags {
  auditDb?: string;
  spool?: string;
  arbiterId?: string;
}

/** Arbiter ids go into spool record ids (`<arbiterId>/<incarnation>/<seq>`): no slash, bounded. */
const ARBITER_ID = /^[A-Za-z0-9_.:-]{1,63}$/;

export function addUnprotectedOptions(command: Command): Command {
  return command
    .option('--audit-db <file>', 'fail open (ADR-04): the audit database (DuckDB) this arbiter ships its spool of unprotected grants to when the quorum is back; without it every class fails closed')
    .option('--spool <file>', 'with --audit-db: the local append-only file of grants made from memory during a quorum outage (default lockstep-spool-PORT.log beside the audit database)')
    .option('--arbiter-id <name>', 'with --audit-db: this arbiter\'s name in the reconciliation list (default HOSTNAME:PORT)');
}

/** The fail-open wiring `flags` ask for, or undefined (every class fails closed); bad flags throw BadInput. */
export async function openUnprotected(flags: UnprotectedFlags, listen: { port: number }, topology: boolean, io: CliIo): Promise<UnprotectedOptions | undefined> {
  if (flags.auditDb === undefined) {
    if (flags.spool !== undefined || flags.arbiterId !== undefined) throw new BadInput('--spool and --arbiter-id go with --audit-db: a spool nobody ships is an overlap nobody can reconcile (ADR-04); give --audit-db FILE too');
    return undefined;
  }
  if (topology) throw new BadInput('--audit-db (failing open, ADR-04) is not wired for --topology yet; serve one cluster with --endpoints, or leave --audit-db out and every class fails closed');
  const arbiterId = flags.arbiterId ?? `${hostname()}:${listen.port}`;
  if (!ARBITER_ID.test(arbiterId)) throw new BadInput(`--arbiter-id ${JSON.stringify(arbiterId)} must be 1 to 63 letters, digits, '.', '_', ':' or '-' (it starts every spool record's id)`);
  const { AuditDbError, DuckDbUnprotectedStore, prepareAuditDb } = await import('../audit/duckdb-api.js');
  try {
    await prepareAuditDb(flags.auditDb, 'write');
  } catch (error) {
    throw error instanceof AuditDbError ? new BadInput(`--audit-db: ${error.message}`) : error;
  }
  const spoolPath = flags.spool ?? join(dirname(flags.auditDb), `lockstep-spool-${listen.port}.log`);
  const spool = new FileSpool(spoolPath, {
    onDamage: ({ tornTailBytes, damagedLines }) => io.err(oneLine(`lockstep serve: spool-damage: ${spoolPath} had a torn tail of ${tornTailBytes} bytes and ${damagedLines} damaged lines; they are not shipped (damaged lines are kept in ${spoolPath}.damaged)`)),
  });
  await spool.read().catch((error: unknown) => {
    throw new BadInput(`--spool ${spoolPath} cannot be read (${(error as Error).message.slice(0, 200)}); give a file this arbiter may create and write`);
  });
  io.err(oneLine(`lockstep serve: classes that declare onQuorumLoss: open fail open without an etcd majority (ADR-04): arbiter ${arbiterId} spools to ${spoolPath} and ships to ${flags.auditDb}`));
  return { spool, store: new DuckDbUnprotectedStore(flags.auditDb), arbiterId, incarnation: `${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`, wallClock: { nowMs: () => Date.now() } };
}
