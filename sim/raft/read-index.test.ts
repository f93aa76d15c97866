import { describe, expect, it } from 'vitest';
import { hup } from './elections.js';
import { bcastHeartbeat } from './replication.js';
import { cluster, electA, makeCore, pump } from './test-cores.js';

describe('ReadIndex (ReadOnlySafe) at the core', () => {
  it('a single voter answers at once with its commit index', () => {
    const solo = makeCore('a', ['a']);
    hup(solo, false);
    expect(solo.role).toBe('leader');
    expect(solo.readIndex('r')).toEqual({ kind: 'pending' });
    expect(solo.readStates).toEqual([{ requestId: 'r', index: 2 }]);
  });

  it('waits for its first commit in the term, then for a quorum of heartbeat acks', () => {
    const cores = cluster(3);
    const a = cores.get('a')!;
    hup(a, false);
    pump(cores, (m) => m.type !== 'MsgApp');
    expect(a.role).toBe('leader');
    expect(a.readIndex('r1')).toEqual({ kind: 'pending' });
    expect(a.pendingReadIndex).toHaveLength(1);
    expect(a.msgs.filter((m) => m.type === 'MsgHeartbeat')).toEqual([]);
    a.msgs.splice(0);
    // A heartbeat answer un-pauses the probe; the empty entry commits; the postponed read goes out.
    bcastHeartbeat(a, null);
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
});
