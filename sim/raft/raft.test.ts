import { describe, expect, it } from 'vitest';
import { RandomStream } from '../kernel/rng.js';
import { raftConfig } from './config.js';
import { hup } from './elections.js';
import { RaftCore } from './raft.js';
import { cluster, electA, pump, makeCore } from './test-cores.js';
import { EMPTY_HARD_STATE } from './types.js';

describe('RaftCore: bootstrap, proposals and CheckQuorum', () => {
  it('bootstraps at term 1 with a committed conf-change entry per voter, and will not campaign before applying them', () => {
    const trace: string[] = [];
    const fresh = new RaftCore<string>({
      id: 'a', voters: ['a', 'b'], config: raftConfig(), random: new RandomStream('r', 's'), record: (kind) => trace.push(kind),
      entryBytes: () => 1, hardState: EMPTY_HARD_STATE, entries: [], applied: 0, bootstrap: true,
    });
    hup(fresh, false);
    expect(fresh.role).toBe('follower');
    expect(trace).toContain('raft.campaign.refused');
    const a = makeCore('a', ['c', 'a', 'b']);
    expect(a.term).toBe(1);
    expect(a.log.slice(1, 3).map((e) => (e.type === 'conf-change' ? e.addMember : '?'))).toEqual(['a', 'b', 'c']);
    expect(a.log.committed).toBe(3);
    expect(a.softState()).toEqual({ lead: null, role: 'follower' });
  });

  it('a follower forwards proposals (term 0) to its leader; a candidate has no leader', () => {
    const cores = cluster(3);
    electA(cores);
    const b = cores.get('b')!;
    expect(b.propose('x')).toEqual({ kind: 'forwarded', leader: 'a' });
    expect(b.msgs.splice(0)).toMatchObject([{ type: 'MsgProp', to: 'a', term: 0, data: ['x'] }]);
    const c = cores.get('c')!;
    c.becomeFollower(c.term, null);
    hup(c, false);
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

describe('RaftCore: leader transfer', () => {
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
