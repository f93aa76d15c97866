// One member's Raft state machine, as etcd 3.4.23 runs it (raft/raft.go): synchronous and pure apart
// from its election-timeout stream and trace hook. Inputs are ticks, messages and local requests;
// outputs pile up in `msgs`, `readStates`, the log's unstable entries and the commit index, and leave
// through a Ready (ready.ts), which the node (node.ts) persists and sends.
//
// Step functions per role are in step-leader.ts and step-others.ts, as in etcd. Not modelled:
// snapshots and log compaction (MsgSnap), configuration changes, learners, ReadOnlyLeaseBased.
import type { RandomStream } from '../kernel/rng.js';
import type { RaftConfig } from './config.js';
import type { MsgReadIndex, MsgVote, RaftMessage } from './message.js';
import { Progress } from './progress.js';
import { RaftLog } from './raft-log.js';
import { ReadOnly } from './read-only.js';
import { stepLeader, sendReadIndexResponse } from './step-leader.js';
import { stepCandidate, stepFollower } from './step-others.js';
import { EMPTY_HARD_STATE, sameHardState, type HardState, type LogEntry, type MemberId, type RaftRole, type ReadState, type SoftState } from './types.js';

export type ProposeOutcome =
  /** The leader appended the entry (not yet durable, not yet committed). */
  | { readonly kind: 'appended'; readonly index: number; readonly term: number }
  /** A follower forwarded it as MsgProp to `leader`; it may be lost silently, as in etcd. */
  | { readonly kind: 'forwarded'; readonly leader: MemberId }
  /** etcd ErrProposalDropped: the leader is transferring leadership. */
  | { readonly kind: 'dropped'; readonly reason: 'leader-transfer' }
  /** No leader known (follower without leader, candidate): etcd blocks Propose; the caller holds it. */
  | { readonly kind: 'no-leader' };

export type ReadIndexOutcome =
  /** The leader will answer through a ReadState (at once for a single voter). */
  | { readonly kind: 'pending' }
  | { readonly kind: 'forwarded'; readonly leader: MemberId }
  /** No leader known (etcd drops MsgReadIndex; the caller retries, etcd every 500 ms). */
  | { readonly kind: 'dropped' };

export type TransferOutcome = { readonly kind: 'started' } | { readonly kind: 'ignored'; readonly reason: string };

export type TraceHook = (kind: string, fields: Record<string, unknown>) => void;

export interface RaftCoreOptions<D> {
  readonly id: MemberId;
  readonly voters: readonly MemberId[];
  readonly config: RaftConfig;
  /** Draws the randomized election timeout ('raft/<member>/election'). */
  readonly random: RandomStream;
  readonly record: TraceHook;
  /** Approximate encoded size of an entry, for MaxSizePerMsg. */
  readonly entryBytes: (entry: LogEntry<D>) => number;
  /** Recovered from the WAL; empty for a fresh member. */
  readonly hardState: HardState;
  readonly entries: readonly LogEntry<D>[];
  /**
   * A fresh member (nothing recovered) bootstraps as etcd StartNode does: term 1, one committed
   * ConfChangeAddNode entry per voter, so the first election is for term 2.
   */
  readonly bootstrap: boolean;
  /** Index the member's state machine has applied already (entries after it are handed out again). */
  readonly applied: number;
}

export class RaftCore<D> {
  readonly id: MemberId;
  /** Every voter, sorted (etcd visits progress in id order). */
  readonly voters: readonly MemberId[];
  readonly peers: readonly MemberId[];
  readonly config: RaftConfig;
  readonly log: RaftLog<D>;
  readonly entryBytes: (entry: LogEntry<D>) => number;
  readonly record: TraceHook;
  term: number;
  vote: MemberId | null;
  lead: MemberId | null = null;
  role: RaftRole = 'follower';
  readonly progress = new Map<MemberId, Progress>();
  electionElapsed = 0;
  heartbeatElapsed = 0;
  randomizedElectionTimeout: number;
  leadTransferee: MemberId | null = null;
  readOnly = new ReadOnly();
  /** MsgReadIndex postponed until the leader commits an entry of its term. */
  pendingReadIndex: MsgReadIndex[] = [];
  msgs: RaftMessage<D>[] = [];
  readStates: ReadState[] = [];
  private readonly votes = new Map<MemberId, boolean>();
  private readonly random: RandomStream;
  private recordedCommit: number;
  private readonly matchScratch: number[] = [];

