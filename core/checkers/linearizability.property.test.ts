// The property: random legal lock histories pass; one injected overlap fails, and the failure
// names the key and the intruding grant.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistory } from './check-history.js';
import type { HistoryEvent } from './history.js';
import { lockModel } from './lock-model.js';
import { syntheticLockHistory } from './synthetic-history.js';

const shapes = fc.record({
  keys: fc.integer({ min: 1, max: 4 }),
  eventsPerKey: fc.integer({ min: 1, max: 80 }),
  processesPerKey: fc.integer({ min: 1, max: 6 }),
  seed: fc.integer({ min: 0, max: 0x7fffffff }),
  unknownRate: fc.constantFrom(0, 0.05, 0.3),
  expiryRate: fc.constantFrom(0.02, 0.08, 0.3),
});

function verdictOf(events: readonly HistoryEvent[]) {
  const checked = checkHistory(lockModel(), events);
  if (checked.kind !== 'checked') throw new Error(`bad input: ${JSON.stringify(checked.problems.slice(0, 3))}`);
  return checked.result;
}

describe('lock histories: random legal ones pass, one injected overlap fails', () => {
  it('passes every legal history', () => {
    fc.assert(
      fc.property(shapes, (shape) => {
        const result = verdictOf(syntheticLockHistory(shape).events);
        expect(result.keys.filter((k) => k.verdict !== 'ok')).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('fails once a second grant is injected inside a hold, and names the key and the intruder', () => {
    fc.assert(
      fc.property(shapes, fc.nat(), (shape, pick) => {
        const { events, holds } = syntheticLockHistory(shape);
        const candidates = holds.filter((h) => h.endInvokedAt !== undefined && h.endInvokedAt > h.acquireReturnedAt);
        fc.pre(candidates.length > 0);
        const hold = candidates[pick % candidates.length]!;
        const end = hold.endInvokedAt!;
        const token = String(hold.token + 1n);
        const intruder: HistoryEvent[] = [
          { process: 'intruder', type: 'invoke', f: 'acquire', key: hold.key, value: null, time: hold.acquireReturnedAt + (end - hold.acquireReturnedAt) / 3 },
          { process: 'intruder', type: 'ok', f: 'acquire', key: hold.key, value: { token }, time: end - (end - hold.acquireReturnedAt) / 3 },
        ];
        const result = verdictOf([...events, ...intruder]);
        expect(result.verdict).toBe('illegal');
        expect(result.keys.filter((k) => k.verdict === 'illegal').map((k) => k.key)).toEqual([hold.key]);
        const failure = result.keys.find((k) => k.key === hold.key)!.failure!;
        expect(failure.blocked.map((b) => b.operation.process)).toContain('intruder');
      }),
      { numRuns: 300 },
    );
  });
});
