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

/** A GrantRecord as the recorder builds it: one shape for every grant, its end filled in place. */
type RecordedGrant = { -readonly [K in keyof GrantRecord]: GrantRecord[K] };

/** Bound on the holder names interned (a run has few identities; past it, names are kept as they come). */
const MAX_INTERNED_HOLDERS = 65_536;

export interface LogRecorderOptions {
  /**
   * Keep every grant for the end-of-run checkers (default). False keeps only the holds still open and a
   * count: for a run that checks nothing at its end (bench/sim-speed.ts's soak), whose memory would
   * otherwise grow with every grant (issue 16). Every revision is still read and cross-checked.
   */
  readonly keepGrants?: boolean;
}

export class LogRecorder {
  private readonly kept: RecordedGrant[] | undefined;
  private grantCount = 0;
  /** Every compaction the log applied, in order (a gap in the audit must rest on one, ADR-21). */
  readonly compactions: bigint[] = [];
  /** Key → index in `kept` of its open hold (-1 when grants are not kept). */
  private readonly open = new Map<string, number>();
  // One string per holder name: each grant's identity is parsed afresh from its holder record, and a
  // long run records hundreds of thousands of grants by a few hundred holders (issue 16).
  private readonly holders = new Map<string, string>();
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
    options: LogRecorderOptions = {},
  ) {
    this.kept = options.keepGrants === false ? undefined : [];
    this.lastRevision = from.revision;
    this.state = { epoch: from.epoch };
    if (from.compactRevision !== undefined && from.compactRevision > 0) this.compactions.push(BigInt(from.compactRevision));
  }

  /** Give this to the cluster (SimClusterOptions.observer). */
  readonly observer: MemberObserver = {
    onApplied: (member, entry) => this.onApplied(member, entry),
  };

  /** Every grant the log made, in revision order, each with its end once the log ended it. */
  get grants(): readonly GrantRecord[] {
    if (this.kept === undefined) throw new Error(`log recorder of ${this.cluster}: its grants were not kept (made with keepGrants: false); count them with grantsRecorded`);
    return this.kept;
  }

  /** How many grants the log has made (kept or not). */
  get grantsRecorded(): number {
    return this.grantCount;
  }

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
    this.grantCount += 1;
    this.open.set(event.key, this.kept === undefined ? -1 : this.kept.length);
    if (this.kept === undefined) return;
    // Before any epoch record the token is R alone (epoch 0), as packToken(0, R) gives.
    const token = event.token ?? revision;
    // Every grant is built with every field, in one order, and its end is written into it in place: a
    // record spread into a new object with three more fields, as this did, gave each ended grant a hidden
    // class of its own (issue 16: 36,000 shapes, ~320 bytes each, after six simulated minutes of the
    // standard workload). An absent field is undefined, which the checkers, JSON and the canonical text
    // read as absent.
    const record: RecordedGrant = {
      key: event.key,
      token,
      holder: this.holderName(event.identity ?? 'unreadable'),
      // The session tells whose library had to fence the hold before the log expired it (ADR-10, ADR-12).
      session: event.sessionId === undefined ? undefined : (event.sessionId as bigint),
      cluster: this.cluster,
      revision,
      grantedAtMs: this.nowMs(),
      endedAtRevision: undefined,
      endedAtMs: undefined,
      endReason: undefined,
    };
    this.kept.push(record);
  }

  private end(key: string, revision: bigint, reason: HoldEndReason): void {
    const index = this.open.get(key);
    if (index === undefined) return;
    this.open.delete(key);
    const record = this.kept?.[index];
    if (record === undefined) return;
    record.endedAtRevision = revision;
    record.endedAtMs = this.nowMs();
    record.endReason = reason;
  }

  private holderName(identity: string): string {
    const known = this.holders.get(identity);
    if (known !== undefined) return known;
    if (this.holders.size < MAX_INTERNED_HOLDERS) this.holders.set(identity, identity);
    return identity;
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
      'a release must write its marker in its txn (core/arbiter/release-marker.ts), and only a lease revocation ends holds as expiries',
  );
}
