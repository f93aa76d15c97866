// One incarnation of a simulated etcd member: everything a crash loses. The state machines (rebuilt from
// the member's restored snapshot, if any, then by re-applying the committed log from the WAL), the apply
// queue, the request paths (writes, reads, leases, watches) and their waiters, the CPU queue. EtcdMember
// makes a new one at every (re)start.
import { assert } from '../../core/assert.js';
import { type ResponseHeader, isReadOnlyTxn } from '../../core/ports/lock-log.js';
import type { Revision } from '../../core/units.js';
import { applyRequest, type EtcdState } from '../etcd/apply.js';
import { IdGenerator } from '../etcd/id-generator.js';
import { executeTxn } from '../etcd/txn.js';
import { validateTxn } from '../etcd/txn-validate.js';
import type { LogEntry, SoftState } from '../raft/types.js';
import type { TimerId } from '../process/process.js';
import { Cpu } from './cpu.js';
import type { EtcdMember } from './member.js';
import { PeriodicCompactor } from './member-compactor.js';
import { LeaseService } from './member-leases.js';
import { Proposals, type ProposalResult } from './member-proposals.js';
import { ReadIndexLoop } from './member-reads.js';
import { WatchService } from './member-watches.js';
import type { ClientRequest, EtcdEntry, RequestMessage, Result, ResultBody, WireError } from './protocol.js';
import { stateFromOps } from './snapshot.js';
import { refusedBy } from './wire-errors.js';

interface ApplyWait {
  readonly index: number;
  readonly done: (ok: boolean) => void;
  timer: TimerId;
}

export class MemberRuntime {
  readonly state: EtcdState;
  readonly idGen: IdGenerator;
  /** The request handlers' CPU (gRPC goroutines), one FIFO lane. */
  readonly cpu: Cpu;
  /** The apply loop's CPU: etcd applies on one goroutine of its own, so apply never queues behind requests. */
  private readonly applier: Cpu;
  readonly proposals: Proposals;
  readonly reads: ReadIndexLoop;
  readonly leases: LeaseService;
  readonly watches: WatchService;
  /** etcd's periodic auto-compaction, when the timing asks for it (issue 16). */
  readonly compactor: PeriodicCompactor | undefined;
  readonly startedLocalMs: number;
  /** The last index this incarnation applied, and the term of that entry (etcd s.Term()). */
  appliedIndex = 0;
  appliedTerm = 0;
  /** The last committed index handed to apply (etcd's committed index, as the server knows it). */
  handedIndex = 0;
  /** The leader as this member's Ready loop last reported it. */
  lead: string | null = null;
  leadElectedLocalMs = Number.NEGATIVE_INFINITY;
  private role: SoftState['role'] = 'follower';
  private readonly applyQueue: LogEntry<EtcdEntry>[] = [];
  private applyHead = 0;
  private applying = false;
  private applyWaits: ApplyWait[] = [];

  constructor(readonly member: EtcdMember) {
    const { process } = member;
    this.startedLocalMs = process.localNow();
    // The last saved snapshot if there is one (raft then hands out only the entries after it), else the
    // state the member was restored from.
    this.state = member.snapshots.restoredState() ?? stateFromOps(member.baseOps, member.lessorConfig);
    const start = member.snapshots.latest?.start;
    this.appliedIndex = start?.index ?? 0;
    this.appliedTerm = start?.term ?? 0;
    this.handedIndex = this.appliedIndex;
    this.idGen = new IdGenerator(member.memberId, this.startedLocalMs);
    this.cpu = new Cpu(process);
    this.applier = new Cpu(process);
    this.proposals = new Proposals(this);
    this.reads = new ReadIndexLoop(this);
    this.leases = new LeaseService(this);
    this.watches = new WatchService(this);
    const autoCompaction = member.timing.autoCompaction;
    this.compactor = autoCompaction === undefined ? undefined : new PeriodicCompactor(this, autoCompaction);
  }

  /** The member believes it leads (etcd s.isLeader(): the Ready loop's view, not raft's). */
  isLeader(): boolean {
    return this.role === 'leader';
  }

  header(revision?: Revision): ResponseHeader {
    return {
      clusterId: this.member.clusterId,
      memberId: this.member.memberId,
      revision: revision ?? this.state.store.currentRevision(),
      raftTerm: BigInt(this.appliedTerm),
    };
  }

  trace(kind: string, fields: Readonly<Record<string, unknown>>): void {
    this.member.process.kernel.trace.record(kind, fields, this.member.name);
  }

  // ---- raft hooks --------------------------------------------------------------------------------

  /** etcd updateLead / updateLeadership on a Ready's soft state (server.go run l.977-985). */
  onSoftState(soft: SoftState): void {
    const newLeader = soft.lead !== null && soft.lead !== this.lead;
    this.role = soft.role;
    this.trace('etcd.leader', { lead: soft.lead, role: soft.role, term: this.member.raft()?.term ?? 0 });
    if (soft.role !== 'leader') {
      if (this.state.lessor.isPrimary()) this.trace('etcd.lease.demote', {});
      this.state.lessor.demote();
      this.leases.onDemote();
    }
    this.lead = soft.lead;
    if (newLeader) {
      this.leadElectedLocalMs = this.member.process.localNow();
      this.reads.onLeaderChanged();
    }
    if (soft.lead !== null) this.proposals.onLeader();
  }

