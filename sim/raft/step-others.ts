// Step functions of followers and (pre-)candidates (etcd raft.go stepFollower, stepCandidate, 3.4.23).
import type { MsgApp, MsgHeartbeat, RaftMessage } from './message.js';
import { campaign, hup, poll } from './elections.js';
import type { RaftCore } from './raft.js';
import { bcastAppend } from './replication.js';

export function stepFollower<D>(r: RaftCore<D>, m: RaftMessage<D>): void {
  switch (m.type) {
    case 'MsgProp':
      // Forwarded again if we know a leader; otherwise lost (etcd ErrProposalDropped at this member).
      if (r.lead === null) r.record('raft.propose.not-appended', { kind: 'no-leader', from: m.from });
      else r.send({ ...m, to: r.lead });
      return;
    case 'MsgApp':
      r.electionElapsed = 0;
      r.lead = m.from;
      return handleAppend(r, m);
    case 'MsgHeartbeat':
      r.electionElapsed = 0;
      r.lead = m.from;
      return handleHeartbeat(r, m);
    case 'MsgTimeoutNow':
      r.record('raft.timeout-now', { from: m.from, term: r.term });
      hup(r, true);
      return;
    case 'MsgReadIndex':
      if (r.lead === null) r.record('raft.read-index.dropped', { from: m.from, requestId: m.context });
      else r.send({ ...m, to: r.lead });
      return;
    case 'MsgReadIndexResp':
      r.readStates.push({ requestId: m.context, index: m.index });
      return;
    default:
      return;
  }
}

export function stepCandidate<D>(r: RaftCore<D>, m: RaftMessage<D>): void {
  const myVoteResp = r.role === 'pre-candidate' ? 'MsgPreVoteResp' : 'MsgVoteResp';
  switch (m.type) {
    case 'MsgProp':
      r.record('raft.propose.not-appended', { kind: 'no-leader', from: m.from });
      return;
    case 'MsgApp':
      r.becomeFollower(m.term, m.from);
      return handleAppend(r, m);
    case 'MsgHeartbeat':
      r.becomeFollower(m.term, m.from);
      return handleHeartbeat(r, m);
    case 'MsgVoteResp':
    case 'MsgPreVoteResp': {
      if (m.type !== myVoteResp) return;
      const result = poll(r, m.from, !m.reject);
      if (result === 'won') {
        if (r.role === 'pre-candidate') {
          campaign(r, 'election');
          return;
        }
        r.becomeLeader();
        bcastAppend(r);
      } else if (result === 'lost') {
        r.becomeFollower(r.term, null);
      }
      return;
    }
    default:
      return;
  }
}

function handleAppend<D>(r: RaftCore<D>, m: MsgApp<D>): void {
  if (m.index < r.log.committed) {
    r.send({ type: 'MsgAppResp', from: r.id, to: m.from, term: r.term, index: r.log.committed, reject: false, rejectHint: 0 });
    return;
  }
  const lastNew = r.log.maybeAppend(m.index, m.logTerm, m.commit, m.entries);
  if (lastNew !== undefined) {
    r.send({ type: 'MsgAppResp', from: r.id, to: m.from, term: r.term, index: lastNew, reject: false, rejectHint: 0 });
  } else {
    r.send({ type: 'MsgAppResp', from: r.id, to: m.from, term: r.term, index: m.index, reject: true, rejectHint: r.log.lastIndex() });
  }
}

function handleHeartbeat<D>(r: RaftCore<D>, m: MsgHeartbeat): void {
  r.log.commitTo(m.commit);
  r.send({ type: 'MsgHeartbeatResp', from: r.id, to: m.from, term: r.term, context: m.context });
}
