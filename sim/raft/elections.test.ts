import { describe, expect, it } from 'vitest';
import { hup } from './elections.js';
import { bcastHeartbeat } from './replication.js';
import { cluster, electA, entry, makeCore, pump } from './test-cores.js';

describe('elections: terms, votes, leader lease, PreVote', () => {
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
    hup(a, false);
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
    bcastHeartbeat(a, null);
    pump(cores, (m) => m.to === 'c' || m.from === 'c');
    expect(a.term).toBe(7);
    expect(a.role).toBe('follower');
  });
});
