// ReadIndex in etcd 3.4.23's raft (raft/raft.go l.1087-1106 at the leader, l.1356-1362 at a follower;
// ReadOnlySafe): a local request goes to the leader's step, is forwarded by a follower that knows a
// leader, or is dropped. The leader postpones requests until it has committed an entry of its term,
// then confirms its leadership with a heartbeat round; ReadOnly (read-only.ts) counts the acks.
import type { MsgHeartbeatResp, MsgReadIndex } from './message.js';
import type { RaftCore } from './raft.js';
import { bcastHeartbeat } from './replication.js';
import type { MemberId } from './types.js';

export type ReadIndexOutcome =
  /** The leader will answer through a ReadState (at once for a single voter). */
  | { readonly kind: 'pending' }
  | { readonly kind: 'forwarded'; readonly leader: MemberId }
  /** No leader known (etcd drops MsgReadIndex; the caller retries, etcd every 500 ms). */
  | { readonly kind: 'dropped' };

/** A local read request (etcd node.ReadIndex), before RaftCore.readIndex records its outcome. */
export function readIndexLocal<D>(r: RaftCore<D>, requestId: string): ReadIndexOutcome {
  const m: MsgReadIndex = { type: 'MsgReadIndex', from: r.id, to: r.lead ?? r.id, term: 0, context: requestId };
  if (r.role === 'leader') {
    stepReadIndex(r, m);
    return { kind: 'pending' };
  }
  if (r.role !== 'follower' || r.lead === null) return { kind: 'dropped' };
  r.send(m);
  return { kind: 'forwarded', leader: r.lead };
}

/** The leader's step of MsgReadIndex, its own or a follower's. */
export function stepReadIndex<D>(r: RaftCore<D>, m: MsgReadIndex): void {
  if (r.voters.length === 1) {
    respondToReadIndex(r, m, r.log.committed);
    return;
  }
  // etcd-behaviour 2.3: postponed until the leader has committed an entry of its term.
  if (!committedEntryInCurrentTerm(r)) {
    r.pendingReadIndex.push(m);
    return;
  }
  sendReadIndexResponse(r, m);
}

/** Answers the ReadIndex requests postponed until the leader's first commit in its term. */
export function releasePendingReadIndex<D>(r: RaftCore<D>): void {
  if (!committedEntryInCurrentTerm(r)) return;
  const pending = r.pendingReadIndex;
  r.pendingReadIndex = [];
  for (const m of pending) sendReadIndexResponse(r, m);
}

/** A heartbeat response's ack of the read requests its context confirms; a quorum answers them. */
export function ackReadIndex<D>(r: RaftCore<D>, m: MsgHeartbeatResp): void {
  if (m.context === null) return;
  const acks = r.readOnly.recvAck(m.from, m.context);
  if (acks === undefined || acks.size < r.quorum) return;
  for (const status of r.readOnly.advance(m.context)) {
    respondToReadIndex(r, { from: status.request.from, context: status.request.requestId }, status.index);
  }
}

function committedEntryInCurrentTerm<D>(r: RaftCore<D>): boolean {
  return r.log.term(r.log.committed) === r.term;
}

/** ReadOnlySafe: remember the commit index, ack ourselves, confirm leadership with a heartbeat round. */
function sendReadIndexResponse<D>(r: RaftCore<D>, m: MsgReadIndex): void {
  r.readOnly.addRequest(r.log.committed, { from: m.from, requestId: m.context });
  r.readOnly.recvAck(r.id, m.context);
  bcastHeartbeat(r, m.context);
}

function respondToReadIndex<D>(r: RaftCore<D>, m: { readonly from: string; readonly context: string }, index: number): void {
  if (m.from === r.id) {
    r.readStates.push({ requestId: m.context, index });
    return;
  }
  r.send({ type: 'MsgReadIndexResp', from: r.id, to: m.from, term: r.term, index, context: m.context });
}
