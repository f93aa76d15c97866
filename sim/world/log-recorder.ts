// The lock log as it really happened: every grant, release, expiry and force-release, read from the
// members' applied state in revision order, timed at the first member to apply each revision (true
// time, which only the simulator knows). This is the ground truth the exclusion, token-order and belief
// checkers compare everyone's beliefs against; it reads the log, never an arbiter's or client's memory.
import { EPOCH_KEY, FORCE_PREFIX, parseEpochRecord, parseHolderValue } from '../../core/arbiter/records.js';
import type { GrantRecord, HoldEndReason } from '../../core/checkers/index.js';
import { HOLDER_PREFIX } from '../../core/lock-key.js';
import { packToken } from '../../core/token.js';
import type { MemberObserver, EtcdMember } from '../cluster/member.js';
import type { LogEntry } from '../raft/index.js';
import type { EtcdEntry } from '../cluster/protocol.js';

interface OpenHold {
  readonly index: number;
  readonly createRevision: bigint;
}

export class LogRecorder {
  readonly grants: GrantRecord[] = [];
  private readonly open = new Map<string, OpenHold>();
  private lastRevision: number;
  private epoch: number;

  constructor(
    private readonly nowMs: () => number,
    /** The name its grants carry (GrantRecord.cluster). */
    readonly cluster = 'cluster-1',
    /** Where the log starts: a fresh store is at revision 1 (the first write is 2) with no epoch; a restored one at its snapshot's. */
    from: { readonly revision: number; readonly epoch: number } = { revision: 1, epoch: 0 },
  ) {
    this.lastRevision = from.revision;
    this.epoch = from.epoch;
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
    if (store === undefined || store.currentRev <= this.lastRevision) return;
    const request = entry.type === 'normal' && entry.data !== null ? entry.data.request : undefined;
    for (let rev = this.lastRevision + 1; rev <= store.currentRev; rev += 1) {
      const write = store.writeAt(rev);
      if (write === undefined) continue;
      const isEpochAdvance = write.events.some((e) => e.type === 'put' && e.kv.key === EPOCH_KEY);
      const isForce = write.events.some((e) => e.type === 'put' && e.kv.key.startsWith(FORCE_PREFIX));
      const reason: HoldEndReason = request?.kind === 'lease-revoke' ? 'expiry' : isEpochAdvance ? 'epoch-advance' : isForce ? 'force-release' : 'release';
      for (const event of write.events) {
        if (event.kv.key === EPOCH_KEY && event.type === 'put') this.epoch = parseEpochRecord(event.kv.value)?.epoch ?? this.epoch;
        if (!event.kv.key.startsWith(HOLDER_PREFIX)) continue;
        const key = event.kv.key.slice(HOLDER_PREFIX.length);
        if (event.type === 'put' && event.kv.createRevision === event.kv.modRevision) this.grant(key, event.kv.value, BigInt(rev));
        if (event.type === 'delete') this.end(key, BigInt(rev), reason);
      }
    }
    this.lastRevision = store.currentRev;
  }

  private grant(key: string, value: string, revision: bigint): void {
    const parsed = parseHolderValue(value);
    const holder = parsed?.identity ?? 'unreadable';
    this.open.set(key, { index: this.grants.length, createRevision: revision });
    // The session tells whose library had to fence the hold before the log expired it (ADR-10, ADR-12).
    const session = parsed === undefined ? {} : { session: parsed.sessionId as bigint };
    this.grants.push({ key, token: packToken(this.epoch, revision), holder, ...session, cluster: this.cluster, revision, grantedAtMs: this.nowMs() });
  }

  private end(key: string, revision: bigint, reason: HoldEndReason): void {
    const hold = this.open.get(key);
    if (hold === undefined) return;
    this.open.delete(key);
    const record = this.grants[hold.index];
    if (record !== undefined) this.grants[hold.index] = { ...record, endedAtRevision: revision, endedAtMs: this.nowMs(), endReason: reason };
  }
}