  /** A committed entry handed over by the Ready loop; applied at once, or behind earlier ones on the CPU. */
  onCommitted(entry: LogEntry<EtcdEntry>): void {
    this.handedIndex = entry.index;
    if (this.member.timing.applyCostMs <= 0 && !this.applying) {
      this.apply(entry);
      return;
    }
    this.applyQueue.push(entry);
    this.pumpApply();
  }

  // ---- applied-index waits -----------------------------------------------------------------------

  /** Calls `done` once this member has applied `index` (no deadline: etcd's applyWait). */
  waitApplied(index: number, done: () => void): void {
    this.waitAppliedWithin(index, Number.POSITIVE_INFINITY, () => done());
  }

  /** Calls `done(true)` once `index` is applied, or `done(false)` after `timeoutMs`. */
  waitAppliedWithin(index: number, timeoutMs: number, done: (ok: boolean) => void): void {
    if (this.appliedIndex >= index) return done(true);
    const wait: ApplyWait = { index, done, timer: -1 };
    if (timeoutMs !== Number.POSITIVE_INFINITY) {
      wait.timer = this.member.process.setTimer(timeoutMs, () => {
        this.applyWaits = this.applyWaits.filter((other) => other !== wait);
        done(false);
      });
    }
    this.applyWaits.push(wait);
  }

  // ---- client requests ---------------------------------------------------------------------------

  onRequest(from: string, message: RequestMessage): void {
    this.cpu.run(this.member.timing.requestCostMs, () => this.handle(from, message));
  }

  private handle(from: string, message: RequestMessage): void {
    const { request, requestId, replyPort } = message;
    // One closure per request, and no named ones: under tsx's keep-names transform a function bound to
    // a name costs a defineProperty each time it is made (answer and fail are methods instead).
    const reply = this.replier(from, replyPort, requestId, request);
    switch (request.op) {
      case 'txn': {
        const invalid = validateTxn(request.txn);
        if (invalid !== undefined) return this.fail(reply, refusedBy(invalid));
        if (isReadOnlyTxn(request.txn)) return this.reads.read((error) => (error !== undefined ? this.fail(reply, error) : this.serveReadOnlyTxn(request.txn, reply)));
        return this.proposals.propose({ kind: 'txn', txn: request.txn }, (result) => this.answerWrite(result, reply));
      }
      case 'range':
        if (request.range.serializable === true) return this.serveRange(request, reply);
        return this.reads.read((error) => (error !== undefined ? this.fail(reply, error) : this.serveRange(request, reply)));
      case 'lease-grant':
        return this.proposals.propose({ kind: 'lease-grant', id: this.idGen.nextLeaseId(), ttlSeconds: request.ttlSeconds }, (result) => this.answerWrite(result, reply));
      case 'lease-revoke':
        return this.proposals.propose({ kind: 'lease-revoke', id: request.id }, (result) => this.answerWrite(result, reply));
      case 'compact':
        return this.proposals.propose({ kind: 'compaction', revision: request.revision }, (result) => this.answerWrite(result, reply));
      case 'lease-keepalive': {
        // v3rpc/lease.go leaseKeepAlive fills the header before renewing.
        const header = this.header();
        return this.leases.keepAlive(request.id, (result) => (result.ok ? this.answer(reply, { op: 'lease-keepalive', id: request.id, ttlSeconds: result.ttlSeconds }, header) : this.fail(reply, result.error)));
      }
      case 'lease-ttl':
        return this.leases.timeToLive(request.id, request.keys, (result) => {
          if (!result.ok) return this.fail(reply, result.error);
          this.answer(reply, { op: 'lease-ttl', id: request.id, ttlSeconds: result.ttlSeconds, grantedTtlSeconds: result.grantedTtlSeconds, keys: result.keys });
        });
      case 'status':
        return this.answer(reply, this.statusBody());
      case 'watch-create':
        return this.watches.create(from, replyPort, requestId, request);
    }
  }

  private replier(to: string, port: string, requestId: number, request: ClientRequest): (result: Result) => void {
    return (result) => this.reply(to, port, requestId, request, result);
  }

  private answer(reply: (result: Result) => void, body: ResultBody, header = this.header()): void {
    reply({ ok: true, header, body });
  }

  private fail(reply: (result: Result) => void, error: WireError): void {
    reply({ ok: false, error });
  }

  private reply(to: string, port: string, requestId: number, request: ClientRequest, result: Result): void {
    this.trace('etcd.op', {
      client: to,
      code: result.ok ? undefined : result.error.code,
      op: request.op,
      requestId,
      revision: result.ok ? result.header.revision : undefined,
    });
    this.member.mux.send(to, { type: 'etcd.response', port, requestId, result });
  }

