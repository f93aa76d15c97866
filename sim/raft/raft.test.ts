import { describe, expect, it } from 'vitest';
import { RandomStream } from '../kernel/rng.js';
import { raftConfig, type RaftConfig } from './config.js';
import type { RaftMessage } from './message.js';
import { RaftCore } from './raft.js';
import { EMPTY_HARD_STATE, type HardState, type LogEntry } from './types.js';

// A network-less cluster of cores: messages are pumped by hand, so each test controls delivery.
type Core = RaftCore<string>;

function makeCore(id: string, voters: string[], options: { config?: Partial<RaftConfig>; hardState?: HardState; entries?: LogEntry<string>[]; trace?: string[] } = {}): Core {
  const core = new RaftCore<string>({
    id,
    voters,
    config: raftConfig(options.config),
    random: new RandomStream(`raft/${id}/election`, `seed-${id}`),
    record: (kind, fields) => options.trace?.push(`${id} ${kind} ${JSON.stringify(fields)}`),
    entryBytes: () => 64,
    hardState: options.hardState ?? EMPTY_HARD_STATE,
    entries: options.entries ?? [],
    applied: 0,
    bootstrap: options.entries === undefined,
  });
  // The node applies the bootstrap's conf changes in its first Ready; until then raft refuses to campaign.
  core.log.applied = core.log.committed;
  return core;
}

function cluster(count = 3, config: Partial<RaftConfig> = {}): Map<string, Core> {
  const ids = ['a', 'b', 'c', 'd', 'e'].slice(0, count);
  return new Map(ids.map((id) => [id, makeCore(id, ids, { config })]));
}

/** Delivers messages until none are left (or `keep` filters them out); returns what was delivered. */
function pump(cores: Map<string, Core>, keep: (m: RaftMessage<string>) => boolean = () => true): RaftMessage<string>[] {
  const delivered: RaftMessage<string>[] = [];
  for (let round = 0; round < 1000; round++) {
    const batch = [...cores.values()].flatMap((core) => core.msgs.splice(0));
    if (batch.length === 0) return delivered;
    for (const m of batch) {
      if (!keep(m)) continue;
      delivered.push(m);
      cores.get(m.to)?.step(m);
    }
  }
  throw new Error('pump: messages never stopped');
}

function entry(index: number, term: number, data: string | null = `e${index}`): LogEntry<string> {
  return { type: 'normal', index, term, data };
}

function electA(cores: Map<string, Core>): Core {
  const a = cores.get('a')!;
  a.hup(false);
  pump(cores);
  expect(a.role).toBe('leader');
  return a;
}

