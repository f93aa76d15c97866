// The leader's step function (etcd raft.go stepLeader, 3.4.23).
import type { MsgAppResp, MsgHeartbeatResp, MsgReadIndex, RaftMessage } from './message.js';
import type { Progress } from './progress.js';
import type { RaftCore } from './raft.js';

export function stepLeader<D>(r: RaftCore<D>, m: RaftMessage<D>): void {
  switch (m.type) {
    case 'MsgProp':
      // A proposal forwarded by a follower; etcd drops it (silently, for the forwarder) during a transfer.
      if (r.leadTransferee !== null) {
        r.record('raft.propose.not-appended', { kind: 'dropped', reason: 'leader-transfer', from: m.from });
        return;
      }
      r.record('raft.propose', { from: m.from, index: r.appendEntries(m.data), term: r.term });
      r.bcastAppend();
      return;
    case 'MsgReadIndex':
      return stepReadIndex(r, m);
    case 'MsgAppResp':
      return withProgress(r, m.from, (pr) => stepAppResp(r, m, pr));
    case 'MsgHeartbeatResp':
      return withProgress(r, m.from, (pr) => stepHeartbeatResp(r, m, pr));
    default:
      // Votes were handled in Step; another leader of this term cannot exist; the rest is for others.
      return;
  }
}

function withProgress<D>(r: RaftCore<D>, from: string, step: (pr: Progress) => void): void {
  const pr = r.progress.get(from);
  if (pr !== undefined && from !== r.id) step(pr);
}

function stepReadIndex<D>(r: RaftCore<D>, m: MsgReadIndex): void {
  if (r.voters.length === 1) {
    respondToReadIndex(r, m, r.log.committed);
    return;
  }
  // etcd-behaviour 2.3: postponed until the leader has committed an entry of its term.
  if (!r.committedEntryInCurrentTerm()) {
    r.pendingReadIndex.push(m);
    return;
  }
  sendReadIndexResponse(r, m);
}

/** ReadOnlySafe: remember the commit index, ack ourselves, confirm leadership with a heartbeat round. */
export function sendReadIndexResponse<D>(r: RaftCore<D>, m: MsgReadIndex): void {
  r.readOnly.addRequest(r.log.committed, { from: m.from, requestId: m.context });
  r.readOnly.recvAck(r.id, m.context);
  r.bcastHeartbeat(m.context);
}

function respondToReadIndex<D>(r: RaftCore<D>, m: { readonly from: string; readonly context: string }, index: number): void {
  if (m.from === r.id) {
    r.readStates.push({ requestId: m.context, index });
    return;
  }
  r.send({ type: 'MsgReadIndexResp', from: r.id, to: m.from, term: r.term, index, context: m.context });
}

function stepAppResp<D>(r: RaftCore<D>, m: MsgAppResp, pr: Progress): void {
  pr.recentActive = true;
  if (m.reject) {
    if (pr.maybeDecrTo(m.index, m.rejectHint)) {
      if (pr.state === 'replicate') pr.becomeProbe();
      r.sendAppend(m.from);
    }
    return;
  }
  const wasPaused = pr.isPaused();
  if (!pr.maybeUpdate(m.index)) return;
  if (pr.state === 'probe') pr.becomeReplicate();
  else pr.inflights.freeLE(m.index);
  if (r.maybeCommit()) {
    r.releasePendingReadIndex();
    r.bcastAppend();
  } else if (wasPaused) {
    r.sendAppend(m.from);
  }
  // Send what the freed window allows, without empty messages (etcd: for maybeSendAppend(to, false)).
  while (r.sendAppend(m.from, false)) {
    // each call sends one size-limited MsgApp
  }
  if (m.from === r.leadTransferee && pr.match === r.log.lastIndex()) r.sendTimeoutNow(m.from);
}

function stepHeartbeatResp<D>(r: RaftCore<D>, m: MsgHeartbeatResp, pr: Progress): void {
  pr.recentActive = true;
  pr.probeSent = false;
  if (pr.state === 'replicate' && pr.inflights.full()) pr.inflights.freeFirstOne();
  if (pr.match < r.log.lastIndex()) r.sendAppend(m.from);
  if (m.context === null) return;
  const acks = r.readOnly.recvAck(m.from, m.context);
  if (acks === undefined || acks.size < r.quorum) return;
  for (const status of r.readOnly.advance(m.context)) {
    respondToReadIndex(r, { from: status.request.from, context: status.request.requestId }, status.index);
  }
}
