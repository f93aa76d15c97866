import { describe, expect, it } from 'vitest';
import type { LogEntry } from './types.js';
import { replayWal } from './wal.js';

const e = (index: number, term: number): LogEntry<string> => ({ type: 'normal', index, term, data: null });

describe('replayWal', () => {
  it('an entry at index i replaces the log from i on; the last hard state wins', () => {
    const recovered = replayWal<string>([
      { entries: [e(1, 1), e(2, 1), e(3, 1)], hardState: { term: 1, vote: 'a', commit: 1 } },
      { entries: [], hardState: { term: 2, vote: null, commit: 2 } },
      { entries: [e(3, 2)], hardState: null },
    ]);
    expect(recovered.entries.map((x) => `${x.index}/${x.term}`)).toEqual(['1/1', '2/1', '3/2']);
    expect(recovered.hardState).toEqual({ term: 2, vote: null, commit: 2 });
  });

  it('an empty WAL is a fresh member; a gap or a commit beyond the log is corruption', () => {
    expect(replayWal([])).toEqual({ hardState: { term: 0, vote: null, commit: 0 }, entries: [], start: { index: 0, term: 0 } });
    expect(() => replayWal([{ entries: [e(2, 1)], hardState: null }])).toThrow(/gap/);
    expect(() => replayWal([{ entries: [e(1, 1)], hardState: { term: 1, vote: null, commit: 2 } }])).toThrow(/beyond/);
  });
});