  constructor(options: RaftCoreOptions<D>) {
    this.id = options.id;
    this.voters = [...new Set(options.voters)].sort();
    if (!this.voters.includes(this.id)) throw new Error(`RaftCore: member ${this.id} is not among the voters ${this.voters.join(', ')}`);
    this.peers = this.voters.filter((voter) => voter !== this.id);
    this.config = options.config;
    this.random = options.random;
    this.record = options.record;
    this.entryBytes = options.entryBytes;
    const fresh = options.bootstrap && options.entries.length === 0 && sameHardState(options.hardState, EMPTY_HARD_STATE);
    this.log = new RaftLog(options.entries, options.hardState.commit, options.applied);
    this.term = options.hardState.term;
    this.vote = options.hardState.vote;
    if (fresh) this.bootstrap();
    this.recordedCommit = this.log.committed;
    this.randomizedElectionTimeout = this.config.electionTicks;
    for (const voter of this.voters) this.progress.set(voter, new Progress(1, this.config.maxInflightMsgs));
    this.becomeFollower(this.term, null);
  }

  /** etcd RawNode.Bootstrap: term 1, ConfChangeAddNode for each voter in id order, unstable but committed. */
  private bootstrap(): void {
    this.term = 1;
    this.log.append(this.voters.map((member, i): LogEntry<D> => ({ type: 'conf-change', index: i + 1, term: 1, addMember: member })));
    this.log.commitTo(this.voters.length);
  }

  get quorum(): number {
    return Math.floor(this.voters.length / 2) + 1;
  }

  hardState(): HardState {
    return { term: this.term, vote: this.vote, commit: this.log.committed };
  }

  softState(): SoftState {
    return { lead: this.lead, role: this.role };
  }

  // ---- inputs -------------------------------------------------------------------------------

  /** One tick of the member's raft clock (etcd tickElection / tickHeartbeat). */
  tick(): void {
    if (this.role === 'leader') this.tickHeartbeat();
    else this.tickElection();
    this.noteCommit();
  }

  /** A message from another member. */
  step(m: RaftMessage<D>): void {
    this.stepMessage(m);
    this.noteCommit();
  }

  /** A local proposal (etcd node.Propose, with node.go's "no leader, no proposal" gate). */
  propose(data: D): ProposeOutcome {
    const outcome = this.proposeLocal(data);
    this.record(outcome.kind === 'appended' ? 'raft.propose' : 'raft.propose.not-appended', { ...outcome });
    this.noteCommit();
    return outcome;
  }

  /** A local linearizable read request (etcd node.ReadIndex). */
  readIndex(requestId: string): ReadIndexOutcome {
    const outcome = this.readIndexLocal(requestId);
    this.record('raft.read-index', { requestId, outcome: outcome.kind });
    return outcome;
  }

  /** etcd MsgTransferLeader at the leader (raft.go l.1233-1265). */
  transferLeadership(transferee: MemberId): TransferOutcome {
    if (this.role !== 'leader') return { kind: 'ignored', reason: 'not leader' };
    const pr = this.progress.get(transferee);
    if (pr === undefined || transferee === this.id) return { kind: 'ignored', reason: `${transferee} is not another voter` };
    if (this.leadTransferee === transferee) return { kind: 'ignored', reason: 'transfer to it already in progress' };
    this.leadTransferee = transferee;
    this.electionElapsed = 0;
    this.record('raft.transfer', { to: transferee, term: this.term });
    if (pr.match === this.log.lastIndex()) this.sendTimeoutNow(transferee);
    else this.sendAppend(transferee);
    return { kind: 'started' };
  }

  // ---- ticks --------------------------------------------------------------------------------

  private tickElection(): void {
    this.electionElapsed++;
    if (this.electionElapsed >= this.randomizedElectionTimeout) {
      this.electionElapsed = 0;
      this.hup(false);
    }
  }

