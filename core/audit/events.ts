// What the audit records (ADR-21): one event per change of the lock key space that a person investigating
// an incident asks about. The interpreter (interpret.ts) derives them from etcd's own revisions, so they are
// complete by construction, expiries included, which no application code sees.
import type { ClusterId, FencingToken, LeaseId, Revision } from '../units.js';

/**
 * How a hold ended. `epoch-advance`: deleted by the txn that advanced the epoch (ADR-03). `unexplained`: the
 * key went in a revision that carries no release marker, no force record, no epoch advance, and did not end
 * the holder's session: an arbiter older than the marker (markers.ts), or a delete from outside lockstep.
 */
export type HoldEndKind = 'release' | 'expiry' | 'force-release' | 'epoch-advance' | 'unexplained';
export const HOLD_END_KINDS: readonly HoldEndKind[] = ['release', 'expiry', 'force-release', 'epoch-advance', 'unexplained'];

/**
 * `epoch`: the epoch record was written (initialised or advanced); `shard-map`: the shard map was (ADR-09).
 * `holder-rewrite`: a put on a holder key that already existed. lockstep never writes one (a grant creates
 * the key, ADR-02/15), so it is not a grant; only a broken or foreign writer does, and an investigator must
 * see it: the hold's value now names another holder.
 */
export type AuditEventKind = 'grant' | HoldEndKind | 'holder-rewrite' | 'epoch' | 'shard-map';
export const AUDIT_EVENT_KINDS: readonly AuditEventKind[] = ['grant', ...HOLD_END_KINDS, 'holder-rewrite', 'epoch', 'shard-map'];

/** Whether a kind ends a hold. */
export function isHoldEnd(kind: AuditEventKind): kind is HoldEndKind {
  return (HOLD_END_KINDS as readonly string[]).includes(kind);
}

/**
 * One audit event. The fields present depend on the kind: a hold event (grant or end) names the holder as
 * the holder value said; a force-release adds the /sys/force record's people and reason (ADR-20).
 */
export interface AuditEvent {
  readonly kind: AuditEventKind;
  /** The revision of the txn (or lease revocation) that made the change. */
  readonly revision: Revision;
  /** A hold event's lock key (`namespace/path`); a system event's etcd key (`/sys/epoch`, `/sys/shardmap`). */
  readonly key: string;
  readonly namespace?: string;
  readonly identity?: string;
  readonly className?: string;
  readonly sessionId?: LeaseId;
  /** The revision that granted the hold: R of its token (ADR-02). */
  readonly grantRevision?: Revision;
  /** The epoch the hold was granted in; for an `epoch` event, the new epoch. */
  readonly epoch?: number;
  /** The hold's fencing token (ADR-02): the audit store is the per-key place where tokens may be kept (ADR-22). */
  readonly token?: FencingToken;
  /** For an `epoch` event: the epoch before it, when the log still held the old record. */
  readonly previousEpoch?: number;
  /** For an `epoch` event: the cluster ID the record binds the epoch to (ADR-03). */
  readonly boundClusterId?: bigint;
  readonly requester?: string;
  readonly approver?: string;
  readonly reason?: string;
  readonly enforcement?: 'fenced' | 'advisory';
  readonly shardMapVersion?: number;
}

/** An event as the store keeps it: keyed by (cluster ID, revision, key), so a replay is idempotent (ADR-21). */
export interface AuditRecord extends AuditEvent {
  readonly clusterId: ClusterId;
  /** Wall time (Unix ms) at which the tailer received the revision. */
  readonly observedAtMs: number;
  /**
   * True when the revision reached the tailer as it happened (a live watch event), so `observedAtMs` is the
   * commit time plus delivery; false when it was read while catching up (after a restart or a gap), so
   * `observedAtMs` is only an upper bound on when it happened.
   */
  readonly timeExact: boolean;
}

/**
 * Revisions the audit cannot have: etcd compacted them before the tailer read them. Every event committed
 * in `fromRevision..toRevision` may be missing; the deletes at `toRevision` (the compaction revision) are
 * gone for certain, its puts are still delivered (mvcc/kvstore_compaction.go keeps only live versions).
 */
export interface AuditGap {
  readonly clusterId: ClusterId;
  readonly fromRevision: Revision;
  readonly toRevision: Revision;
  readonly detectedAtMs: number;
}

/** Where the tailer is: every revision up to `revision` is in the store (or in a recorded gap). */
export interface AuditCheckpoint {
  readonly clusterId: ClusterId;
  readonly revision: Revision;
  /** The epoch in force after `revision`: what the next grant's token packs (interpret.ts). */
  readonly epoch: number;
  readonly updatedAtMs: number;
  /** A key the tailer last saw put, to check the log still has that history when it resumes (tailer.ts). */
  readonly probe?: HistoryProbe;
}

/**
 * A put the tailer read: the key, and its mod revision and version then. A log restored from a snapshot
 * under the same cluster ID (ADR-03) reuses revisions for other writes; reading the key at that revision
 * then gives another version, or none, and the tailer knows its history is not the log's any more.
 */
export interface HistoryProbe {
  readonly key: string;
  readonly modRevision: Revision;
  readonly version: bigint;
}

/** The identity of an event in the store. */
export function auditEventId(record: { readonly clusterId: ClusterId; readonly revision: Revision; readonly key: string }): string {
  return `${record.clusterId.toString(16)}/${record.revision}/${record.key}`;
}
