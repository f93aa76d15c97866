import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkHistory } from './check-history.js';
import { history, kvOps as KV, lockOps as L, tok } from './fixtures.js';
import type { HistoryEvent } from './history.js';
import { kvModel } from './kv-model.js';
import { checkLinearizability, partitionByKey } from './linearizability.js';
import { explainKey, linearizabilityCheckResult } from './linearizability-report.js';
import { lockModel } from './lock-model.js';
import { type Model, type Operation, decodeOperations } from './model.js';
import { pairOperations } from './operations.js';
import { syntheticLockHistory } from './synthetic-history.js';

function decoded<S, I, O>(model: Model<S, I, O>, events: readonly HistoryEvent[]): Operation<I, O>[] {
  const pairing = pairOperations(events);
  expect(pairing.problems).toEqual([]);
  const result = decodeOperations(model, pairing.operations);
  expect(result.problems).toEqual([]);
  return result.operations;
}

/** The definition, by brute force: some order of the operations, respecting real time, that the model accepts. */
function bruteForce<S, I, O>(model: Model<S, I, O>, operations: readonly Operation<I, O>[]): boolean {
  const completed = (op: Operation<I, O>) => op.returnTime !== Number.POSITIVE_INFINITY;
  const search = (state: S, rest: readonly Operation<I, O>[]): boolean => {
    if (!rest.some(completed)) return true;
    return rest.some((next) => {
      if (rest.some((other) => other !== next && completed(other) && other.returnTime < next.callTime)) return false;
      return model.step(state, next).some((after) => search(after, rest.filter((op) => op !== next)));
    });
  };
  return [...partitionByKey(operations).values()].every((ops) => search(model.init(), ops));
}

const interval = fc.tuple(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 0, max: 6 })).map(([from, length]) => [from, from + length] as const);
const outcome = fc.constantFrom('ok', 'ok', 'ok', 'fail', 'info') as fc.Arbitrary<'ok' | 'fail' | 'info'>;
const value = fc.constantFrom(null, 1, 2);

const kvOperation = fc.oneof(
  fc.tuple(value, interval, outcome).map(([v, at, o]) => (p: string) => KV.put(p, v, at, o)),
  fc.tuple(value, interval).map(([v, at]) => (p: string) => KV.get(p, v, at)),
  fc.tuple(interval).map(([at]) => (p: string) => KV.del(p, at)),
  fc.tuple(value, value, interval, outcome).map(([from, to, at, o]) => (p: string) => KV.cas(p, from, to, at, o)),
);

const revisionArb = fc.integer({ min: 1, max: 4 });
const lockOperation = fc.oneof(
  fc.tuple(revisionArb, interval).map(([r, at]) => (p: string) => L.acquire(p, r, at)),
  fc.tuple(interval).map(([at]) => (p: string) => L.acquireUnknown(p, at)),
  fc.tuple(revisionArb, interval).map(([r, at]) => (p: string) => L.reacquire(p, r, at)),
  fc.tuple(revisionArb, interval, fc.boolean()).map(([r, at, released]) => (p: string) => L.release(p, r, at, released)),
  fc.tuple(revisionArb, fc.integer({ min: 0, max: 18 })).map(([r, time]) => () => L.expire(r, time)),
  fc.tuple(revisionArb, interval, outcome).map(([r, at, o]) => (p: string) => L.write(p, r, at, o)),
);

const build = (makers: readonly ((process: string) => HistoryEvent[])[]) => history(...makers.map((make, i) => make(`p${i}`)));

describe('linearizability: the search agrees with the definition', () => {
  it('on random small register histories', () => {
    fc.assert(
      fc.property(fc.array(kvOperation, { minLength: 1, maxLength: 7 }), (makers) => {
        const ops = decoded(kvModel(), build(makers));
        expect(checkLinearizability(kvModel(), ops).verdict).toBe(bruteForce(kvModel(), ops) ? 'ok' : 'illegal');
      }),
      { numRuns: 400 },
    );
  });

  it.each(['fenced', 'unfenced'] as const)('on random small lock histories (%s resource)', (resource) => {
    const model = lockModel({ resource });
    fc.assert(
      fc.property(fc.array(lockOperation, { minLength: 1, maxLength: 7 }), (makers) => {
        const ops = decoded(model, build(makers));
        expect(checkLinearizability(model, ops).verdict).toBe(bruteForce(model, ops) ? 'ok' : 'illegal');
      }),
      { numRuns: 400 },
    );
  });
});