describe('RaftCore: elections and votes', () => {
  it('bootstraps at term 1 with a committed conf-change entry per voter, and will not campaign before applying them', () => {
    const trace: string[] = [];
    const fresh = new RaftCore<string>({
      id: 'a', voters: ['a', 'b'], config: raftConfig(), random: new RandomStream('r', 's'), record: (kind) => trace.push(kind),
      entryBytes: () => 1, hardState: EMPTY_HARD_STATE, entries: [], applied: 0, bootstrap: true,
    });
    fresh.hup(false);
    expect(fresh.role).toBe('follower');
    expect(trace).toContain('raft.campaign.refused');
    const a = makeCore('a', ['c', 'a', 'b']);
    expect(a.term).toBe(1);
    expect(a.log.slice(1, 3).map((e) => (e.type === 'conf-change' ? e.addMember : '?'))).toEqual(['a', 'b', 'c']);
    expect(a.log.committed).toBe(3);
    expect(a.softState()).toEqual({ lead: null, role: 'follower' });
  });

  it('a candidate wins with a quorum, appends its empty entry and commits it once replicated', () => {
    const cores = cluster(3);
    const a = electA(cores);
    expect(a.term).toBe(2);
    expect(a.log.lastIndex()).toBe(4);
    expect(a.log.committed).toBe(4);
    for (const id of ['b', 'c']) expect(cores.get(id)!.softState()).toEqual({ lead: 'a', role: 'follower' });
  });

  it('grants at most one vote per term, and none to a candidate with a less up-to-date log', () => {
    const trace: string[] = [];
    const voters = ['a', 'b', 'c'];
    const c = makeCore('c', voters, { trace, hardState: { term: 5, vote: null, commit: 1 }, entries: [entry(1, 1), entry(2, 5)] });
    c.step({ type: 'MsgVote', from: 'a', to: 'c', term: 6, index: 1, logTerm: 1, transfer: false });
    expect(c.msgs.splice(0)).toMatchObject([{ type: 'MsgVoteResp', to: 'a', reject: true, term: 6 }]);
    c.step({ type: 'MsgVote', from: 'b', to: 'c', term: 6, index: 2, logTerm: 5, transfer: false });
    expect(c.msgs.splice(0)).toMatchObject([{ type: 'MsgVoteResp', to: 'b', reject: false, term: 6 }]);
    expect(c.vote).toBe('b');
    c.step({ type: 'MsgVote', from: 'a', to: 'c', term: 6, index: 9, logTerm: 6, transfer: false });
    expect(c.msgs.splice(0)).toMatchObject([{ type: 'MsgVoteResp', reject: true }]);
  });

  it('leader lease: a follower that heard from the leader within the election timeout ignores a higher-term vote', () => {
    const cores = cluster(3);
    electA(cores);
    const b = cores.get('b')!;
    b.step({ type: 'MsgVote', from: 'c', to: 'b', term: 9, index: 99, logTerm: 9, transfer: false });
    expect(b.term).toBe(2);
    expect(b.msgs).toEqual([]);
    // After an election timeout without the leader, the same request is heard.
    for (let i = 0; i < 10; i++) b.electionElapsed++;
    b.step({ type: 'MsgVote', from: 'c', to: 'b', term: 9, index: 99, logTerm: 9, transfer: false });
    expect(b.term).toBe(9);
    expect(b.msgs.splice(0)).toMatchObject([{ type: 'MsgVoteResp', reject: false }]);
  });

  it('a transfer campaign bypasses the lease', () => {
    const cores = cluster(3);
    electA(cores);
    const b = cores.get('b')!;
    b.step({ type: 'MsgVote', from: 'c', to: 'b', term: 3, index: 4, logTerm: 2, transfer: true });
    expect(b.msgs.splice(0)).toMatchObject([{ type: 'MsgVoteResp', reject: false, term: 3 }]);
  });

  it('PreVote: a pre-candidate keeps its term until a quorum pre-votes, then campaigns for real', () => {
    const cores = cluster(3, { preVote: true });
    const a = cores.get('a')!;
    a.hup(false);
    expect(a.role).toBe('pre-candidate');
    expect(a.term).toBe(1);
    expect(a.msgs.map((m) => `${m.type}@${m.term}`)).toEqual(['MsgPreVote@2', 'MsgPreVote@2']);
    pump(cores);
    expect(a.role).toBe('leader');
    expect(a.term).toBe(2);
  });

  it('PreVote: an isolated member does not raise its term; a rejection from a higher term makes it follow', () => {
    const cores = cluster(3, { preVote: true });
    electA(cores);
    const c = cores.get('c')!;
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 20; i++) c.tick();
      c.msgs.splice(0);
    }
    expect(c.term).toBe(2);
    expect(c.role).toBe('pre-candidate');
  });

  it('PreVote off: a member that raised its term makes the leader step down through a MsgAppResp', () => {
    const cores = cluster(3);
    const a = electA(cores);
    const c = cores.get('c')!;
    c.becomeFollower(7, null);
    a.bcastHeartbeat(null);
    pump(cores, (m) => m.to === 'c' || m.from === 'c');
    expect(a.term).toBe(7);
    expect(a.role).toBe('follower');
  });
});

describe('RaftCore: replication and commit', () => {
  it('commits only entries of the current term by counting replicas (Raft 5.4.2)', () => {
    const voters = ['a', 'b', 'c'];
    const a = makeCore('a', voters, { hardState: { term: 2, vote: 'a', commit: 1 }, entries: [entry(1, 1), entry(2, 2)] });
    const b = makeCore('b', voters, { hardState: { term: 2, vote: 'a', commit: 1 }, entries: [entry(1, 1)] });
    const cores = new Map([['a', a], ['b', b]]);
    a.hup(false);
    pump(cores, (m) => m.type === 'MsgVote' || m.type === 'MsgVoteResp');
    expect(a.role).toBe('leader');
    expect(a.term).toBe(3);
    a.msgs.splice(0);
    // b acknowledges index 2 (term 2) only: a majority holds it, yet it is not of term 3.
    a.step({ type: 'MsgAppResp', from: 'b', to: 'a', term: 3, index: 2, reject: false, rejectHint: 0 });
    expect(a.log.committed).toBe(1);
    a.step({ type: 'MsgAppResp', from: 'b', to: 'a', term: 3, index: 3, reject: false, rejectHint: 0 });
    expect(a.log.committed).toBe(3);
  });

  it('truncates a follower\'s conflicting suffix after probing back with the reject hint', () => {
    const voters = ['a', 'b', 'c'];
    const a = makeCore('a', voters, { hardState: { term: 4, vote: 'a', commit: 2 }, entries: [entry(1, 1), entry(2, 1), entry(3, 4), entry(4, 4)] });
    const b = makeCore('b', voters, { hardState: { term: 3, vote: null, commit: 2 }, entries: [entry(1, 1), entry(2, 1), entry(3, 3, 'stale'), entry(4, 3, 'stale'), entry(5, 3, 'stale')] });
    const cores = new Map([['a', a], ['b', b]]);
    a.hup(false);
    const delivered = pump(cores);
    expect(a.role).toBe('leader');
    expect(delivered.some((m) => m.type === 'MsgAppResp' && m.reject)).toBe(true);
    expect(b.log.slice(1, b.log.lastIndex())).toEqual(a.log.slice(1, a.log.lastIndex()));
    expect(b.log.committed).toBe(a.log.committed);
    expect(a.log.committed).toBe(5);
  });

  it('heartbeats carry min(match, commit) so a follower never commits past what it holds', () => {
    const cores = cluster(3);
    const a = electA(cores);
    a.progress.get('c')!.match = 2;
    a.msgs.splice(0);
    a.bcastHeartbeat(null);
    expect(a.msgs.map((m) => (m.type === 'MsgHeartbeat' ? `${m.to}:${m.commit}` : '?'))).toEqual(['b:4', 'c:2']);
  });

  it('a follower forwards proposals (term 0) to its leader; a candidate has no leader', () => {
    const cores = cluster(3);
    electA(cores);
    const b = cores.get('b')!;
    expect(b.propose('x')).toEqual({ kind: 'forwarded', leader: 'a' });
    expect(b.msgs.splice(0)).toMatchObject([{ type: 'MsgProp', to: 'a', term: 0, data: ['x'] }]);
    const c = cores.get('c')!;
    c.becomeFollower(c.term, null);
    c.hup(false);
    expect(c.propose('y')).toEqual({ kind: 'no-leader' });
  });

  it('CheckQuorum: a leader that heard from no quorum for an election timeout steps down, same term, no leader', () => {
    const cores = cluster(3);
    const a = electA(cores);
    for (let i = 0; i < 10; i++) a.tick();
    // The first check sees the replies of the election round; the second sees nothing.
    expect(a.role).toBe('leader');
    a.msgs.splice(0);
    for (let i = 0; i < 10; i++) a.tick();
    expect(a.softState()).toEqual({ lead: null, role: 'follower' });
    expect(a.term).toBe(2);
  });
});

