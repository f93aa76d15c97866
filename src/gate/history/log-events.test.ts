// The expire time bound on constructed histories (issue 15): an expiry the watch delivered late, after
// the next grant of the key was answered, is legal once bounded, and illegal stamped at receipt; the
// bound never hides a real double grant (the control).
import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../../core/checkers/check-history.js';
import type { HistoryEvent } from '../../../core/checkers/history.js';
import { checkExclusion } from '../../../core/checkers/exclusion.js';
import { lockModel } from '../../../core/checkers/lock-model.js';
import { boundEnds, expireEvents, type LogEnd } from './log-events.js';

const KEY = 'payments/gate-0';
const T1 = '281474976710661';
const T2 = '281474976710670';
const T3 = '281474976710680';
const ev = (process: string, type: HistoryEvent['type'], f: string, value: unknown, time: number): HistoryEvent => ({ process, type, f, key: KEY, value, time });

function verdict(events: readonly HistoryEvent[]): string {
  const checked = checkHistory(lockModel(), [...events].sort((a, b) => a.time - b.time));
  if (checked.kind !== 'checked') throw new Error(JSON.stringify(checked.problems));
  return checked.result.verdict;
}

// a is granted T1 and paused; its lease expires (really at ~10); b is granted T2 at [12, 14]; the
// gate's watch delivers the expiry only at 20 (its member was slow).
const clients: HistoryEvent[] = [
  ev('a', 'invoke', 'acquire', null, 0),
  ev('a', 'ok', 'acquire', { token: T1 }, 1),
  ev('b', 'invoke', 'acquire', null, 12),
  ev('b', 'ok', 'acquire', { token: T2 }, 14),
  ev('b', 'invoke', 'write', { token: T2 }, 15),
  ev('b', 'ok', 'write', null, 16),
];
const lateEnd: LogEnd = { key: KEY, token: BigInt(T1), kind: 'expiry', revision: 9n, seenAtMs: 20 };

describe('expire events from the log, bounded', () => {
  it('stamped at watch receipt, a late expiry makes a legal history illegal', () => {
    const atReceipt = [{ process: 'log', type: 'ok' as const, f: 'expire', key: KEY, value: { token: T1 }, time: lateEnd.seenAtMs }];
    expect(verdict([...clients, ...atReceipt])).toBe('illegal');
  });

  it('bounded by the completion of the next grant of the key, the same history is legal', () => {
    const [bounded] = boundEnds([lateEnd], clients);
    expect(bounded?.atMs).toBe(14);
    expect(verdict([...clients, ...expireEvents(boundEnds([lateEnd], clients))])).toBe('ok');
  });

  it('a later end on the key bounds an earlier one (the next grant answered later than the one after it)', () => {
    // b's grant answer reaches the gate only at 30 (b was paused after its grant); c is granted T3 after
    // b's hold expired, and answered at 25. Both expiries are seen at 40.
    const events: HistoryEvent[] = [
      ev('a', 'invoke', 'acquire', null, 0),
      ev('a', 'ok', 'acquire', { token: T1 }, 1),
      ev('b', 'invoke', 'acquire', null, 5),
      ev('c', 'invoke', 'acquire', null, 6),
      ev('c', 'ok', 'acquire', { token: T3 }, 25),
      ev('b', 'ok', 'acquire', { token: T2 }, 30),
    ];
    const ends: LogEnd[] = [
      { key: KEY, token: BigInt(T1), kind: 'expiry', revision: 9n, seenAtMs: 40 },
      { key: KEY, token: BigInt(T2), kind: 'expiry', revision: 20n, seenAtMs: 40 },
    ];
    const bounded = boundEnds(ends, events);
    expect(bounded.map((e) => e.atMs)).toEqual([25, 25]);
    expect(verdict([...events, ...expireEvents(bounded)])).toBe('ok');
  });

  it('a release the client shows is no log event; a release it does not show (the settler\'s) is', () => {
    const events: HistoryEvent[] = [...clients.slice(0, 2), ev('a', 'invoke', 'release', { token: T1 }, 3), ev('a', 'ok', 'release', { released: true }, 4)];
    const ends: LogEnd[] = [
      { key: KEY, token: BigInt(T1), kind: 'release', revision: 9n, seenAtMs: 5 },
      { key: KEY, token: BigInt(T2), kind: 'release', revision: 12n, seenAtMs: 9 },
    ];
    expect(boundEnds(ends, events).map((e) => e.logEvent)).toEqual([false, true]);
  });

  it('an acquire of unknown outcome (info) bounds nothing: its completion is open', () => {
    const events: HistoryEvent[] = [...clients.slice(0, 2), ev('b', 'invoke', 'acquire', null, 12), ev('b', 'info', 'acquire', { error: 'indeterminate' }, 14)];
    expect(boundEnds([lateEnd], events)[0]?.atMs).toBe(20);
  });

  it('the control: a stale write the expiry cannot excuse stays illegal', () => {
    // a writes with T1 after b (T2) wrote: however early the expiry is put, the fence's mark is T2.
    const stale: HistoryEvent[] = [...clients, ev('a', 'invoke', 'write', { token: T1 }, 19), ev('a', 'ok', 'write', null, 20)];
    expect(verdict([...stale, ...expireEvents(boundEnds([lateEnd], stale))])).toBe('illegal');
  });

  it('the control: what the bound lets through, a log that granted T2 before it ended T1, the exclusion check in the log\'s order refuses', () => {
    // The bound puts T1's expiry at b's completion whatever its revision; a log that ended T1 at a
    // revision after T2's grant is a double grant, and the revisions of the same record say so.
    const end: LogEnd = { key: KEY, token: BigInt(T1), kind: 'expiry', revision: 30n, seenAtMs: 40 };
    const [bounded] = boundEnds([end], clients);
    expect(verdict([...clients, ...expireEvents([bounded as never])])).toBe('ok');
    const grants = [
      { key: KEY, token: BigInt(T1), holder: 'a', revision: 5n, grantedAtMs: 1, endedAtRevision: 30n, endedAtMs: 14, endReason: 'expiry' as const },
      { key: KEY, token: BigInt(T2), holder: 'b', revision: 14n, grantedAtMs: 13 },
    ];
    expect(checkExclusion(grants).ok).toBe(false);
  });
});