/** One change to one completion: a different token, the other answer to a release, the other fence verdict. */
function mutate(events: readonly HistoryEvent[], pick: number, revision: number): HistoryEvent[] {
  const completions = events.map((e, i) => [e, i] as const).filter(([e]) => e.type !== 'invoke' && e.process !== 'log');
  if (completions.length === 0) return [...events];
  const [event, index] = completions[pick % completions.length]!;
  const changed: HistoryEvent =
    event.f === 'acquire'
      ? { ...event, type: 'ok', value: { token: tok(revision) } }
      : event.f === 'release'
        ? { ...event, type: 'ok', value: { released: !(event.value as { released?: boolean } | null)?.released } }
        : { ...event, type: event.type === 'ok' ? 'fail' : 'ok' };
  return events.map((e, i) => (i === index ? changed : e));
}

describe('linearizability: near-legal lock histories', () => {
  it('agrees with the definition on legal histories with one completion changed', () => {
    const model = lockModel();
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 14 }), fc.integer({ min: 1, max: 4 }), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 400 }), (events, processes, seed, pick, revision) => {
        const legal = syntheticLockHistory({ keys: 1, eventsPerKey: events, processesPerKey: processes, seed, unknownRate: 0.2, expiryRate: 0.2 }).events;
        const ops = decoded(model, mutate(legal, pick, revision));
        expect(checkLinearizability(model, ops).verdict).toBe(bruteForce(model, ops) ? 'ok' : 'illegal');
      }),
      { numRuns: 400 },
    );
  });
});

