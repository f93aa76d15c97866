import { describe, expect, it } from 'vitest';
import { RaftLog } from './raft-log.js';
import type { LogEntry } from './types.js';

const e = (index: number, term: number): LogEntry<string> => ({ type: 'normal', index, term, data: `${index}/${term}` });
const log = (...terms: number[]) => new RaftLog<string>(terms.map((term, i) => e(i + 1, term)));

describe('RaftLog', () => {
  it('knows terms, the last entry and who is more up to date (Raft 5.4.1)', () => {
    const l = log(1, 1, 2);
    expect([l.term(0), l.term(3), l.term(4)]).toEqual([0, 2, undefined]);
    expect(l.lastIndex()).toBe(3);
    expect(l.isUpToDate(3, 2)).toBe(true);
    expect(l.isUpToDate(9, 1)).toBe(false);
    expect(l.isUpToDate(1, 3)).toBe(true);
  });

  it('maybeAppend: rejects a prevIndex/prevTerm mismatch, truncates only a conflicting suffix, commits up to the last new entry', () => {
    const l = log(1, 1, 2, 2);
    expect(l.maybeAppend(2, 2, 4, [e(3, 3)])).toBeUndefined();
    expect(l.maybeAppend(2, 1, 9, [e(3, 2), e(4, 3)])).toBe(4);
    expect(l.slice(1, 9).map((x) => x.term)).toEqual([1, 1, 2, 3]);
    expect(l.committed).toBe(4);
    // An old, shorter message does not truncate what follows it.
    expect(l.maybeAppend(1, 1, 1, [e(2, 1)])).toBe(2);
    expect(l.lastIndex()).toBe(4);
  });

  it('moves the unstable mark back when it truncates, so the rewritten entries are persisted again', () => {
    const l = log(1, 1, 1);
    l.markAllHandedOut();
    expect(l.unstableEntries()).toEqual([]);
    l.maybeAppend(1, 1, 0, [e(2, 2)]);
    expect(l.unstableFrom).toBe(2);
    expect(l.unstableEntries()).toEqual([e(2, 2)]);
  });

  it('refuses to truncate or overrun committed entries (a Raft bug, as etcd panics)', () => {
    const l = log(1, 1, 1);
    l.commitTo(3);
    expect(() => l.append([e(2, 2)])).toThrow(/committed/);
    expect(() => l.commitTo(4)).toThrow(/beyond the last index/);
  });

  it('maybeCommit only commits an entry of the given term; entriesFrom respects the size limit but sends one at least', () => {
    const l = log(1, 2, 2);
    expect(l.maybeCommit(2, 1)).toBe(false);
    expect(l.maybeCommit(3, 2)).toBe(true);
    expect(l.entriesFrom(1, 100, () => 60).map((x) => x.index)).toEqual([1]);
    expect(l.entriesFrom(1, 130, () => 60).map((x) => x.index)).toEqual([1, 2]);
    expect(l.entriesFrom(4, 130, () => 60)).toEqual([]);
  });
});
