// The audit interpreter (ADR-21): from the events of one etcd revision of the lock key space to audit
// events. Pure: the same revision gives the same events, in the tailer on real etcd, in the tailer on the
// simulated cluster, and in the simulator's own recorder of the log (sim/world/log-recorder.ts), so there
// is one reading of the log, not three.
//
// What a revision says (the writers: core/arbiter/grant-txn.ts, arbiter.ts release, admin.ts, etcd's lessor):
// - a put of a holder key `/l/<key>` that creates it: a grant; the holder value names identity, session
//   and class, and the token is the epoch in force with this revision (ADR-02); a put that rewrites an
//   existing holder key: a holder-rewrite (events.ts), which lockstep never writes;
// - a delete of a holder key: a hold ended, and the other events of the same revision say why:
//   the epoch record written beside it: the epoch advance deleted it (ADR-03);
//   a force record `/sys/force/<key>/<grant revision>` written beside it: a force-release (ADR-20);
//   the holder's session's release marker naming this hold: a release (markers.ts);
//   the holder's session record `/s/<session>` deleted beside it: the session's lease ended (expiry, or
//   the session closed while holding), since only a lease revocation deletes that record;
//   none of these: unexplained;
// - a put of `/sys/epoch`: an epoch record; of `/sys/shardmap`: a shard map version.
// Everything else (durable waiters, session records, markers, the tailer's own election) is context only.
import { EPOCH_KEY, FORCE_PREFIX, type HolderValue, SESSION_PREFIX, parseEpochRecord, parseHolderValue, sessionKeyOf } from '../arbiter/records.js';
import { HOLDER_PREFIX } from '../lock-key.js';
import type { KeyValue, WatchEvent } from '../ports/lock-log.js';
import { SHARD_MAP_KEY } from '../shards/shard-map.js';
import { REVISION_LIMIT, packToken } from '../token.js';
import { type Revision, leaseId, revision as toRevision } from '../units.js';
import type { AuditEvent, HoldEndKind } from './events.js';
import { parseForceRecord } from './force-record.js';
import { readReleaseMarker } from '../arbiter/release-marker.js';
import { assert } from '../assert.js';

/** What the interpreter carries from one revision to the next. */
export interface InterpreterState {
  /** The epoch in force after the last revision read; 0 before the log has an epoch record. */
  readonly epoch: number;
}

export const FRESH_LOG_STATE: InterpreterState = { epoch: 0 };

export interface Interpretation {
  readonly state: InterpreterState;
  /** In the order of the revision's events (etcd's sub-revision order), system events last. */
  readonly events: readonly AuditEvent[];
}

/** The other writes of one revision, which say why a holder key went. */
interface RevisionContext {
  readonly revision: Revision;
  readonly epochBefore: number;
  readonly epochWritten: boolean;
  readonly forceRecords: ReadonlyMap<string, KeyValue>;
  /** Session record key → the grant revision its release marker names. */
  readonly markers: ReadonlyMap<string, bigint>;
  readonly sessionsEnded: ReadonlySet<string>;
}

/**
 * Interprets every event of one revision. `events` must be the whole revision, as a watch delivers it
 * (WatchBatch) and as the store committed it; a delete's prevKv (watch with prevKv) names the hold that went.
 */
export function interpretRevision(state: InterpreterState, revision: Revision, events: readonly WatchEvent[]): Interpretation {
  for (const event of events) {
    // A programmer error in the caller: a batch is one revision (WatchBatch, CommittedWrite).
    assert(event.kv.modRevision === revision, () => `audit interpreter: an event of revision ${event.kv.modRevision} in the batch of revision ${revision}`);
  }
  const context = contextOf(state, revision, events);
  const out: AuditEvent[] = [];
  for (const event of events) {
    if (!event.kv.key.startsWith(HOLDER_PREFIX)) continue;
    const key = event.kv.key.slice(HOLDER_PREFIX.length);
    if (event.type === 'put') out.push(event.kv.createRevision === revision ? grantOf(key, event.kv, context) : rewriteOf(key, event.kv, context));
    if (event.type === 'delete') out.push(endOf(key, event.prevKv, context));
  }
  let epoch = state.epoch;
  for (const event of events) {
    if (event.type !== 'put') continue;
    if (event.kv.key === EPOCH_KEY) {
      const written = epochEventOf(event, revision);
      if (written.epoch !== undefined) epoch = written.epoch;
      out.push(written);
    }
    if (event.kv.key === SHARD_MAP_KEY) out.push(shardMapEventOf(event.kv.value, revision));
  }
  return { state: { epoch }, events: out };
}

// A revision of a grant or a release has no force record and at most one marker or deleted key: the
// collections are made only when a revision has something to put in them (issue 16: one per revision).
const NO_FORCE_RECORDS: ReadonlyMap<string, KeyValue> = new Map();
const NO_MARKERS: ReadonlyMap<string, bigint> = new Map();
const NO_KEYS: ReadonlySet<string> = new Set();

