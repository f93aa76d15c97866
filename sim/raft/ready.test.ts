import { describe, expect, it } from 'vitest';
import { RandomStream } from '../kernel/rng.js';
import { raftConfig } from './config.js';
import { RaftCore } from './raft.js';
import { ReadyProducer, shouldWaitWalSync, type Ready } from './ready.js';
import { EMPTY_HARD_STATE, type LogEntry } from './types.js';

const e = (index: number, term: number): LogEntry<string> => ({ type: 'normal', index, term, data: null });
const ready = (entries: LogEntry<string>[], committedEntries: LogEntry<string>[]): Ready<string> =>
  ({ softState: null, hardState: null, entries, committedEntries, messages: [], readStates: [], mustSync: entries.length > 0 });

function freshCore(voters: string[]): RaftCore<string> {
  return new RaftCore<string>({
    id: voters[0]!, voters, config: raftConfig(), random: new RandomStream('r', 's'), record: () => {},
    entryBytes: () => 1, hardState: EMPTY_HARD_STATE, entries: [], applied: 0, bootstrap: true,
  });
}

describe('Ready', () => {
  it('the first Ready of a bootstrap persists (with fsync) and applies the conf-change entries', () => {
    const core = freshCore(['a', 'b', 'c']);
    const producer = new ReadyProducer(core, EMPTY_HARD_STATE);
    expect(producer.hasReady()).toBe(true);
    const rd = producer.take();
    expect(rd.entries).toHaveLength(3);
    expect(rd.committedEntries).toHaveLength(3);
    expect(rd.hardState).toEqual({ term: 1, vote: null, commit: 3 });
    expect(rd.mustSync).toBe(true);
    expect(shouldWaitWalSync(rd)).toBe(true);
    producer.advance(rd);
    expect(producer.hasReady()).toBe(false);
  });

  it('a commit-only change is written without fsync; a vote change needs one', () => {
    const core = freshCore(['a', 'b', 'c']);
    const producer = new ReadyProducer(core, EMPTY_HARD_STATE);
    producer.advance(producer.take());
    core.step({ type: 'MsgVote', from: 'b', to: 'a', term: 2, index: 3, logTerm: 1, transfer: false });
    const vote = producer.take();
    expect(vote).toMatchObject({ hardState: { term: 2, vote: 'b', commit: 3 }, mustSync: true, entries: [] });
    expect(vote.messages).toMatchObject([{ type: 'MsgVoteResp', reject: false }]);
    producer.advance(vote);
    core.step({ type: 'MsgApp', from: 'b', to: 'a', term: 2, index: 3, logTerm: 1, entries: [e(4, 2)], commit: 3 });
    producer.advance(producer.take());
    core.step({ type: 'MsgHeartbeat', from: 'b', to: 'a', term: 2, commit: 4, context: null });
    const commitOnly = producer.take();
    expect(commitOnly).toMatchObject({ hardState: { commit: 4 }, mustSync: false, entries: [] });
    expect(commitOnly.committedEntries.map((x) => x.index)).toEqual([4]);
  });

  it('shouldWaitWalSync: only when committed entries overlap the unstable ones', () => {
    expect(shouldWaitWalSync(ready([e(5, 2)], [e(4, 2)]))).toBe(false);
    expect(shouldWaitWalSync(ready([e(5, 2)], [e(5, 2)]))).toBe(true);
    expect(shouldWaitWalSync(ready([e(5, 2)], [e(4, 3)]))).toBe(true);
    expect(shouldWaitWalSync(ready([], [e(4, 2)]))).toBe(false);
  });
});
