// Elections in etcd 3.4.23's raft (raft/raft.go): Step's term rules, vote and pre-vote requests, and
// campaigns (hup, campaign, poll). The role transitions they drive (becomeFollower, becomeCandidate,
// becomePreCandidate, becomeLeader, reset) are RaftCore's own, in raft.ts.
import type { MsgVote, RaftMessage } from './message.js';
import type { RaftCore } from './raft.js';
import type { MemberId } from './types.js';

export type CampaignKind = 'pre-election' | 'election' | 'transfer';

/** Step's term handling (raft.go Step): false if the message goes no further. */
export function stepTerm<D>(r: RaftCore<D>, m: RaftMessage<D>): boolean {
  // Forwarded proposals and read requests carry term 0: local messages at the leader.
  if (m.type === 'MsgProp' || m.type === 'MsgReadIndex') return true;
  if (m.term > r.term && !acceptHigherTerm(r, m)) return false;
  if (m.term < r.term) {
    stepLowerTerm(r, m);
    return false;
  }
  return true;
}

/** A message of a higher term; false if it is ignored (vote suppression by the leader lease, raft.go l.843-853). */
function acceptHigherTerm<D>(r: RaftCore<D>, m: RaftMessage<D>): boolean {
  if (m.type === 'MsgVote' || m.type === 'MsgPreVote') {
    const inLease = r.config.checkQuorum && r.lead !== null && r.electionElapsed < r.config.electionTicks;
    if (!m.transfer && inLease) {
      r.record('raft.vote.ignored', { candidate: m.from, term: m.term, type: m.type });
      return false;
    }
  }
  if (m.type === 'MsgPreVote' || (m.type === 'MsgPreVoteResp' && !m.reject)) return true;
  const lead = m.type === 'MsgApp' || m.type === 'MsgHeartbeat' ? m.from : null;
  r.becomeFollower(m.term, lead);
  return true;
}

function stepLowerTerm<D>(r: RaftCore<D>, m: RaftMessage<D>): void {
  if (m.type === 'MsgHeartbeat' || m.type === 'MsgApp') {
    // etcd: tell a stale leader our higher term (CheckQuorum on), so it steps down; this is how a
    // partitioned member rejoining with a higher term disrupts the leader when PreVote is off.
    r.send({ type: 'MsgAppResp', from: r.id, to: m.from, term: r.term, index: 0, reject: false, rejectHint: 0 });
  } else if (m.type === 'MsgPreVote') {
    r.send({ type: 'MsgPreVoteResp', from: r.id, to: m.from, term: r.term, reject: true });
  }
}

export function handleVoteRequest<D>(r: RaftCore<D>, m: MsgVote): void {
  const canVote = r.vote === m.from || (r.vote === null && r.lead === null) || (m.type === 'MsgPreVote' && m.term > r.term);
  const respType = m.type === 'MsgVote' ? 'MsgVoteResp' : 'MsgPreVoteResp';
  const granted = canVote && r.log.isUpToDate(m.index, m.logTerm);
  r.record('raft.vote', { candidate: m.from, granted, term: m.term, type: m.type });
  if (!granted) {
    r.send({ type: respType, from: r.id, to: m.from, term: r.term, reject: true });
    return;
  }
  // The reply carries the request's term (for a pre-vote, a term we have not reached).
  r.send({ type: respType, from: r.id, to: m.from, term: m.term, reject: false });
  if (m.type === 'MsgVote') {
    r.electionElapsed = 0;
    r.vote = m.from;
  }
}

/** etcd MsgHup; refused while committed configuration changes are not applied yet (raft.go hup). */
export function hup<D>(r: RaftCore<D>, transfer: boolean): void {
  if (r.role === 'leader') return;
  if (r.log.committed > r.log.applied && r.log.slice(r.log.applied + 1, r.log.committed).some((e) => e.type === 'conf-change')) {
    r.record('raft.campaign.refused', { reason: 'pending conf change', term: r.term });
    return;
  }
  if (r.config.preVote && !transfer) campaign(r, 'pre-election');
  else campaign(r, transfer ? 'transfer' : 'election');
}

export function campaign<D>(r: RaftCore<D>, kind: CampaignKind): void {
  const pre = kind === 'pre-election';
  if (pre) r.becomePreCandidate();
  else r.becomeCandidate();
  const term = pre ? r.term + 1 : r.term;
  r.record('raft.campaign', { kind, term });
  if (poll(r, r.id, true) === 'won') {
    if (pre) campaign(r, 'election');
    else r.becomeLeader();
    return;
  }
  const type = pre ? 'MsgPreVote' : 'MsgVote';
  for (const peer of r.peers) {
    r.send({ type, from: r.id, to: peer, term, index: r.log.lastIndex(), logTerm: r.log.lastTerm(), transfer: kind === 'transfer' });
  }
}

/** Records a vote (or pre-vote) and tallies: 'won', 'lost' or 'pending'. */
export function poll<D>(r: RaftCore<D>, member: MemberId, granted: boolean): 'won' | 'lost' | 'pending' {
  if (!r.votes.has(member)) r.votes.set(member, granted);
  let yes = 0;
  let no = 0;
  for (const vote of r.votes.values()) if (vote) yes++; else no++;
  if (yes >= r.quorum) return 'won';
  if (no > r.voters.length - r.quorum) return 'lost';
  return 'pending';
}
