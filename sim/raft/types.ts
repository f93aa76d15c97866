// The plain data Raft works on: log entries, hard state (what must be durable before a vote or an ack
// leaves), soft state (who leads, as the member sees it) and read states (ReadIndex answers).
// "None" in etcd's raft (id 0) is `null` here.

/** A member's id within its Raft group (the SimProcess name, in the simulator). */
export type MemberId = string;

/** A normal entry. `data === null` is the empty entry a new leader appends (etcd `Entry{Data: nil}`). */
export interface NormalEntry<D> {
  readonly type: 'normal';
  readonly index: number;
  readonly term: number;
  readonly data: D | null;
}

/**
 * A ConfChangeAddNode entry. Only a fresh member's bootstrap writes them (one per voter, term 1,
 * indexes 1..N, committed: etcd raft/bootstrap.go); membership changes are not modelled otherwise.
 */
export interface ConfChangeEntry {
  readonly type: 'conf-change';
  readonly index: number;
  readonly term: number;
  readonly addMember: MemberId;
}

export type LogEntry<D> = NormalEntry<D> | ConfChangeEntry;

/** What etcd's WAL saves as `raftpb.HardState`: term and vote must be durable before votes are sent. */
export interface HardState {
  readonly term: number;
  readonly vote: MemberId | null;
  readonly commit: number;
}

export type RaftRole = 'follower' | 'pre-candidate' | 'candidate' | 'leader';

/** etcd `raft.SoftState`: volatile, reported in a Ready when it changes. */
export interface SoftState {
  readonly lead: MemberId | null;
  readonly role: RaftRole;
}

/** etcd `raft.ReadState`: the read index confirmed for one ReadIndex request. */
export interface ReadState {
  readonly requestId: string;
  readonly index: number;
}

export const EMPTY_HARD_STATE: HardState = Object.freeze({ term: 0, vote: null, commit: 0 });

export function sameHardState(a: HardState, b: HardState): boolean {
  return a.term === b.term && a.vote === b.vote && a.commit === b.commit;
}