  private tickHeartbeat(): void {
    this.heartbeatElapsed++;
    this.electionElapsed++;
    if (this.electionElapsed >= this.config.electionTicks) {
      this.electionElapsed = 0;
      this.checkQuorum();
      if (this.role === 'leader' && this.leadTransferee !== null) this.abortLeaderTransfer();
    }
    if (this.role !== 'leader') return;
    if (this.heartbeatElapsed >= this.config.heartbeatTicks) {
      this.heartbeatElapsed = 0;
      this.bcastHeartbeat(this.readOnly.lastPendingRequestId());
    }
  }

  /** etcd MsgCheckQuorum (raft.go l.1006-1027): step down unless a quorum was active this timeout. */
  private checkQuorum(): void {
    let active = 0;
    for (const [member, pr] of this.progress) if (member === this.id || pr.recentActive) active++;
    if (active < this.quorum) {
      this.record('raft.step-down', { active, term: this.term });
      this.becomeFollower(this.term, null);
    }
    for (const [member, pr] of this.progress) if (member !== this.id) pr.recentActive = false;
  }

  // ---- Step: term handling and votes (raft.go Step) ---------------------------------------

  private stepMessage(m: RaftMessage<D>): void {
    // Forwarded proposals and read requests carry term 0: local messages at the leader.
    if (m.type !== 'MsgProp' && m.type !== 'MsgReadIndex') {
      if (m.term > this.term && !this.acceptHigherTerm(m)) return;
      if (m.term < this.term) return this.stepLowerTerm(m);
    }
    if (m.type === 'MsgVote' || m.type === 'MsgPreVote') return this.handleVoteRequest(m);
    if (this.role === 'leader') stepLeader(this, m);
    else if (this.role === 'follower') stepFollower(this, m);
    else stepCandidate(this, m);
  }

  /** A message of a higher term; false if it is ignored (vote suppression by the leader lease). */
  private acceptHigherTerm(m: RaftMessage<D>): boolean {
    if (m.type === 'MsgVote' || m.type === 'MsgPreVote') {
      const inLease = this.config.checkQuorum && this.lead !== null && this.electionElapsed < this.config.electionTicks;
      if (!m.transfer && inLease) {
        this.record('raft.vote.ignored', { candidate: m.from, term: m.term, type: m.type });
        return false;
      }
    }
    if (m.type === 'MsgPreVote' || (m.type === 'MsgPreVoteResp' && !m.reject)) return true;
    const lead = m.type === 'MsgApp' || m.type === 'MsgHeartbeat' ? m.from : null;
    this.becomeFollower(m.term, lead);
    return true;
  }

  private stepLowerTerm(m: RaftMessage<D>): void {
    if (m.type === 'MsgHeartbeat' || m.type === 'MsgApp') {
      // etcd: tell a stale leader our higher term (CheckQuorum on), so it steps down; this is how a
      // partitioned member rejoining with a higher term disrupts the leader when PreVote is off.
      this.send({ type: 'MsgAppResp', from: this.id, to: m.from, term: this.term, index: 0, reject: false, rejectHint: 0 });
    } else if (m.type === 'MsgPreVote') {
      this.send({ type: 'MsgPreVoteResp', from: this.id, to: m.from, term: this.term, reject: true });
    }
  }

  private handleVoteRequest(m: MsgVote): void {
    const canVote = this.vote === m.from || (this.vote === null && this.lead === null) || (m.type === 'MsgPreVote' && m.term > this.term);
    const respType = m.type === 'MsgVote' ? 'MsgVoteResp' : 'MsgPreVoteResp';
    const granted = canVote && this.log.isUpToDate(m.index, m.logTerm);
    this.record('raft.vote', { candidate: m.from, granted, term: m.term, type: m.type });
    if (!granted) {
      this.send({ type: respType, from: this.id, to: m.from, term: this.term, reject: true });
      return;
    }
    // The reply carries the request's term (for a pre-vote, a term we have not reached).
    this.send({ type: respType, from: this.id, to: m.from, term: m.term, reject: false });
    if (m.type === 'MsgVote') {
      this.electionElapsed = 0;
      this.vote = m.from;
    }
  }

  // ---- elections ------------------------------------------------------------------------------

  /** etcd MsgHup; refused while committed configuration changes are not applied yet (raft.go hup). */
  hup(transfer: boolean): void {
    if (this.role === 'leader') return;
    if (this.log.committed > this.log.applied && this.log.slice(this.log.applied + 1, this.log.committed).some((e) => e.type === 'conf-change')) {
      this.record('raft.campaign.refused', { reason: 'pending conf change', term: this.term });
      return;
    }
    if (this.config.preVote && !transfer) this.campaign('pre-election');
    else this.campaign(transfer ? 'transfer' : 'election');
  }

