// Raft log compaction and the WAL's snapshot record (issue 16): RaftLog.compact, replayWal, walRecordsAfter.
import { describe, expect, it } from 'vitest';
import { RaftLog } from './raft-log.js';
import type { LogEntry } from './types.js';
import { replayWal, walRecordsAfter, type WalRecord } from './wal.js';

const e = (index: number, term: number): LogEntry<string> => ({ type: 'normal', index, term, data: `${index}/${term}` });

describe('RaftLog.compact', () => {
  it('drops applied entries, keeps the term of the last one, and goes on appending and committing', () => {
    const log = new RaftLog<string>([e(1, 1), e(2, 1), e(3, 2), e(4, 2)], 4, 4);
    log.compact(3);
    expect([log.firstIndex(), log.lastIndex(), log.lastTerm()]).toEqual([4, 4, 2]);
    expect([log.term(2), log.term(3), log.term(4)]).toEqual([undefined, 2, 2]);
    expect(log.maybeAppend(4, 2, 5, [e(5, 3)])).toBe(5);
    expect(log.slice(4, 9).map((x) => x.index)).toEqual([4, 5]);
    expect(() => log.slice(1, 9)).toThrow(/compacted/);
    expect(() => log.entriesFrom(3, 1_000, () => 1)).toThrow(/compacted/);
  });

  it('refuses to compact what is not applied (a programmer error)', () => {
    const log = new RaftLog<string>([e(1, 1), e(2, 1)], 2, 1);
    expect(() => log.compact(2)).toThrow(/beyond the applied index 1/);
  });

  it('starts after a snapshot: index and term of its last entry', () => {
    const log = new RaftLog<string>([e(11, 3), e(12, 3)], 12, 10, { index: 10, term: 2 });
    expect([log.firstIndex(), log.lastIndex(), log.term(10), log.applied, log.committed]).toEqual([11, 12, 2, 10, 12]);
    expect(log.unappliedCommitted().map((x) => x.index)).toEqual([11, 12]);
  });
});

describe('the WAL snapshot record', () => {
  const records: WalRecord<string>[] = [
    { entries: [e(1, 1), e(2, 1), e(3, 1)], hardState: { term: 1, vote: null, commit: 2 } },
    { entries: [e(3, 2), e(4, 2)], hardState: { term: 2, vote: 'b', commit: 4 } },
    { entries: [e(5, 2)], hardState: null },
  ];

  it('replays only what follows the snapshot, with the last hard state', () => {
    const replayed = replayWal([...records, { entries: [], hardState: null, snapshot: { index: 3, term: 2 } }]);
    expect(replayed.start).toEqual({ index: 3, term: 2 });
    expect(replayed.entries.map((x) => `${x.index}/${x.term}`)).toEqual(['4/2', '5/2']);
    expect(replayed.hardState).toEqual({ term: 2, vote: 'b', commit: 4 });
  });

  it('folds records into one that replays the same, followed by later records', () => {
    const later: WalRecord<string> = { entries: [e(5, 3), e(6, 3)], hardState: { term: 3, vote: 'c', commit: 5 } };
    const folded = walRecordsAfter(records, { index: 3, term: 2 });
    expect(replayWal([folded, later])).toEqual(replayWal([...records, { entries: [], hardState: null, snapshot: { index: 3, term: 2 } }, later]));
    // The negative control: without the snapshot record the replay starts at 1.
    expect(replayWal([...records, later]).start).toEqual({ index: 0, term: 0 });
  });
});
