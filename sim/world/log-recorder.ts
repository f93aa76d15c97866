// The lock log as it really happened: every grant, release, expiry and force-release, read from the
// members' applied state in revision order, timed at the first member to apply each revision (true
// time, which only the simulator knows). This is the ground truth the exclusion, token-order and belief
// checkers compare everyone's beliefs against; it reads the log, never an arbiter's or client's memory.
//
// It reads each revision with the audit's own interpreter (core/audit/interpret.ts), so the simulator and
// the audit tailer cannot hold two readings of one log (ADR-21). The simulator also knows what the
// interpreter has to infer: whether the Raft entry behind a revision was a lease revocation. Every hold the
// interpreter calls expired must come from one, and every other end from a txn: a disagreement is a bug in
// the interpreter or in a writer (a release without its marker), and stops the run.
import type { GrantRecord, HoldEndReason } from '../../core/checkers/index.js';
import { type AuditEvent, isHoldEnd } from '../../core/audit/events.js';
import { type InterpreterState, interpretRevision } from '../../core/audit/interpret.js';
import type { WatchEvent } from '../../core/ports/lock-log.js';
import { revision as toRevision } from '../../core/units.js';
import type { MemberObserver, EtcdMember } from '../cluster/member.js';
import type { LogEntry } from '../raft/index.js';
import type { EtcdEntry } from '../cluster/protocol.js';
import type { MvccStore } from '../etcd/mvcc-store.js';

interface OpenHold {
  readonly index: number;
}

export class LogRecorder {
  readonly grants: GrantRecord[] = [];
  /** Every compaction the log applied, in order (a gap in the audit must rest on one, ADR-21). */
  readonly compactions: bigint[] = [];
  private readonly open = new Map<string, OpenHold>();
  private lastRevision: number;
  private state: InterpreterState;

  constructor(
    private readonly nowMs: () => number,
    /** The name its grants carry (GrantRecord.cluster). */
    readonly cluster = 'cluster-1',
    /**
     * Where the log starts: a fresh store is at revision 1 (the first write is 2) with no epoch and no
     * compaction; a restored one at its snapshot's, compacted where the snapshot's history was.
     */
    readonly from: { readonly revision: number; readonly epoch: number; readonly compactRevision?: number } = { revision: 1, epoch: 0 },
  ) {
    this.lastRevision = from.revision;
    this.state = { epoch: from.epoch };
    if (from.compactRevision !== undefined && from.compactRevision > 0) this.compactions.push(BigInt(from.compactRevision));
  }

  /** Give this to the cluster (SimClusterOptions.observer). */
  readonly observer: MemberObserver = {
    onApplied: (member, entry) => this.onApplied(member, entry),
  };

  /** Revisions seen so far (the log's length, for metrics). */
  get revision(): number {
    return this.lastRevision;
  }

  private onApplied(member: EtcdMember, entry: LogEntry<EtcdEntry>): void {
    const store = member.state?.store;
    const request = entry.type === 'normal' && entry.data !== null ? entry.data.request : undefined;
    const compacted = request?.kind === 'compaction' && store !== undefined && BigInt(store.compactRev) === request.revision;
    if (compacted && (this.compactions.at(-1) ?? -1n) < request.revision) this.compactions.push(request.revision);
    if (store === undefined || store.currentRev <= this.lastRevision) return;
    const single = store.currentRev === this.lastRevision + 1;
    for (let rev = this.lastRevision + 1; rev <= store.currentRev; rev += 1) {
      const write = store.writeAt(rev);
      if (write === undefined) continue;
      const interpreted = interpretRevision(this.state, toRevision(BigInt(rev)), write.events.map((event) => withPrevKv(store, event, rev)));
      this.state = interpreted.state;
      for (const event of interpreted.events) {
        if (single) assertAgreesWithEntry(event, request?.kind);
        if (event.kind === 'grant') this.grant(event);
        else if (isHoldEnd(event.kind)) this.end(event.key, BigInt(rev), event.kind as HoldEndReason);
      }
    }
    this.lastRevision = store.currentRev;
  }

  private grant(event: AuditEvent): void {
    const revision = event.revision as bigint;
    this.open.set(event.key, { index: this.grants.length });
    // The session tells whose library had to fence the hold before the log expired it (ADR-10, ADR-12).
    const session = event.sessionId === undefined ? {} : { session: event.sessionId as bigint };
    // Before any epoch record the token is R alone (epoch 0), as packToken(0, R) gives.
    const token = event.token ?? revision;
    this.grants.push({ key: event.key, token, holder: event.identity ?? 'unreadable', ...session, cluster: this.cluster, revision, grantedAtMs: this.nowMs() });
  }

  private end(key: string, revision: bigint, reason: HoldEndReason): void {
    const hold = this.open.get(key);
    if (hold === undefined) return;
    this.open.delete(key);
    const record = this.grants[hold.index];
    if (record !== undefined) this.grants[hold.index] = { ...record, endedAtRevision: revision, endedAtMs: this.nowMs(), endReason: reason };
  }
}

/** The event as a watch with prevKv delivers it: a delete or an overwrite carries the value before it. */
function withPrevKv(store: MvccStore, event: { readonly type: 'put' | 'delete'; readonly kv: WatchEvent['kv'] }, rev: number): WatchEvent {
  if (event.type === 'put' && event.kv.createRevision === event.kv.modRevision) return event;
  const before = store.rangeAt({ key: event.kv.key }, rev - 1);
  const prevKv = before.ok ? before.value.kvs[0] : undefined;
  return prevKv === undefined ? event : { ...event, prevKv };
}

/** The simulator's omniscience against the interpreter's inference (see the header). */
function assertAgreesWithEntry(event: AuditEvent, requestKind: string | undefined): void {
  if (!isHoldEnd(event.kind)) return;
  const revoked = requestKind === 'lease-revoke';
  if (revoked === (event.kind === 'expiry') && event.kind !== 'unexplained') return;
  throw new Error(
    `log recorder: the audit interpreter reads the end of ${event.key} at revision ${event.revision} as ${event.kind}, but the Raft entry behind it was ${requestKind ?? 'unknown'}; ` +
      'a release must write its marker in its txn (core/audit/markers.ts), and only a lease revocation ends holds as expiries',
  );
}
