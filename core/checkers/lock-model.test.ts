import { describe, expect, it } from 'vitest';
import { checkHistory } from './check-history.js';
import { call, history, lockOps as L, tok } from './fixtures.js';
import type { HistoryEvent } from './history.js';
import { lockModel } from './lock-model.js';
import type { ResourceKind } from './lock-rules.js';

function check(events: HistoryEvent[], resource: ResourceKind = 'fenced') {
  const checked = checkHistory(lockModel({ resource }), events);
  if (checked.kind !== 'checked') throw new Error(`bad input: ${JSON.stringify(checked.problems)}`);
  return checked.result;
}
const verdict = (events: HistoryEvent[], resource: ResourceKind = 'fenced') => check(events, resource).verdict;
/** The reasons given for the operations that could not come next. */
const reasons = (events: HistoryEvent[], resource: ResourceKind = 'fenced') => check(events, resource).keys.flatMap((k) => k.failure?.blocked.map((b) => b.reason) ?? []);

describe('lock model: grants', () => {
  it('accepts grants one after another, each token above the last', () => {
    expect(verdict(history(L.acquire('a', 5, [0, 1]), L.release('a', 5, [2, 3]), L.acquire('b', 9, [4, 5]), L.release('b', 9, [6, 7])))).toBe('ok');
  });

  it('accepts an acquire that returned after a concurrent release, though invoked before it', () => {
    expect(verdict(history(L.acquire('a', 5, [0, 1]), L.acquire('b', 9, [2, 10]), L.release('a', 5, [3, 4])))).toBe('ok');
  });

  it('refuses a second grant while the key is held', () => {
    const events = history(L.acquire('a', 5, [0, 1]), L.acquire('b', 9, [2, 3]));
    expect(verdict(events)).toBe('illegal');
    expect(reasons(events)).toEqual([`the key is held by token ${tok(5)}, and an acquire needs it free`]);
  });

  it('refuses a token not above an earlier one on the key (ADR-02)', () => {
    const events = history(L.acquire('a', 9, [0, 1]), L.release('a', 9, [2, 3]), L.acquire('b', 5, [4, 5]));
    expect(reasons(events)).toEqual([`token ${tok(5)} is not above token ${tok(9)}, already granted on this key; tokens strictly increase (ADR-02)`]);
  });

  it('treats a failed acquire as no effect, whatever the key held', () => {
    expect(verdict(history(L.contended('b', [0, 1]), L.acquire('a', 5, [2, 3]), L.contended('b', [4, 5])))).toBe('ok');
  });

  it('accepts a re-entered acquire only from the current holder (ADR-13)', () => {
    expect(verdict(history(L.acquire('a', 5, [0, 1]), L.reacquire('a', 5, [2, 3])))).toBe('ok');
    const afterRelease = history(L.acquire('a', 5, [0, 1]), L.release('a', 5, [2, 3]), L.reacquire('a', 5, [4, 5]));
    expect(reasons(afterRelease)).toEqual([`a re-entered acquire returns the existing grant, but the key is free, not held by token ${tok(5)}`]);
  });
});

