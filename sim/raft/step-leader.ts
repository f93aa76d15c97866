// The leader's step function (etcd raft.go stepLeader, 3.4.23); its ReadIndex part is in read-index.ts.
import type { MsgAppResp, MsgHeartbeatResp, RaftMessage } from './message.js';
import type { Progress } from './progress.js';
import type { RaftCore } from './raft.js';
import { ackReadIndex, releasePendingReadIndex, stepReadIndex } from './read-index.js';
import { appendEntries, bcastAppend, maybeCommit, sendAppend } from './replication.js';

export function stepLeader<D>(r: RaftCore<D>, m: RaftMessage<D>): void {
  switch (m.type) {
    case 'MsgProp':
      // A proposal forwarded by a follower; etcd drops it (silently, for the forwarder) during a transfer.
      if (r.leadTransferee !== null) {
        r.record('raft.propose.not-appended', { kind: 'dropped', reason: 'leader-transfer', from: m.from });
        return;
      }
      r.record('raft.propose', { from: m.from, index: appendEntries(r, m.data), term: r.term });
      bcastAppend(r);
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

function stepAppResp<D>(r: RaftCore<D>, m: MsgAppResp, pr: Progress): void {
  pr.recentActive = true;
  if (m.reject) {
    if (pr.maybeDecrTo(m.index, m.rejectHint)) {
      if (pr.state === 'replicate') pr.becomeProbe();
      sendAppend(r, m.from);
    }
    return;
  }
  const wasPaused = pr.isPaused();
  if (!pr.maybeUpdate(m.index)) return;
  if (pr.state === 'probe') pr.becomeReplicate();
  else pr.inflights.freeLE(m.index);
  if (maybeCommit(r)) {
    releasePendingReadIndex(r);
    bcastAppend(r);
  } else if (wasPaused) {
    sendAppend(r, m.from);
  }
  // Send what the freed window allows, without empty messages (etcd: for maybeSendAppend(to, false)).
  while (sendAppend(r, m.from, false)) {
    // each call sends one size-limited MsgApp
  }
  if (m.from === r.leadTransferee && pr.match === r.log.lastIndex()) r.sendTimeoutNow(m.from);
}

function stepHeartbeatResp<D>(r: RaftCore<D>, m: MsgHeartbeatResp, pr: Progress): void {
  pr.recentActive = true;
  pr.probeSent = false;
  if (pr.state === 'replicate' && pr.inflights.full()) pr.inflights.freeFirstOne();
  if (pr.match < r.log.lastIndex()) sendAppend(r, m.from);
  ackReadIndex(r, m);
}
