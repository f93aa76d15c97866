// Raft messages between members (etcd raftpb.Message, one variant per type used here). MsgProp and
// MsgReadIndex are forwarded to the leader with term 0: etcd treats them as local messages there
// (raft.go send(): "proposals are a way to forward to the leader and should be treated as local").
// Messages are immutable once sent: the network hands the same object to the receiver.
import type { LogEntry, MemberId } from './types.js';

interface Envelope {
  readonly from: MemberId;
  readonly to: MemberId;
  readonly term: number;
}

export interface MsgApp<D> extends Envelope {
  readonly type: 'MsgApp';
  /** prevIndex: the index just before `entries`. */
  readonly index: number;
  /** prevTerm: the term of the entry at `index`. */
  readonly logTerm: number;
  readonly entries: readonly LogEntry<D>[];
  readonly commit: number;
}

export interface MsgAppResp extends Envelope {
  readonly type: 'MsgAppResp';
  readonly index: number;
  readonly reject: boolean;
  /** On reject: the follower's last index. */
  readonly rejectHint: number;
}

export interface MsgHeartbeat extends Envelope {
  readonly type: 'MsgHeartbeat';
  readonly commit: number;
  /** ReadIndex request id being confirmed (ReadOnlySafe), or null. */
  readonly context: string | null;
}

export interface MsgHeartbeatResp extends Envelope {
  readonly type: 'MsgHeartbeatResp';
  readonly context: string | null;
}

export interface MsgVote extends Envelope {
  readonly type: 'MsgVote' | 'MsgPreVote';
  /** The candidate's last index and its term. */
  readonly index: number;
  readonly logTerm: number;
  /** etcd `campaignTransfer` context: bypasses the leader lease (vote suppression). */
  readonly transfer: boolean;
}

export interface MsgVoteResp extends Envelope {
  readonly type: 'MsgVoteResp' | 'MsgPreVoteResp';
  readonly reject: boolean;
}

export interface MsgProp<D> extends Envelope {
  readonly type: 'MsgProp';
  readonly data: readonly D[];
}

export interface MsgReadIndex extends Envelope {
  readonly type: 'MsgReadIndex';
  readonly context: string;
}

export interface MsgReadIndexResp extends Envelope {
  readonly type: 'MsgReadIndexResp';
  readonly index: number;
  readonly context: string;
}

export interface MsgTimeoutNow extends Envelope {
  readonly type: 'MsgTimeoutNow';
}

export type RaftMessage<D> =
  | MsgApp<D>
  | MsgAppResp
  | MsgHeartbeat
  | MsgHeartbeatResp
  | MsgVote
  | MsgVoteResp
  | MsgProp<D>
  | MsgReadIndex
  | MsgReadIndexResp
  | MsgTimeoutNow;

export type RaftMessageType = RaftMessage<unknown>['type'];

/** Small, plain fields describing a message for the trace (never the payload data). */
export function describeMessage(m: RaftMessage<unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = { term: m.term, to: m.to, type: m.type };
  switch (m.type) {
    case 'MsgApp':
      fields['index'] = m.index;
      fields['entries'] = m.entries.length;
      fields['commit'] = m.commit;
      break;
    case 'MsgAppResp':
      fields['index'] = m.index;
      if (m.reject) fields['reject'] = m.rejectHint;
      break;
    case 'MsgVoteResp':
    case 'MsgPreVoteResp':
      fields['reject'] = m.reject;
      break;
    case 'MsgVote':
    case 'MsgPreVote':
      fields['index'] = m.index;
      fields['logTerm'] = m.logTerm;
      break;
    case 'MsgHeartbeat':
      fields['commit'] = m.commit;
      break;
    case 'MsgReadIndexResp':
      fields['index'] = m.index;
      break;
    default:
      break;
  }
  return fields;
}