describe('linearizability: explanations', () => {
  it('explains an illegal key with a legal prefix, the deadline, and each blocked operation with its reason', () => {
    fc.assert(
      fc.property(fc.array(lockOperation, { minLength: 2, maxLength: 7 }), (makers) => {
        const model = lockModel();
        const result = checkLinearizability(model, decoded(model, build(makers)));
        for (const key of result.keys) {
          if (key.verdict !== 'illegal') continue;
          const failure = key.failure!;
          let states = [model.init()];
          for (const { operation, stateAfter } of failure.prefix) {
            states = states.flatMap((s) => model.step(s, operation));
            expect(states.map((s) => model.describeState(s))).toContain(stateAfter);
          }
          expect(failure.blocked.map((b) => b.operation)).toContain(failure.deadline);
          expect(failure.blocked.some(({ reason }) => !/can take effect here/.test(reason))).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('names the key, the prefix, the deadline and the reason', () => {
    const model = lockModel();
    const events = history(L.acquire('a', 5, [0, 2]), L.acquire('b', 9, [3, 5]));
    const result = checkLinearizability(model, decoded(model, events));
    expect(explainKey(model, result.keys[0]!)).toEqual([
      'key "k" is not linearizable under the lock (fenced resource) model',
      '  the search got furthest with this legal order of 1 of 2 operations:',
      `    1. events 1-2: a acquire → token ${tok(5)} [0, 2] → held by token ${tok(5)}; highest token granted ${tok(5)}; fence mark none`,
      `  then the state is: held by token ${tok(5)}; highest token granted ${tok(5)}; fence mark none`,
      `  events 3-4 (b acquire → token ${tok(9)}) returned at 5, so something must take effect by then, but nothing can:`,
      `    - events 3-4: b acquire → token ${tok(9)} [3, 5]: the key is held by token ${tok(5)}, and an acquire needs it free`,
    ]);
  });

  it('lists operations with unknown outcome that are alike once, with a count', () => {
    const model = lockModel();
    const timedOut = Array.from({ length: 50 }, (_, i) => L.acquireUnknown(`t${i}`, [i / 100, 1e9]));
    const result = checkLinearizability(model, decoded(model, history(...timedOut, L.acquire('a', 5, [1, 2]), L.acquire('b', 9, [3, 4]))));
    const blocked = result.keys[0]!.failure!.blocked;
    expect(blocked.map((b) => [b.operation.process, b.alike])).toEqual([
      ['t0', 49],
      ['b', 0],
    ]);
    expect(explainKey(model, result.keys[0]!).at(-2)).toMatch(/t0 acquire → unknown \[0, ∞\]: the key is held by token \d+, and an acquire needs it free \(and 49 more alike, outcome unknown\)$/);
  });

  it('shows only the end of a long prefix', () => {
    const model = lockModel();
    const holds = Array.from({ length: 12 }, (_, i) => [L.acquire('a', 10 * i + 1, [20 * i, 20 * i + 1]), L.release('a', 10 * i + 1, [20 * i + 2, 20 * i + 3])]).flat();
    const result = checkLinearizability(model, decoded(model, history(...holds, L.expire(500, 1000))));
    const lines = explainKey(model, result.keys[0]!, undefined, 3);
    expect(lines[1]).toBe('  the search got furthest with this legal order of 24 of 25 operations (the last 3 shown):');
    expect(lines[2]).toMatch(/^ {4}22\. /);
  });

  it('folds into a CheckResult with one violation per illegal key', () => {
    const model = lockModel();
    const events = history(L.acquire('a', 5, [0, 2], 'x'), L.acquire('b', 9, [3, 5], 'x'), L.acquire('c', 6, [0, 1], 'y'));
    const check = linearizabilityCheckResult(model, checkLinearizability(model, decoded(model, events)));
    expect(check).toMatchObject({ name: 'linearizability', ok: false, verdict: 'violated' });
    expect(check.violations).toEqual([{ kind: 'not-linearizable', key: 'x', message: expect.stringMatching(/^key "x" is not linearizable/), involved: [{ holder: 'b' }] }]);
  });
});

describe('linearizability: budget, partitions, determinism', () => {
  it('says unknown, not ok, when the step budget runs out', () => {
    const model = lockModel();
    const ops = decoded(model, history(L.acquire('a', 5, [0, 2]), L.release('a', 5, [3, 5]), L.acquire('b', 9, [6, 8])));
    expect(checkLinearizability(model, ops, { stepsPerKey: 2 })).toMatchObject({ verdict: 'unknown', keys: [{ key: 'k', verdict: 'unknown', steps: 2 }] });
    expect(checkLinearizability(model, ops, { stepsPerKey: 100 }).verdict).toBe('ok');
    expect(linearizabilityCheckResult(model, checkLinearizability(model, ops, { stepsPerKey: 2 }))).toMatchObject({ ok: false, verdict: 'unknown', detail: expect.stringMatching(/^unknown: the search budget ran out on 1 key \("k"\)/) });
    expect(() => checkLinearizability(model, ops, { stepsPerKey: 0 })).toThrow(/stepsPerKey is 0/);
  });

  it('is illegal when any key is, whatever the budget of the others', () => {
    const model = lockModel();
    const events = history(L.acquire('a', 5, [0, 2], 'b-key'), L.acquire('b', 9, [3, 5], 'b-key'), L.acquire('c', 5, [0, 2], 'a-key'), L.release('c', 5, [3, 4], true, 'a-key'));
    const result = checkLinearizability(model, decoded(model, events));
    expect(result.keys.map((k) => [k.key, k.verdict, k.operations])).toEqual([
      ['a-key', 'ok', 2],
      ['b-key', 'illegal', 2],
    ]);
    expect(result.verdict).toBe('illegal');
  });

  it('stays cheap when thousands of operations have unknown outcome: alike ones are tried once', () => {
    const model = lockModel();
    const timedOut = Array.from({ length: 2000 }, (_, i) => L.acquireUnknown(`t${i}`, [i / 1000, 1e9]));
    const holds = Array.from({ length: 200 }, (_, i) => [L.acquire('a', 10 * i + 5, [10 + 20 * i, 11 + 20 * i]), L.expire(10 * i + 5, 12 + 20 * i), L.release('a', 10 * i + 5, [13 + 20 * i, 14 + 20 * i], false)]).flat();
    const result = checkLinearizability(model, decoded(model, history(...timedOut, ...holds)));
    expect(result.verdict).toBe('ok');
    expect(result.keys[0]!.steps).toBeLessThan(5000);
  });

  it('decides a long single-key history', () => {
    const model = lockModel();
    const { events } = syntheticLockHistory({ keys: 1, eventsPerKey: 20_000, processesPerKey: 5, seed: 3 });
    expect(checkLinearizability(model, decoded(model, events)).verdict).toBe('ok');
  });

  it('gives the same answer, step for step, every time', () => {
    const model = lockModel();
    const events = history(L.acquire('a', 5, [0, 9]), L.acquire('b', 9, [1, 8]), L.acquire('c', 12, [2, 7]), L.release('c', 12, [10, 11]));
    const once = JSON.stringify(checkHistory(model, events), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    const again = JSON.stringify(checkHistory(model, events), (_, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
    expect(again).toBe(once);
  });
});