function contextOf(state: InterpreterState, revision: Revision, events: readonly WatchEvent[]): RevisionContext {
  let forceRecords: Map<string, KeyValue> | undefined;
  let markers: Map<string, bigint> | undefined;
  let sessionsEnded: Set<string> | undefined;
  let epochWritten = false;
  for (const { type, kv } of events) {
    if (type === 'put' && kv.key === EPOCH_KEY) epochWritten = true;
    if (type === 'put' && kv.key.startsWith(FORCE_PREFIX)) (forceRecords ??= new Map()).set(kv.key, kv);
    const marker = type === 'put' ? readReleaseMarker(kv) : undefined;
    if (marker !== undefined) (markers ??= new Map()).set(marker.sessionKey, marker.grantRevision);
    if (type === 'delete') (sessionsEnded ??= new Set()).add(kv.key);
  }
  return { revision, epochBefore: state.epoch, epochWritten, forceRecords: forceRecords ?? NO_FORCE_RECORDS, markers: markers ?? NO_MARKERS, sessionsEnded: sessionsEnded ?? NO_KEYS };
}

function namespaceOf(key: string): string {
  const slash = key.indexOf('/');
  return slash < 0 ? key : key.slice(0, slash);
}

/** The token a hold of `grantRevision` carries in `epoch`, when both are in ADR-02's range. */
function tokenOf(epoch: number, grantRevision: bigint): Pick<AuditEvent, 'token' | 'epoch'> {
  if (epoch <= 0 || grantRevision >= REVISION_LIMIT) return {};
  return { epoch, token: packToken(epoch, grantRevision) };
}

function holderFields(holder: HolderValue | undefined): Pick<AuditEvent, 'identity' | 'className' | 'sessionId'> {
  return holder === undefined ? {} : { identity: holder.identity, className: holder.className, sessionId: holder.sessionId };
}

function grantOf(key: string, kv: KeyValue, context: RevisionContext): AuditEvent {
  const holder = parseHolderValue(kv.value);
  return {
    kind: 'grant',
    revision: context.revision,
    key,
    namespace: namespaceOf(key),
    ...holderFields(holder),
    grantRevision: context.revision,
    ...tokenOf(context.epochBefore, context.revision),
  };
}

function rewriteOf(key: string, kv: KeyValue, context: RevisionContext): AuditEvent {
  return { ...grantOf(key, kv, context), kind: 'holder-rewrite', grantRevision: kv.createRevision, ...tokenOf(context.epochBefore, kv.createRevision) };
}

function endOf(key: string, prevKv: KeyValue | undefined, context: RevisionContext): AuditEvent {
  const holder = prevKv === undefined ? undefined : parseHolderValue(prevKv.value);
  // The session is the holder value's; the key's lease says the same for every hold lockstep writes.
  const sessionId = holder?.sessionId ?? (prevKv !== undefined && prevKv.lease !== 0n ? leaseId(prevKv.lease) : undefined);
  const grantRevision = prevKv?.createRevision;
  const base: AuditEvent = {
    kind: 'unexplained',
    revision: context.revision,
    key,
    namespace: namespaceOf(key),
    ...holderFields(holder),
    ...(sessionId === undefined ? {} : { sessionId }),
    ...(grantRevision === undefined ? {} : { grantRevision: toRevision(grantRevision), ...tokenOf(context.epochBefore, grantRevision) }),
  };
  const kind = endKindOf(key, sessionId, grantRevision, context);
  if (kind !== 'force-release') return { ...base, kind };
  const record = forceRecordOf(key, grantRevision, context);
  const force = record === undefined ? undefined : parseForceRecord(record.value);
  return force === undefined ? { ...base, kind } : { ...base, kind, requester: force.requester, approver: force.approver, reason: force.reason, enforcement: force.enforcement };
}

function endKindOf(key: string, sessionId: bigint | undefined, grantRevision: bigint | undefined, context: RevisionContext): HoldEndKind {
  if (context.epochWritten) return 'epoch-advance';
  if (forceRecordOf(key, grantRevision, context) !== undefined) return 'force-release';
  if (sessionId === undefined || grantRevision === undefined) {
    // Without the previous value (etcd drops prevKv whose revision was compacted) only the revision's shape is left.
    if (context.markers.size > 0) return 'release';
    return [...context.sessionsEnded].some((k) => k.startsWith(SESSION_PREFIX)) ? 'expiry' : 'unexplained';
  }
  const sessionKey = sessionKeyOf(leaseId(sessionId));
  if (context.markers.get(sessionKey) === grantRevision) return 'release';
  if (context.sessionsEnded.has(sessionKey)) return 'expiry';
  return 'unexplained';
}

function forceRecordOf(key: string, grantRevision: bigint | undefined, context: RevisionContext): KeyValue | undefined {
  if (grantRevision !== undefined) return context.forceRecords.get(`${FORCE_PREFIX}${key}/${grantRevision}`);
  const prefix = `${FORCE_PREFIX}${key}/`;
  for (const [recordKey, kv] of context.forceRecords) if (recordKey.startsWith(prefix)) return kv;
  return undefined;
}

function epochEventOf(event: WatchEvent, revision: Revision): AuditEvent {
  const record = parseEpochRecord(event.kv.value);
  const previous = event.prevKv === undefined ? undefined : parseEpochRecord(event.prevKv.value);
  return {
    kind: 'epoch',
    revision,
    key: EPOCH_KEY,
    ...(record === undefined ? {} : { epoch: record.epoch, boundClusterId: record.clusterId }),
    ...(previous === undefined ? {} : { previousEpoch: previous.epoch }),
  };
}

function shardMapEventOf(value: string, revision: Revision): AuditEvent {
  let version: unknown;
  try {
    version = (JSON.parse(value) as { version?: unknown }).version;
  } catch {
    version = undefined;
  }
  return { kind: 'shard-map', revision, key: SHARD_MAP_KEY, ...(typeof version === 'number' && Number.isInteger(version) ? { shardMapVersion: version } : {}) };
}