  campaign(kind: 'pre-election' | 'election' | 'transfer'): void {
    const pre = kind === 'pre-election';
    if (pre) this.becomePreCandidate();
    else this.becomeCandidate();
    const term = pre ? this.term + 1 : this.term;
    this.record('raft.campaign', { kind, term });
    if (this.poll(this.id, true) === 'won') {
      if (pre) this.campaign('election');
      else this.becomeLeader();
      return;
    }
    const type = pre ? 'MsgPreVote' : 'MsgVote';
    for (const peer of this.peers) {
      this.send({ type, from: this.id, to: peer, term, index: this.log.lastIndex(), logTerm: this.log.lastTerm(), transfer: kind === 'transfer' });
    }
  }

  /** Records a vote (or pre-vote) and tallies: 'won', 'lost' or 'pending'. */
  poll(member: MemberId, granted: boolean): 'won' | 'lost' | 'pending' {
    if (!this.votes.has(member)) this.votes.set(member, granted);
    let yes = 0;
    let no = 0;
    for (const vote of this.votes.values()) if (vote) yes++; else no++;
    if (yes >= this.quorum) return 'won';
    if (no > this.voters.length - this.quorum) return 'lost';
    return 'pending';
  }

  becomeFollower(term: number, lead: MemberId | null): void {
    this.reset(term);
    this.lead = lead;
    this.setRole('follower');
  }

  private becomeCandidate(): void {
    if (this.role === 'leader') throw new Error('RaftCore: invalid transition leader -> candidate');
    this.reset(this.term + 1);
    this.vote = this.id;
    this.setRole('candidate');
  }

  /** Changes neither term nor vote, and (as in etcd) does not re-draw the election timeout. */
  private becomePreCandidate(): void {
    if (this.role === 'leader') throw new Error('RaftCore: invalid transition leader -> pre-candidate');
    this.votes.clear();
    this.lead = null;
    this.setRole('pre-candidate');
  }

  becomeLeader(): void {
    if (this.role === 'follower') throw new Error('RaftCore: invalid transition follower -> leader');
    this.reset(this.term);
    this.lead = this.id;
    this.setRole('leader');
    const self = this.progress.get(this.id)!;
    self.becomeReplicate();
    self.recentActive = true;
    this.record('raft.elect', { lastIndex: this.log.lastIndex(), term: this.term });
    // The empty entry of the new term: committing it commits everything before it (Raft §5.4.2).
    this.appendEntries([null]);
  }

  private setRole(role: RaftRole): void {
    this.role = role;
    this.record('raft.become', { lead: this.lead, role, term: this.term });
  }

  /** etcd reset(term): new term clears the vote; timers, votes, progress and reads start over. */
  private reset(term: number): void {
    if (this.term !== term) {
      this.record('raft.term', { from: this.term, term });
      this.term = term;
      this.vote = null;
    }
    this.lead = null;
    this.electionElapsed = 0;
    this.heartbeatElapsed = 0;
    this.randomizedElectionTimeout = this.config.electionTicks + this.random.int(0, this.config.electionTicks - 1);
    this.abortLeaderTransfer();
    this.votes.clear();
    const lastIndex = this.log.lastIndex();
    for (const voter of this.voters) {
      const pr = new Progress(lastIndex + 1, this.config.maxInflightMsgs);
      if (voter === this.id) pr.match = lastIndex;
      this.progress.set(voter, pr);
    }
    this.readOnly = new ReadOnly();
    this.pendingReadIndex = [];
  }

  abortLeaderTransfer(): void {
    this.leadTransferee = null;
  }

  // ---- replication (leader side) ------------------------------------------------------------

  /**
   * etcd appendEntry: the leader appends and counts itself at once, before its own fsync
   * (etcd-behaviour 3.2), then tries to commit.
   */
  appendEntries(data: readonly (D | null)[]): number {
    let index = this.log.lastIndex();
    const entries = data.map((item): LogEntry<D> => ({ type: 'normal', index: ++index, term: this.term, data: item }));
    const last = this.log.append(entries);
    this.progress.get(this.id)!.maybeUpdate(last);
    this.maybeCommit();
    return last;
  }