describe('RaftCore: ReadIndex and leader transfer', () => {
  it('a single voter answers at once with its commit index', () => {
    const solo = makeCore('a', ['a']);
    solo.hup(false);
    expect(solo.role).toBe('leader');
    expect(solo.readIndex('r')).toEqual({ kind: 'pending' });
    expect(solo.readStates).toEqual([{ requestId: 'r', index: 2 }]);
  });

  it('waits for its first commit in the term, then for a quorum of heartbeat acks', () => {
    const cores = cluster(3);
    const a = cores.get('a')!;
    a.hup(false);
    pump(cores, (m) => m.type !== 'MsgApp');
    expect(a.role).toBe('leader');
    expect(a.readIndex('r1')).toEqual({ kind: 'pending' });
    expect(a.pendingReadIndex).toHaveLength(1);
    expect(a.msgs.filter((m) => m.type === 'MsgHeartbeat')).toEqual([]);
    a.msgs.splice(0);
    // A heartbeat answer un-pauses the probe; the empty entry commits; the postponed read goes out.
    a.bcastHeartbeat(null);
    // Only b answers: self + b is a quorum of 3.
    pump(cores, (m) => m.to !== 'c' && m.from !== 'c');
    expect(a.readStates).toEqual([{ requestId: 'r1', index: 4 }]);
  });

  it('without a quorum of acks, no read state', () => {
    const cores = cluster(3);
    const a = electA(cores);
    a.readIndex('r2');
    pump(cores, (m) => m.type !== 'MsgHeartbeatResp');
    expect(a.readStates).toEqual([]);
    expect(a.readOnly.size).toBe(1);
  });

  it('a follower forwards MsgReadIndex and records the leader\'s answer', () => {
    const cores = cluster(3);
    electA(cores);
    const b = cores.get('b')!;
    expect(b.readIndex('r3')).toEqual({ kind: 'forwarded', leader: 'a' });
    pump(cores);
    expect(b.readStates).toEqual([{ requestId: 'r3', index: 4 }]);
  });

  it('transfers leadership with MsgTimeoutNow and drops proposals meanwhile', () => {
    const cores = cluster(3);
    const a = electA(cores);
    expect(a.transferLeadership('c')).toEqual({ kind: 'started' });
    expect(a.propose('x')).toEqual({ kind: 'dropped', reason: 'leader-transfer' });
    pump(cores);
    expect(cores.get('c')!.role).toBe('leader');
    expect(a.softState()).toEqual({ lead: 'c', role: 'follower' });
  });

  it('aborts a transfer that did not finish within an election timeout', () => {
    const cores = cluster(3);
    const a = electA(cores);
    a.transferLeadership('c');
    a.msgs.splice(0);
    for (let i = 0; i < 10; i++) {
      a.progress.get('b')!.recentActive = true;
      a.tick();
    }
    expect(a.leadTransferee).toBeNull();
    expect(a.propose('after').kind).toBe('appended');
  });
});
