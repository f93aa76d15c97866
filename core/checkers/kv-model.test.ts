import { describe, expect, it } from 'vitest';
import { checkHistory } from './check-history.js';
import { call, history, kvOps as KV } from './fixtures.js';
import type { HistoryEvent } from './history.js';
import { canonicalJson, kvModel } from './kv-model.js';

function check(events: HistoryEvent[]) {
  const checked = checkHistory(kvModel(), events);
  if (checked.kind !== 'checked') throw new Error(`bad input: ${JSON.stringify(checked.problems)}`);
  return checked.result;
}
const verdict = (events: HistoryEvent[]) => check(events).verdict;
const reasons = (events: HistoryEvent[]) => check(events).keys.flatMap((k) => k.failure?.blocked.map((b) => b.reason) ?? []);

describe('kv model: a register per key', () => {
  it('reads what was last put, and nothing before the first put or after a delete', () => {
    expect(verdict(history(KV.get('b', null, [0, 1]), KV.put('a', 'x', [2, 3]), KV.get('b', 'x', [4, 5]), KV.del('a', [6, 7]), KV.get('b', null, [8, 9])))).toBe('ok');
  });

  it('refuses a stale read', () => {
    const events = history(KV.put('a', 1, [0, 1]), KV.put('a', 2, [2, 3]), KV.get('b', 1, [4, 5]));
    expect(reasons(events)).toEqual(['it read 1, but the register holds 2']);
  });

  it('lets a read concurrent with a put see either value', () => {
    expect(verdict(history(KV.put('a', 1, [0, 1]), KV.put('a', 2, [2, 6]), KV.get('b', 1, [3, 4]), KV.get('c', 2, [3, 5])))).toBe('ok');
    // ...but not the new value and then the old one, one read after the other.
    expect(verdict(history(KV.put('a', 1, [0, 1]), KV.put('a', 2, [2, 9]), KV.get('b', 2, [3, 4]), KV.get('b', 1, [5, 6])))).toBe('illegal');
  });

  it('swaps on a matching compare, and a failed compare means the value differed', () => {
    expect(verdict(history(KV.put('a', 1, [0, 1]), KV.cas('b', 1, 2, [2, 3]), KV.cas('c', 1, 3, [4, 5], 'fail'), KV.get('a', 2, [6, 7])))).toBe('ok');
    expect(reasons(history(KV.put('a', 1, [0, 1]), KV.cas('b', 2, 3, [2, 3])))).toEqual(['the compare needs 2, but the register holds 1']);
    expect(reasons(history(KV.put('a', 1, [0, 1]), KV.cas('b', 1, 3, [2, 3], 'fail')))).toEqual(['the compare failed, but the register holds 1, which it compared against']);
  });

  it('lets a put with unknown outcome land late or never; a failed put never lands', () => {
    expect(verdict(history(KV.put('a', 1, [0, 5], 'info'), KV.get('b', null, [6, 7]), KV.get('b', 1, [8, 9])))).toBe('ok');
    expect(verdict(history(KV.put('a', 1, [0, 5], 'info'), KV.get('b', null, [6, 7])))).toBe('ok');
    expect(verdict(history(KV.put('a', 1, [0, 5], 'fail'), KV.get('b', 1, [6, 7])))).toBe('illegal');
  });

  it('compares values by content: key order in objects does not matter', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: null }], a: 'x' })).toBe('{"a":"x","b":[2,{"c":null,"d":1}]}');
    expect(verdict(history(KV.put('a', { b: 2, a: 1 }, [0, 1]), KV.get('b', { a: 1, b: 2 }, [2, 3])))).toBe('ok');
  });

  it('checks keys apart', () => {
    const result = check(history(KV.put('a', 1, [0, 1], 'ok', 'x'), KV.get('b', null, [2, 3], 'y'), KV.get('b', 2, [4, 5], 'x')));
    expect(result.keys.map((k) => [k.key, k.verdict])).toEqual([
      ['x', 'illegal'],
      ['y', 'ok'],
    ]);
  });

  it('refuses a cas without from and to, and a function it does not know', () => {
    const problems = (events: HistoryEvent[]) => {
      const checked = checkHistory(kvModel(), events);
      return checked.kind === 'bad-input' ? checked.problems.map((p) => p.message) : [];
    };
    expect(problems(call('a', 'cas', [1, 2], [0, 1], 'ok'))).toEqual([expect.stringMatching(/the invoke's value must be \{"from": <value>, "to": <value>\}; it is \[1,2\]/)]);
    expect(problems(call('a', 'read', null, [0, 1], 'ok'))).toEqual([expect.stringMatching(/the kv model knows "put", "get", "delete" and "cas"/)]);
  });
});
