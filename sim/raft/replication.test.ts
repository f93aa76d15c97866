import { describe, expect, it } from 'vitest';
import { hup } from './elections.js';
import { bcastHeartbeat } from './replication.js';
import { cluster, electA, entry, makeCore, pump } from './test-cores.js';

describe('replication: appends, commit by quorum, MsgApp and heartbeats', () => {
  it('commits only entries of the current term by counting replicas (Raft 5.4.2)', () => {
    const voters = ['a', 'b', 'c'];
    const a = makeCore('a', voters, { hardState: { term: 2, vote: 'a', commit: 1 }, entries: [entry(1, 1), entry(2, 2)] });
    const b = makeCore('b', voters, { hardState: { term: 2, vote: 'a', commit: 1 }, entries: [entry(1, 1)] });
    const cores = new Map([['a', a], ['b', b]]);
    hup(a, false);
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
    hup(a, false);
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
    bcastHeartbeat(a, null);
    expect(a.msgs.map((m) => (m.type === 'MsgHeartbeat' ? `${m.to}:${m.commit}` : '?'))).toEqual(['b:4', 'c:2']);
  });
});