  private answerWrite(result: ProposalResult, reply: (result: Result) => void): void {
    if (!result.ok) return reply(result);
    const header: ResponseHeader = { clusterId: this.member.clusterId, memberId: this.member.memberId, revision: result.applied.revision, raftTerm: BigInt(result.headerTerm) };
    const body = result.applied.body;
    switch (body.kind) {
      case 'txn':
        return reply({ ok: true, header, body: { op: 'txn', succeeded: body.succeeded, responses: body.responses } });
      case 'lease-grant':
        return reply({ ok: true, header, body: { op: 'lease-grant', id: body.id, ttlSeconds: body.ttlSeconds } });
      case 'lease-revoke':
        return reply({ ok: true, header, body: { op: 'lease-revoke' } });
      case 'compaction':
      case 'lease-checkpoint':
        return reply({ ok: true, header, body: { op: 'compact' } });
    }
  }

  private serveReadOnlyTxn(txn: Parameters<typeof executeTxn>[2], reply: (result: Result) => void): void {
    const result = executeTxn(this.state.store, this.state.lessor, txn);
    if (!result.ok) return reply({ ok: false, error: refusedBy(result.error) });
    reply({ ok: true, header: this.header(), body: { op: 'txn', ...result.value } });
  }

  private serveRange(request: Extract<ClientRequest, { op: 'range' }>, reply: (result: Result) => void): void {
    const { range } = request;
    const read = this.state.store.range({
      key: range.key,
      ...(range.prefix === true ? { prefix: true } : {}),
      ...(range.limit !== undefined ? { limit: range.limit } : {}),
      ...(range.revision !== undefined ? { revision: range.revision } : {}),
    });
    if (!read.ok) return reply({ ok: false, error: refusedBy(read.error) });
    reply({ ok: true, header: this.header(), body: { op: 'range', ...read.value } });
  }

  /** Maintenance.Status: the member's view of leader, committed index and term. */
  private statusBody(): ResultBody {
    const stats = this.state.store.memoryStats();
    return {
      op: 'status',
      leader: this.lead === null ? this.member.noMember : this.member.memberIdOf(this.lead),
      raftIndex: BigInt(this.handedIndex),
      raftTerm: BigInt(this.appliedTerm),
      version: this.member.timing.version,
      // bbolt's file never shrinks below its initial pages; a rough per-version cost on top.
      dbSizeBytes: 20_480 + 96 * stats.keyVersions,
    };
  }

  // ---- apply ---------------------------------------------------------------------------------------

  private pumpApply(): void {
    if (this.applying) return;
    const entry = this.applyQueue[this.applyHead];
    if (entry === undefined) {
      this.applyQueue.length = 0;
      this.applyHead = 0;
      return;
    }
    this.applying = true;
    this.applier.run(this.member.timing.applyCostMs, () => {
      this.applying = false;
      this.applyHead++;
      this.apply(entry);
      this.pumpApply();
    });
  }

  /** etcd apply() / applyEntryNormal (server.go l.2203-2221), for one entry, in index order. */
  private apply(entry: LogEntry<EtcdEntry>): void {
    // Raft hands committed entries over in index order from the snapshot or WAL on: an entry out of order
    // or after a gap is a bug of the simulator, whose state would then differ from every other member's.
    assert(entry.index === this.appliedIndex + 1, () => `member ${this.member.name}: apply of entry ${entry.index} after entry ${this.appliedIndex}: entries apply in order, with no gap`);
    const headerTerm = this.appliedTerm;
    if (entry.type === 'normal' && entry.data === null) {
      this.reads.onFirstCommitInTerm();
      if (this.isLeader()) {
        this.state.lessor.promote(this.member.timing.promoteExtendMs, this.member.process.localNow());
        this.trace('etcd.lease.promote', { leases: this.state.lessor.leases().length, term: entry.term });
        this.leases.onPromote();
      }
    }
    if (entry.type === 'normal' && entry.data !== null) {
      const { requestId, request } = entry.data;
      const outcome = applyRequest(this.state, request, this.member.process.localNow());
      this.traceLeaseApply(request, outcome.ok);
      this.finishApply(entry);
      if (request.kind === 'lease-revoke') this.leases.onRevoked();
      this.member.noteApplied(entry);
      this.proposals.onApplied(requestId, outcome, headerTerm);
      return;
    }
    this.finishApply(entry);
    this.member.noteApplied(entry);
  }

  private finishApply(entry: LogEntry<EtcdEntry>): void {
    this.appliedIndex = entry.index;
    this.appliedTerm = entry.term;
    if (this.applyWaits.length === 0) return;
    const ready = this.applyWaits.filter((wait) => wait.index <= entry.index);
    if (ready.length === 0) return;
    this.applyWaits = this.applyWaits.filter((wait) => wait.index > entry.index);
    for (const wait of ready) {
      if (wait.timer >= 0) this.member.process.cancelTimer(wait.timer);
      wait.done(true);
    }
  }

  private traceLeaseApply(request: EtcdEntry['request'], ok: boolean): void {
    if (request.kind === 'lease-grant') this.trace('etcd.lease.grant', { id: request.id, ok, ttlSeconds: request.ttlSeconds });
    else if (request.kind === 'lease-revoke') this.trace('etcd.lease.revoke', { id: request.id, ok });
  }
}

