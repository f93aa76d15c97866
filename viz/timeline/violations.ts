// Which marks make a failing check's violation, so the view can highlight them with the check's name
// (issue 7: "a violation highlighted with the check that failed and the events that make it"). A
// checker's violation (core/checkers Violation) names the holders and tokens involved, the key, the
// resource and the moment the rule broke; those pick out holds, beliefs and writes. Violations given as
// plain sentences (raft-safety, some scenario checks) are listed without marks.
import type { CheckView, ViolationView } from '../artifact/schema.js';
import type { CheckRow, Mark, ViolationRow } from './types.js';

interface Involved {
  readonly holder: string;
  readonly token?: string | undefined;
}

/** Returns the check rows with their violations' marks, and each mark's failing checks (by id). */
export function mapViolations(checks: readonly CheckView[], marks: readonly Mark[]): { rows: CheckRow[]; byMark: Map<number, string[]> } {
  const byMark = new Map<number, string[]>();
  const byHolder = indexByHolder(marks);
  const rows = checks.map((check): CheckRow => {
    if (check.ok) return { name: check.name, ok: true, detail: check.detail, violations: [] };
    const violations = check.violations.map((v): ViolationRow => {
      const row = violationRow(v, byHolder);
      for (const id of row.markIds) {
        const names = byMark.get(id) ?? [];
        if (!names.includes(check.name)) names.push(check.name);
        byMark.set(id, names);
      }
      return row;
    });
    return { name: check.name, ok: false, detail: check.detail, violations };
  });
  return { rows, byMark };
}

/** Holds, beliefs and writes by holder identity: a violation names holders, so it looks up only theirs. */
function indexByHolder(marks: readonly Mark[]): Map<string, Mark[]> {
  const index = new Map<string, Mark[]>();
  for (const m of marks) {
    const holder = m.details['holder'];
    if (typeof holder !== 'string' || !(m.kind === 'hold' || m.kind === 'belief' || m.kind === 'write')) continue;
    const list = index.get(holder);
    if (list === undefined) index.set(holder, [m]);
    else list.push(m);
  }
  return index;
}

function violationRow(v: ViolationView, byHolder: ReadonlyMap<string, readonly Mark[]>): ViolationRow {
  if (typeof v === 'string') return { message: v, markIds: [] };
  const involved: readonly Involved[] = v.involved ?? [];
  const kind = v.kind ?? '';
  const ids = new Set<number>();
  for (const [position, who] of involved.entries()) {
    const same = (m: Mark): boolean => m.details['holder'] === who.holder && (who.token === undefined || m.details['token'] === who.token) && (v.key === undefined || m.details['key'] === v.key);
    const theirs = byHolder.get(who.holder) ?? [];
    for (const m of theirs) {
      if (m.kind === 'hold' && same(m)) ids.add(m.id);
      // The accepted writes are what a fence violation is about (a rejected write broke no rule).
      else if (m.kind === 'write' && v.resource !== undefined && m.details['resource'] === v.resource && same(m)) ids.add(m.id);
    }
    // A belief violation is about one believer (listed first, core/checkers/belief.ts) at one moment: the
    // belief span at (or nearest to) it, not all of the holder's, and not the later holder's.
    if (kind.startsWith('belief') && position === 0) {
      const nearest = nearestBelief(theirs.filter((m) => m.kind === 'belief' && same(m)), v.atMs);
      if (nearest !== undefined) ids.add(nearest.id);
    }
  }
  const message = v.message ?? `${kind || 'violation'}${v.key === undefined ? '' : ` on ${v.key}`}`;
  return { message, markIds: [...ids].sort((a, b) => a - b), ...(v.atMs === undefined ? {} : { atMs: v.atMs }) };
}

function nearestBelief(beliefs: readonly Mark[], atMs: number | undefined): Mark | undefined {
  if (atMs === undefined) return beliefs[0];
  let best: Mark | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const b of beliefs) {
    const distance = atMs < b.startMs ? b.startMs - atMs : atMs > b.endMs ? atMs - b.endMs : 0;
    if (distance < bestDistance) [best, bestDistance] = [b, distance];
  }
  return best;
}