  /** Commits the highest index a quorum has matched, if it is of the current term. */
  maybeCommit(): boolean {
    // The quorum-th highest match, found by an insertion sort into a reused array: this runs on every
    // append response, and the voters are few.
    const matches = this.matchScratch;
    let count = 0;
    for (const voter of this.voters) {
      const match = this.progress.get(voter)!.match;
      let at = count++;
      while (at > 0 && matches[at - 1]! < match) {
        matches[at] = matches[at - 1]!;
        at--;
      }
      matches[at] = match;
    }
    return this.log.maybeCommit(matches[this.quorum - 1]!, this.term);
  }

  bcastAppend(): void {
    for (const peer of this.peers) this.sendAppend(peer);
  }

  /** etcd maybeSendAppend: false if paused, or if there is nothing to send and `sendIfEmpty` is off. */
  sendAppend(to: MemberId, sendIfEmpty = true): boolean {
    const pr = this.progress.get(to)!;
    if (pr.isPaused()) return false;
    const prevIndex = pr.next - 1;
    const prevTerm = this.log.term(prevIndex);
    if (prevTerm === undefined) throw new Error(`RaftCore: progress of ${to} points past the log (next ${pr.next}, last ${this.log.lastIndex()})`);
    const entries = this.log.entriesFrom(pr.next, this.config.maxSizePerMsgBytes, this.entryBytes);
    if (entries.length === 0 && !sendIfEmpty) return false;
    const last = entries[entries.length - 1];
    if (last !== undefined) {
      if (pr.state === 'replicate') {
        pr.optimisticUpdate(last.index);
        pr.inflights.add(last.index);
      } else {
        pr.probeSent = true;
      }
    }
    this.send({ type: 'MsgApp', from: this.id, to, term: this.term, index: prevIndex, logTerm: prevTerm, entries, commit: this.log.committed });
    return true;
  }

  bcastHeartbeat(context: string | null): void {
    for (const peer of this.peers) {
      const commit = Math.min(this.progress.get(peer)!.match, this.log.committed);
      this.send({ type: 'MsgHeartbeat', from: this.id, to: peer, term: this.term, commit, context });
    }
  }

  sendTimeoutNow(to: MemberId): void {
    this.send({ type: 'MsgTimeoutNow', from: this.id, to, term: this.term });
  }

  committedEntryInCurrentTerm(): boolean {
    return this.log.term(this.log.committed) === this.term;
  }

  /** Answers the ReadIndex requests postponed until the leader's first commit in its term. */
  releasePendingReadIndex(): void {
    if (!this.committedEntryInCurrentTerm()) return;
    const pending = this.pendingReadIndex;
    this.pendingReadIndex = [];
    for (const m of pending) sendReadIndexResponse(this, m);
  }

  send(m: RaftMessage<D>): void {
    this.msgs.push(m);
  }

  // ---- local requests ---------------------------------------------------------------------

  private proposeLocal(data: D): ProposeOutcome {
    if (this.lead === null) return { kind: 'no-leader' };
    if (this.role !== 'leader') {
      this.send({ type: 'MsgProp', from: this.id, to: this.lead, term: 0, data: [data] });
      return { kind: 'forwarded', leader: this.lead };
    }
    if (this.leadTransferee !== null) return { kind: 'dropped', reason: 'leader-transfer' };
    const index = this.appendEntries([data]);
    this.bcastAppend();
    return { kind: 'appended', index, term: this.term };
  }

  private readIndexLocal(requestId: string): ReadIndexOutcome {
    const m: MsgReadIndex = { type: 'MsgReadIndex', from: this.id, to: this.lead ?? this.id, term: 0, context: requestId };
    if (this.role === 'leader') {
      stepLeader(this, m);
      return { kind: 'pending' };
    }
    if (this.role !== 'follower' || this.lead === null) return { kind: 'dropped' };
    this.send(m);
    return { kind: 'forwarded', leader: this.lead };
  }

  private noteCommit(): void {
    if (this.log.committed === this.recordedCommit) return;
    this.recordedCommit = this.log.committed;
    this.record('raft.commit', { index: this.log.committed, term: this.log.term(this.log.committed) });
  }
}

