// Unprotected grants (ADR-04): an arbiter that lost its etcd majority may grant an `onQuorumLoss: open`
// class from memory, with token 0, and must spool each such grant and its end and ship them to the audit
// store once the quorum is back. The rules a run is held to:
// - overlap is allowed only when an unprotected grant is in it: two holders of one key believing at once
//   with etcd grants (both tokens above 0) is still a violation;
// - a class that fails closed is never granted from memory (no token 0 for it);
// - every record any arbiter spooled is in the store after recovery (none lost, even when an arbiter
//   crashed during the outage or while shipping), none is stored twice, and no grant has two ends.
// The other checkers judge the etcd grants; a run hands them its protected beliefs only (token > 0).
import { UNPROTECTED_TOKEN } from '../arbiter/fail-open.js';
import type { UnprotectedRecord } from '../ports/spool.js';
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { type BeliefInterval, groupBy, holderLabel } from './run-history.js';

export interface UnprotectedRun {
  /** Every record the arbiters' spools made durable over the run, truncated ones included: what was granted from memory. */
  readonly spooled: readonly UnprotectedRecord[];
  /** The store's records at the end of the run, as stored (a store that kept one twice lists it twice). */
  readonly stored: readonly UnprotectedRecord[];
  /** Whether a key belongs to a class that fails closed. */
  readonly closed: (key: string) => boolean;
}

export function isUnprotected(belief: Pick<BeliefInterval, 'token'>): boolean {
  return belief.token === UNPROTECTED_TOKEN;
}

export function checkUnprotected(beliefs: readonly BeliefInterval[], run: UnprotectedRun): CheckResult {
  const found = [...overlaps(beliefs), ...closedGrantedOpen(beliefs, run.closed), ...unspooledBeliefs(beliefs, run.spooled), ...lostRecords(run), ...twiceStored(run.stored)];
  const grants = run.spooled.filter((r) => r.kind === 'grant').length;
  return checkResult('unprotected', found, `${plural(beliefs.filter(isUnprotected).length, 'unprotected belief span')} and ${plural(grants, 'spooled grant')} against ${plural(run.stored.length, 'stored record')}`);
}

/** Two spans of one key from different grants that overlap in true time, neither unprotected. */
function overlaps(beliefs: readonly BeliefInterval[]): Violation[] {
  const found: Violation[] = [];
  for (const [key, spans] of groupBy(beliefs.filter((b) => !isUnprotected(b)), (b) => b.key)) {
    const sorted = [...spans].sort((a, b) => a.fromMs - b.fromMs);
    sorted.forEach((earlier, i) => {
      const later = sorted.slice(i + 1).find((b) => b.fromMs < (earlier.toMs ?? Number.POSITIVE_INFINITY) && (b.holder !== earlier.holder || b.token !== earlier.token));
      if (later === undefined) return;
      const message = `key ${key}: ${holderLabel(later)} could start work from ${ms(later.fromMs)} while ${holderLabel(earlier)} still could; neither grant was unprotected, so ADR-04 allows no overlap`;
      found.push({ kind: 'protected-overlap', key, message, involved: [involvedIn(earlier), involvedIn(later)], atMs: later.fromMs });
    });
  }
  return found;
}

function closedGrantedOpen(beliefs: readonly BeliefInterval[], closed: (key: string) => boolean): Violation[] {
  return beliefs
    .filter((b) => isUnprotected(b) && closed(b.key))
    .map((b) => ({
      kind: 'closed-class-unprotected' as const,
      key: b.key,
      message: `key ${b.key}: ${holderLabel(b)} held a grant from memory from ${ms(b.fromMs)}, but its class fails closed (ADR-04: only an efficiency class that declared onQuorumLoss: open may)`,
      involved: [involvedIn(b)],
      atMs: b.fromMs,
    }));
}

/** A holder told of a grant from memory that no spool recorded: the arbiter answered before the record was durable. */
function unspooledBeliefs(beliefs: readonly BeliefInterval[], spooled: readonly UnprotectedRecord[]): Violation[] {
  const recorded = new Set(spooled.filter((r) => r.kind === 'grant').map((r) => `${r.key}\n${r.identity}`));
  return beliefs
    .filter((b) => isUnprotected(b) && !recorded.has(`${b.key}\n${b.holder}`))
    .map((b) => ({
      kind: 'unprotected-lost' as const,
      key: b.key,
      message: `key ${b.key}: ${holderLabel(b)} held a grant from memory from ${ms(b.fromMs)} that no arbiter's spool recorded (ADR-04: spooled before the answer)`,
      involved: [involvedIn(b)],
      atMs: b.fromMs,
    }));
}

function lostRecords(run: UnprotectedRun): Violation[] {
  const stored = new Set(run.stored.map((r) => r.id));
  return run.spooled
    .filter((r) => !stored.has(r.id))
    .map((r) => ({
      kind: 'unprotected-lost' as const,
      key: r.key,
      message: `key ${r.key}: the ${r.kind} ${r.id} of ${r.identity} that ${r.arbiterId} spooled is not in the audit store at the end of the run (ADR-04: every unprotected grant is shipped)`,
      involved: [{ holder: r.identity }],
    }));
}

function twiceStored(stored: readonly UnprotectedRecord[]): Violation[] {
  const found: Violation[] = [];
  for (const [id, copies] of groupBy(stored, (r) => r.id)) {
    if (copies.length > 1) found.push(twice(copies[0] as UnprotectedRecord, `record ${id} is stored ${copies.length} times`));
  }
  for (const [grantId, ends] of groupBy(dedupe(stored).filter((r) => r.kind === 'end'), (r) => r.grantId)) {
    if (ends.length > 1) found.push(twice(ends[0] as UnprotectedRecord, `grant ${grantId} has ${ends.length} ends (${ends.map((e) => e.id).join(', ')})`));
  }
  return found;
}

function twice(record: UnprotectedRecord, what: string): Violation {
  return { kind: 'unprotected-twice', key: record.key, message: `key ${record.key}: ${what} in the audit store (ADR-04: a shipment repeated after a crash stores nothing twice)`, involved: [{ holder: record.identity }] };
}

function dedupe(records: readonly UnprotectedRecord[]): UnprotectedRecord[] {
  return [...new Map(records.map((r) => [r.id, r])).values()];
}
