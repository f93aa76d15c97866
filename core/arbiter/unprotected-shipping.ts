// ADR-04 recovery: once the quorum is back, the spool of unprotected grants goes to the audit store
// (UnprotectedStore) and is truncated through the last record shipped. Idempotent by construction: every
// record carries an id unique across arbiters and restarts, and the store keeps each id once, so an
// arbiter that crashes after shipping and before truncating ships the same records again and nothing is
// stored twice; records appended while shipping stay in the spool for the next shipment.
import type { Spool, UnprotectedRecord, UnprotectedStore } from '../ports/spool.js';

/**
 * Grants in `records` with no end among them, and not among `stillHeld` (grant ids): holds an earlier
 * incarnation of this arbiter granted and then lost with its memory in a crash. Their holders were told
 * as a fence (their memory session is unknown to the restarted arbiter), so they end at recovery.
 */
export function orphanedGrants(records: readonly UnprotectedRecord[], stillHeld: ReadonlySet<string>): UnprotectedRecord[] {
  const ended = new Set(records.filter((r) => r.kind === 'end').map((r) => r.grantId));
  return records.filter((r) => r.kind === 'grant' && !ended.has(r.id) && !stillHeld.has(r.id));
}

/** The end record of `grant`, with a new id. */
export function endOf(grant: UnprotectedRecord, id: string, atMs: number, endReason: NonNullable<UnprotectedRecord['endReason']>): UnprotectedRecord {
  return { ...grant, id, kind: 'end', grantId: grant.id, atMs, endReason };
}

export interface ShipDeps {
  readonly spool: Spool;
  readonly store: UnprotectedStore;
  /** Ends a lost grant (orphanedGrants) with a fresh id, appended to the spool before shipping. */
  readonly endLost: (grant: UnprotectedRecord) => Promise<void>;
  /** Grant ids still held from memory (none once the quorum is back; kept for an honest orphan test). */
  readonly stillHeld: ReadonlySet<string>;
}

/** Ships the whole spool and truncates it through the last record shipped; how many records were shipped. */
export async function shipSpool(deps: ShipDeps): Promise<number> {
  const before = await deps.spool.read();
  for (const lost of orphanedGrants(before, deps.stillHeld)) await deps.endLost(lost);
  const records = await deps.spool.read();
  const last = records.at(-1);
  if (last === undefined) return 0;
  await deps.store.shipUnprotected(records);
  await deps.spool.truncate(last.id);
  return records.length;
}
