import { describe, expect, it } from 'vitest';
import { readHistoryEvent } from './history.js';

const line = { process: 'a', type: 'invoke', f: 'acquire', key: 'payments/ledger', value: null, time: 0 };

describe('readHistoryEvent', () => {
  it('reads the six fields, numbers for process and key as strings, a missing value as null', () => {
    expect(readHistoryEvent(line)).toEqual({ ok: true, event: line });
    const jepsen = { process: 3, type: 'ok', f: 'read', key: 7, time: 12.5, index: 4 };
    expect(readHistoryEvent(jepsen)).toEqual({ ok: true, event: { process: '3', type: 'ok', f: 'read', key: '7', value: null, time: 12.5 } });
  });

  it.each([
    [[1, 2], /an event is a JSON object .* not an array/],
    [null, /not null/],
    [{ ...line, process: '' }, /"process" is ""; give a non-empty string/],
    [{ ...line, type: 'done' }, /"type" is "done"; it must be one of "invoke", "ok", "fail", "info"/],
    [{ ...line, f: 3 }, /"f" is 3; give the operation's function/],
    [{ ...line, key: { a: 1 } }, /"key" is \{"a":1\}/],
    [{ ...line, key: 1.5 }, /"key" is 1.5/],
    [{ ...line, time: '12' }, /"time" is "12"; give a number/],
    [{ process: 'a', type: 'ok', f: 'get', key: 'k' }, /"time" is missing/],
  ])('refuses %j, saying what to write', (value, message) => {
    const reading = readHistoryEvent(value);
    expect(reading.ok).toBe(false);
    if (!reading.ok) expect(reading.problem).toMatch(message);
  });
});
