// The reconciliation list of ADR-04 (`lockstep audit unprotected`): each grant an arbiter made from its
// memory during a quorum outage, with its end, and every pair of such grants of one key by two arbiters
// whose intervals intersect. Each arbiter is exclusive within itself, so two holders at once can only come
// from two arbiters: the overlap an efficiency class accepted when it declared `onQuorumLoss: open`.
import type { UnprotectedRecord } from '../../core/ports/spool.js';

export type UnprotectedEnd = NonNullable<UnprotectedRecord['endReason']> | 'open';

export interface UnprotectedGrant {
  readonly grantId: string;
  readonly key: string;
  readonly namespace: string;
  readonly className: string;
  readonly arbiterId: string;
  readonly identity: string;
  readonly instance: string;
  readonly startMs: number;
  /** Undefined while no end is stored ('open'): its arbiter has not shipped one, or crashed first. */
  readonly endMs: number | undefined;
  readonly endReason: UnprotectedEnd;
}

export interface UnprotectedOverlap {
  readonly key: string;
  readonly first: UnprotectedGrant;
  readonly second: UnprotectedGrant;
  readonly fromMs: number;
  /** Undefined when neither grant has ended. */
  readonly toMs: number | undefined;
}

/** The grants among `records`, oldest first, each with the earliest end stored for it. */
export function unprotectedGrants(records: readonly UnprotectedRecord[]): UnprotectedGrant[] {
  const ends = new Map<string, UnprotectedRecord>();
  for (const record of records) {
    const known = ends.get(record.grantId);
    if (record.kind === 'end' && (known === undefined || record.atMs < known.atMs)) ends.set(record.grantId, record);
  }
  return records
    .filter((record) => record.kind === 'grant')
    .map((grant): UnprotectedGrant => {
      const end = ends.get(grant.grantId);
      const { grantId, key, namespace, className, arbiterId, identity, instance } = grant;
      return { grantId, key, namespace, className, arbiterId, identity, instance, startMs: grant.atMs, endMs: end?.atMs, endReason: end?.endReason ?? (end === undefined ? 'open' : 'release') };
    })
    .sort((a, b) => a.startMs - b.startMs || a.grantId.localeCompare(b.grantId));
}

/** Pairs of grants of one key by different arbiters whose [start, end) intersect; an open grant runs on. */
export function unprotectedOverlaps(grants: readonly UnprotectedGrant[]): UnprotectedOverlap[] {
  const byKey = new Map<string, UnprotectedGrant[]>();
  for (const grant of grants) byKey.set(grant.key, [...(byKey.get(grant.key) ?? []), grant]);
  const overlaps: UnprotectedOverlap[] = [];
  for (const ofKey of byKey.values()) {
    ofKey.sort((a, b) => a.startMs - b.startMs);
    for (const [i, first] of ofKey.entries()) {
      for (let j = i + 1; j < ofKey.length; j += 1) {
        const second = ofKey[j];
        if (second === undefined || (first.endMs !== undefined && second.startMs >= first.endMs)) break; // later ones start later still
        if (first.arbiterId === second.arbiterId) continue;
        const toMs = first.endMs === undefined ? second.endMs : second.endMs === undefined ? first.endMs : Math.min(first.endMs, second.endMs);
        overlaps.push({ key: first.key, first, second, fromMs: second.startMs, toMs });
      }
    }
  }
  return overlaps.sort((a, b) => a.fromMs - b.fromMs || a.key.localeCompare(b.key));
}
