// The gate's recorder (issue 15): stamps on the clock it is given, holds as the workload knows them (the
// `@holder` role), writes as the fence checker reads them, and a second invoke while one is open refused.
import { describe, expect, it } from 'vitest';
import { HistoryRecorder, RESOURCE } from './recorder.js';

const T = '281474976710661';

function recorder() {
  let now = 0;
  const r = new HistoryRecorder(() => now);
  return { r, at: (ms: number) => (now = ms) };
}

describe('HistoryRecorder', () => {
  it('stamps invoke and completion on its clock, and a write becomes a resource write spanning both', () => {
    const { r, at } = recorder();
    at(1);
    r.invoke('c1', 'acquire', 'k', null);
    at(3);
    r.complete('c1', 'ok', { token: T });
    expect(r.holding('c1')).toBe(true);
    at(5);
    r.invoke('c1', 'write', 'k', { token: T });
    at(8);
    r.complete('c1', 'fail', { refused: 'fence' });
    expect(r.events.map((e) => [e.type, e.f, e.time])).toEqual([['invoke', 'acquire', 1], ['ok', 'acquire', 3], ['invoke', 'write', 5], ['fail', 'write', 8]]);
    expect(r.writes).toEqual([{ resource: RESOURCE, key: 'k', holder: 'c1', token: BigInt(T), atMs: 5, endMs: 8, accepted: false }]);
    expect(r.operations).toEqual({ ok: 1, fail: 1, info: 0 });
  });

  it('a write of unknown outcome is no resource write (it may not have reached it)', () => {
    const { r } = recorder();
    r.invoke('c1', 'write', 'k', { token: T });
    r.complete('c1', 'info', { error: 'EIO' });
    expect(r.writes).toEqual([]);
  });

  it('a hold ends for @holder at the release invoke or at the library\'s fence of it', () => {
    const { r } = recorder();
    r.invoke('c1', 'acquire', 'k', null);
    r.complete('c1', 'ok', { token: T });
    r.fence('c1', 'k', T);
    expect(r.holding('c1')).toBe(false);
    expect(r.fences).toEqual([{ holder: 'c1', key: 'k', token: BigInt(T), atMs: 0 }]);
    r.invoke('c2', 'acquire', 'k', null);
    r.complete('c2', 'ok', { token: T });
    r.invoke('c2', 'release', 'k', { token: T });
    expect(r.holding('c2')).toBe(false);
  });

  it('refuses a second invoke while one is open, and a completion without one', () => {
    const { r } = recorder();
    r.invoke('c1', 'acquire', 'k', null);
    expect(() => r.invoke('c1', 'write', 'k', { token: T })).toThrow(/while an operation of its own is open/);
    expect(() => r.complete('c2', 'ok', null)).toThrow(/never invoked/);
  });
});