describe('lock model: ends of a hold', () => {
  it('lets the log expire the holder, and a release afterwards answers released: false', () => {
    expect(verdict(history(L.acquire('a', 5, [0, 1]), L.expire(5, 10), L.acquire('b', 9, [11, 12]), L.release('a', 5, [13, 14], false)))).toBe('ok');
  });

  it('refuses a release that released a hold that was already gone', () => {
    const events = history(L.acquire('a', 5, [0, 1]), L.expire(5, 10), L.acquire('b', 9, [11, 12]), L.release('a', 5, [13, 14], true));
    expect(reasons(events)).toEqual([`a release that released token ${tok(5)}, but the key is held by token ${tok(9)}`]);
  });

  it('refuses released: false from the holder itself', () => {
    const events = history(L.acquire('a', 5, [0, 1]), L.release('a', 5, [2, 3], false));
    expect(reasons(events)).toEqual([expect.stringMatching(/holds the key, so its release would have released it/)]);
  });

  it('refuses an expiry of a token that does not hold the key', () => {
    const events = history(L.acquire('a', 5, [0, 1]), L.release('a', 5, [2, 3]), L.expire(5, 10));
    expect(reasons(events)).toEqual([`the log expired token ${tok(5)}, but the key is free`]);
  });

  it('reads nothing from the value of a release with unknown outcome', () => {
    expect(verdict(history(L.acquire('a', 5, [0, 1]), call('a', 'release', { token: tok(5) }, [2, 3], 'info', 'timeout'), L.acquire('b', 9, [4, 5])))).toBe('ok');
  });

  it('takes a release with unknown outcome as either released or not', () => {
    const released = history(L.acquire('a', 5, [0, 1]), call('a', 'release', { token: tok(5) }, [2, 3], 'info'), L.acquire('b', 9, [4, 5]));
    expect(verdict(released)).toBe('ok');
    const notReleased = history(L.acquire('a', 5, [0, 1]), call('a', 'release', { token: tok(5) }, [2, 3], 'info'), L.expire(5, 4));
    expect(verdict(notReleased)).toBe('ok');
  });
});

describe('lock model: acquires with unknown outcome', () => {
  it('lets an unknown acquire hold the key with a token nobody was told, named by its expiry', () => {
    const events = history(L.acquireUnknown('a', [0, 100]), L.contended('b', [10, 11]), L.expire(7, 200), L.acquire('b', 9, [201, 202]));
    expect(verdict(events)).toBe('ok');
  });

  it('binds the unknown token when the same session re-enters it', () => {
    expect(verdict(history(L.acquireUnknown('a', [0, 100]), L.reacquire('a', 7, [101, 102]), L.release('a', 7, [103, 104])))).toBe('ok');
  });

  it('lets an unknown acquire never take effect', () => {
    expect(verdict(history(L.acquireUnknown('a', [0, 100]), L.acquire('b', 9, [1, 2]), L.release('b', 9, [3, 4])))).toBe('ok');
  });

  it('still refuses two grants at once when one of them is unknown but certainly took effect', () => {
    // The expiry names token 7, which only a's unknown acquire can have had; b's grant inside it is a double grant.
    const events = history(L.acquireUnknown('a', [0, 5]), L.acquire('b', 9, [6, 7]), L.expire(7, 8));
    expect(verdict(events)).toBe('illegal');
  });

  it('reads a known token from an unknown acquire', () => {
    const events = history(call('a', 'acquire', null, [0, 5], 'info', { token: tok(7) }), L.expire(9, 8));
    expect(verdict(events)).toBe('illegal');
    expect(verdict(history(call('a', 'acquire', null, [0, 5], 'info', { token: tok(7) }), L.expire(7, 8)))).toBe('ok');
  });
});

describe('lock model: writes through a fence (ADR-16)', () => {
  const paused = [L.acquire('a', 5, [0, 1]), L.write('a', 5, [2, 3]), L.expire(5, 10), L.acquire('b', 9, [11, 12])];

  it('rejects the paused holder once the new holder has written', () => {
    expect(verdict(history(...paused, L.write('b', 9, [13, 14]), L.write('a', 5, [15, 16], 'fail')))).toBe('ok');
  });

  it('refuses a fence that accepted a token below its mark', () => {
    const events = history(...paused, L.write('b', 9, [13, 14]), L.write('a', 5, [15, 16], 'ok'));
    expect(reasons(events)).toEqual([`the fenced resource accepted token ${tok(5)} below its high-water mark ${tok(9)}; it must reject it (ADR-16)`]);
  });

  it('accepts a stale holder writing before the new holder does: the resource sees the writes in token order', () => {
    expect(verdict(history(...paused, L.write('a', 5, [13, 14]), L.write('b', 9, [15, 16])))).toBe('ok');
  });

  it('takes either answer for a repeated token: one token is one grant', () => {
    expect(verdict(history(L.acquire('a', 5, [0, 1]), L.write('a', 5, [2, 3]), L.write('a', 5, [4, 5], 'ok')))).toBe('ok');
    expect(verdict(history(L.acquire('a', 5, [0, 1]), L.write('a', 5, [2, 3]), L.write('a', 5, [4, 5], 'fail')))).toBe('ok');
  });

  it('refuses a fence that rejected a token above its mark', () => {
    const events = history(L.acquire('a', 5, [0, 1]), L.write('a', 5, [2, 3], 'fail'));
    expect(reasons(events)).toEqual([`the fence rejected token ${tok(5)}, which is above its high-water mark none; a fence rejects only tokens below its mark (ADR-16)`]);
  });

  it('refuses a write with a token not granted by then', () => {
    const events = history(L.write('a', 5, [0, 1]), L.acquire('a', 5, [2, 3]));
    expect(reasons(events)).toEqual([`token ${tok(5)} was not granted on this key before the write took effect (highest so far: none)`]);
  });

  it('lets a write with unknown outcome land or not', () => {
    expect(verdict(history(...paused, L.write('a', 5, [13, 20], 'info'), L.write('b', 9, [14, 15])))).toBe('ok');
  });
});

