// The leader's side of log replication (etcd raft.go appendEntry, maybeCommit, maybeSendAppend,
// bcastAppend, bcastHeartbeat, 3.4.23): its own appends, commit by quorum, and the MsgApp and
// MsgHeartbeat messages paced by each follower's Progress (progress.ts).
import { assert } from '../../core/assert.js';
import type { RaftCore } from './raft.js';
import type { LogEntry, MemberId } from './types.js';

/**
 * etcd appendEntry: the leader appends and counts itself at once, before its own fsync
 * (etcd-behaviour 3.2), then tries to commit.
 */
export function appendEntries<D>(r: RaftCore<D>, data: readonly (D | null)[]): number {
  let index = r.log.lastIndex();
  const entries = data.map((item): LogEntry<D> => ({ type: 'normal', index: ++index, term: r.term, data: item }));
  const last = r.log.append(entries);
  r.progress.get(r.id)!.maybeUpdate(last);
  maybeCommit(r);
  return last;
}

/** Commits the highest index a quorum has matched, if it is of the current term. */
export function maybeCommit<D>(r: RaftCore<D>): boolean {
  // The quorum-th highest match, found by an insertion sort into a reused array: this runs on every
  // append response, and the voters are few.
  const matches = r.matchScratch;
  let count = 0;
  for (const voter of r.voters) {
    const match = r.progress.get(voter)!.match;
    let at = count++;
    while (at > 0 && matches[at - 1]! < match) {
      matches[at] = matches[at - 1]!;
      at--;
    }
    matches[at] = match;
  }
  return r.log.maybeCommit(matches[r.quorum - 1]!, r.term);
}

export function bcastAppend<D>(r: RaftCore<D>): void {
  for (const peer of r.peers) sendAppend(r, peer);
}

/** etcd maybeSendAppend: false if paused, or if there is nothing to send and `sendIfEmpty` is off. */
export function sendAppend<D>(r: RaftCore<D>, to: MemberId, sendIfEmpty = true): boolean {
  const pr = r.progress.get(to)!;
  if (pr.isPaused()) return false;
  const prevIndex = pr.next - 1;
  const prevTerm = r.log.term(prevIndex);
  if (prevTerm === undefined && prevIndex < r.log.firstIndex()) {
    // etcd would send a snapshot (MsgSnap); the simulator does not model it (issue 16, member-snapshots.ts).
    throw new Error(`RaftCore: ${to} needs entry ${pr.next}, compacted away (the log starts at ${r.log.firstIndex()}); a follower this far behind needs a snapshot (MsgSnap), which the simulator does not send: raise EtcdTiming.snapshotCatchUpEntries or leave snapshotCount unset`);
  }
  assert(prevTerm !== undefined, () => `RaftCore: progress of ${to} points past the log (next ${pr.next}, last ${r.log.lastIndex()})`);
  const entries = r.log.entriesFrom(pr.next, r.config.maxSizePerMsgBytes, r.entryBytes);
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
  r.send({ type: 'MsgApp', from: r.id, to, term: r.term, index: prevIndex, logTerm: prevTerm, entries, commit: r.log.committed });
  return true;
}

export function bcastHeartbeat<D>(r: RaftCore<D>, context: string | null): void {
  for (const peer of r.peers) {
    const commit = Math.min(r.progress.get(peer)!.match, r.log.committed);
    r.send({ type: 'MsgHeartbeat', from: r.id, to: peer, term: r.term, commit, context });
  }
}
