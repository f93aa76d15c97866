// One member's Raft state machine, as etcd 3.4.23 runs it (raft/raft.go): synchronous and pure apart
// from its election-timeout stream and trace hook. Inputs are ticks, messages and local requests;
// outputs pile up in `msgs`, `readStates`, the log's unstable entries and the commit index, and leave
// through a Ready (ready.ts), which the node (node.ts) persists and sends.
//
// This file holds the member's state, its inputs, ticks, role transitions and leadership transfer.
// Step functions per role are in step-leader.ts and step-others.ts, as in etcd; Step's term rules,
// votes and campaigns in elections.ts; the leader's appends, commit and sends in replication.ts;
// ReadIndex in read-index.ts. Not modelled: snapshots and log compaction (MsgSnap), configuration
// changes, learners, ReadOnlyLeaseBased.
import { assert } from '../../core/assert.js';
import type { RandomStream } from '../kernel/rng.js';
import type { RaftConfig } from './config.js';
import { handleVoteRequest, hup, stepTerm } from './elections.js';
import type { MsgReadIndex, RaftMessage } from './message.js';
import { Progress } from './progress.js';
import { type LogStart, RaftLog } from './raft-log.js';
import { readIndexLocal, type ReadIndexOutcome } from './read-index.js';
import { ReadOnly } from './read-only.js';
import { appendEntries, bcastAppend, bcastHeartbeat, sendAppend } from './replication.js';
import { stepLeader } from './step-leader.js';
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
  /** The snapshot the entries follow (the WAL's last snapshot record); absent: the log starts at 1. */
  readonly start?: LogStart;
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
  /** The (pre-)votes of the current campaign, granted or not (tallied by poll, elections.ts). */
  readonly votes = new Map<MemberId, boolean>();
  /** Reused by maybeCommit (replication.ts), which runs on every append response. */
  readonly matchScratch: number[] = [];
  private readonly random: RandomStream;
  private recordedCommit: number;

  constructor(options: RaftCoreOptions<D>) {
    this.id = options.id;
    this.voters = [...new Set(options.voters)].sort();
    if (!this.voters.includes(this.id)) throw new Error(`RaftCore: member ${this.id} is not among the voters ${this.voters.join(', ')}`);
    this.peers = this.voters.filter((voter) => voter !== this.id);
    this.config = options.config;
    this.random = options.random;
    this.record = options.record;
    this.entryBytes = options.entryBytes;
    const fresh = options.bootstrap && options.entries.length === 0 && options.start === undefined && sameHardState(options.hardState, EMPTY_HARD_STATE);
    this.log = new RaftLog(options.entries, options.hardState.commit, options.applied, options.start);
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

  /**
   * etcd MsgUnreachable at the leader (raft.go stepLeader): "if the remote becomes unreachable, there is huge
   * probability that a MsgApp is lost", so a peer in optimistic replication goes back to probing. While it
   * is down the leader then sends it one MsgApp per heartbeat answer rather than a window of them, and when
   * it restarts the leader resumes from its match instead of past what the dead peer ever took.
   */
  reportUnreachable(peer: MemberId): void {
    const pr = this.role === 'leader' && peer !== this.id ? this.progress.get(peer) : undefined;
    if (pr?.state !== 'replicate') return;
    pr.becomeProbe();
    this.record('raft.unreachable', { peer, next: pr.next });
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
    const outcome = readIndexLocal(this, requestId);
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
    else sendAppend(this, transferee);
    return { kind: 'started' };
  }

  // ---- ticks --------------------------------------------------------------------------------

  private tickElection(): void {
    this.electionElapsed++;
    if (this.electionElapsed >= this.randomizedElectionTimeout) {
      this.electionElapsed = 0;
      hup(this, false);
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
      bcastHeartbeat(this, this.readOnly.lastPendingRequestId());
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

  // ---- Step (raft.go Step): term rules and votes in elections.ts, then the role's step ----------

  private stepMessage(m: RaftMessage<D>): void {
    if (!stepTerm(this, m)) return;
    if (m.type === 'MsgVote' || m.type === 'MsgPreVote') return handleVoteRequest(this, m);
    if (this.role === 'leader') stepLeader(this, m);
    else if (this.role === 'follower') stepFollower(this, m);
    else stepCandidate(this, m);
  }

  // ---- role transitions -----------------------------------------------------------------------

  becomeFollower(term: number, lead: MemberId | null): void {
    this.reset(term);
    this.lead = lead;
    this.setRole('follower');
  }

  becomeCandidate(): void {
    assert(this.role !== 'leader', 'RaftCore: invalid transition leader -> candidate');
    this.reset(this.term + 1);
    this.vote = this.id;
    this.setRole('candidate');
  }

  /** Changes neither term nor vote, and (as in etcd) does not re-draw the election timeout. */
  becomePreCandidate(): void {
    assert(this.role !== 'leader', 'RaftCore: invalid transition leader -> pre-candidate');
    this.votes.clear();
    this.lead = null;
    this.setRole('pre-candidate');
  }

  becomeLeader(): void {
    assert(this.role !== 'follower', 'RaftCore: invalid transition follower -> leader');
    this.reset(this.term);
    this.lead = this.id;
    this.setRole('leader');
    const self = this.progress.get(this.id)!;
    self.becomeReplicate();
    self.recentActive = true;
    this.record('raft.elect', { lastIndex: this.log.lastIndex(), term: this.term });
    // The empty entry of the new term: committing it commits everything before it (Raft §5.4.2).
    appendEntries(this, [null]);
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

  // ---- leadership transfer: started by transferLeadership, aborted by reset and by tickHeartbeat
  // after an election timeout (raft.go l.684-687); proposals are dropped meanwhile.

  abortLeaderTransfer(): void {
    this.leadTransferee = null;
  }

  sendTimeoutNow(to: MemberId): void {
    this.send({ type: 'MsgTimeoutNow', from: this.id, to, term: this.term });
  }

  // ---- outputs and local requests -------------------------------------------------------------

  send(m: RaftMessage<D>): void {
    this.msgs.push(m);
  }

  private proposeLocal(data: D): ProposeOutcome {
    if (this.lead === null) return { kind: 'no-leader' };
    if (this.role !== 'leader') {
      this.send({ type: 'MsgProp', from: this.id, to: this.lead, term: 0, data: [data] });
      return { kind: 'forwarded', leader: this.lead };
    }
    if (this.leadTransferee !== null) return { kind: 'dropped', reason: 'leader-transfer' };
    const index = appendEntries(this, [data]);
    bcastAppend(this);
    return { kind: 'appended', index, term: this.term };
  }

  private noteCommit(): void {
    if (this.log.committed === this.recordedCommit) return;
    this.recordedCommit = this.log.committed;
    this.record('raft.commit', { index: this.log.committed, term: this.log.term(this.log.committed) });
  }
}