describe('lock model: writes to an unfenced resource (ADR-01)', () => {
  const paused = [L.acquire('a', 5, [0, 1]), L.write('a', 5, [2, 3]), L.expire(5, 10), L.acquire('b', 9, [11, 12])];

  it('refuses a write from an older grant after a newer one, even before the new holder writes', () => {
    const events = history(...paused, L.write('a', 5, [13, 14]));
    expect(verdict(events, 'fenced')).toBe('ok');
    expect(reasons(events, 'unfenced')).toEqual([`token ${tok(5)} wrote to the unfenced resource after token ${tok(9)} was granted on this key: two holders acted at once (ADR-01)`]);
  });

  it('accepts writes by the latest grant, and ignores failed writes', () => {
    expect(verdict(history(...paused, L.write('b', 9, [13, 14]), L.write('a', 5, [15, 16], 'fail')), 'unfenced')).toBe('ok');
  });
});

describe('lock model: decoding lines', () => {
  const problems = (events: HistoryEvent[]) => {
    const checked = checkHistory(lockModel(), events);
    return checked.kind === 'bad-input' ? checked.problems : [];
  };

  it.each([
    ['an unknown function', call('a', 'lock', null, [0, 1], 'ok'), 0, /"f" is "lock"; the lock model knows "acquire", "release", "expire" and "write"/],
    ['an ok acquire without a token', call('a', 'acquire', null, [0, 1], 'ok', {}), 1, /an ok acquire's value must be an object with the token/],
    ['a token as a JSON number', call('a', 'acquire', null, [0, 1], 'ok', { token: 5 }), 1, /give the token as a decimal string, \{"token": "5"\}/],
    ['a token with leading zeros', call('a', 'release', { token: '05' }, [0, 1], 'ok'), 0, /token "05" is not a decimal integer/],
    ['a release without a token', call('a', 'release', null, [0, 1], 'ok'), 0, /release by a: the invoke's value must be an object with the token/],
    ['a released flag that is not a boolean', call('a', 'release', { token: tok(5) }, [0, 1], 'ok', { released: 'yes' }), 1, /"released" is "yes"; give true or false/],
    ['an expiry from a client', call('a', 'expire', { token: tok(5) }, [0, 1], 'ok'), 0, /"expire" is a log event: give it with "process": "log"/],
    ['a log event other than expire', [{ process: 'log', type: 'ok', f: 'acquire', key: 'k', value: null, time: 0 } as HistoryEvent], 0, /records only "expire" events/],
  ])('refuses %s, naming the line at fault', (_, events, event, message) => {
    expect(problems(events)).toEqual([{ event, message: expect.stringMatching(message) }]);
  });

  it('describes operations and states for the explanation', () => {
    const model = lockModel();
    expect(model.name).toBe('lock (fenced resource)');
    expect(model.describeState({ holder: 5n, highest: 5n, mark: -1n })).toBe('held by token 5; highest token granted 5; fence mark none');
    expect(lockModel({ resource: 'unfenced' }).describeState({ holder: 'none', highest: -1n, mark: -1n })).toBe('free; highest token granted none');
  });
});
