import { describe, expect, it } from 'vitest';
import { call, history, lockOps, tok } from './fixtures.js';
import type { HistoryEvent } from './history.js';
import { pairOperations } from './operations.js';

describe('pairOperations', () => {
  it('pairs each invoke with the next completion of its process, in invoke order', () => {
    const events = history(lockOps.acquire('a', 5, [0, 4]), lockOps.contended('b', [1, 2]), lockOps.release('a', 5, [6, 7]));
    const { operations, problems } = pairOperations(events);
    expect(problems).toEqual([]);
    expect(operations.map((op) => [op.id, op.process, op.f, op.outcome, op.callTime, op.returnTime, op.invokeEvent, op.completionEvent])).toEqual([
      [0, 'a', 'acquire', 'ok', 0, 4, 0, 3],
      [1, 'b', 'acquire', 'fail', 1, 2, 1, 2],
      [2, 'a', 'release', 'ok', 6, 7, 4, 5],
    ]);
    expect(operations[0]?.output).toEqual({ token: tok(5) });
    expect(operations[2]?.input).toEqual({ token: tok(5) });
  });

  it('keeps an info completion and an invoke never completed, returning at Infinity', () => {
    const events = history(call('a', 'acquire', null, [0, 9], 'info'), call('b', 'write', { token: tok(3) }, [2, 0], 'pending'));
    const { operations } = pairOperations(events);
    expect(operations.map((op) => [op.process, op.outcome, op.returnTime, op.completionEvent])).toEqual([
      ['a', 'info', Number.POSITIVE_INFINITY, 2],
      ['b', 'info', Number.POSITIVE_INFINITY, undefined],
    ]);
  });

  it('lets a process go on after an info: the unknown operation stays open', () => {
    const events = history(call('a', 'acquire', null, [0, 5], 'info'), lockOps.acquire('a', 9, [6, 7]));
    expect(pairOperations(events).problems).toEqual([]);
  });

  it('reads a log event as one instantaneous operation', () => {
    const { operations } = pairOperations(lockOps.expire(5, 100));
    expect(operations).toEqual([
      { id: 0, process: 'log', f: 'expire', key: 'k', input: { token: tok(5) }, outcome: 'ok', output: { token: tok(5) }, callTime: 100, returnTime: 100, invokeEvent: 0, completionEvent: 0 },
    ]);
  });

  it('names the event of every problem, and the open invoke it concerns', () => {
    const e = (process: string, type: HistoryEvent['type'], f: string, time: number, key = 'k'): HistoryEvent => ({ process, type, f, key, value: null, time });
    const { problems } = pairOperations([
      e('a', 'invoke', 'acquire', 0),
      e('a', 'invoke', 'release', 1),
      e('b', 'ok', 'acquire', 2),
      e('a', 'ok', 'release', 3),
      e('c', 'invoke', 'acquire', 5),
      e('c', 'ok', 'acquire', 4),
      e('log', 'invoke', 'expire', 6),
      e('d', 'invoke', 'put', 7, 'x'),
      e('d', 'ok', 'put', 8, 'y'),
    ]);
    expect(problems).toEqual([
      { event: 1, message: expect.stringMatching(/^process a invokes release while its acquire has not completed/), related: { event: 0, what: 'its open invoke' } },
      { event: 2, message: expect.stringMatching(/^process b completes acquire \("ok"\) without an open invoke/) },
      { event: 3, message: expect.stringMatching(/completes release on key "k", but its open invoke is acquire on key "k"/), related: { event: 0, what: 'the invoke' } },
      { event: 5, message: 'the completion at time 4 comes before its invoke at time 5', related: { event: 4, what: 'the invoke' } },
      { event: 6, message: expect.stringMatching(/a "log" event is instantaneous: give it as one line with "type": "ok"/) },
      { event: 8, message: expect.stringMatching(/completes put on key "y", but its open invoke is put on key "x"/), related: { event: 7, what: 'the invoke' } },
    ]);
  });
});
