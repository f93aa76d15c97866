// Fenced writes placed inside their intervals in token order where the intervals allow it (issue 15):
// overlapping writes of a correct fence pass the fence checker; a higher token completed before a lower
// one began is still caught (the control).
import { describe, expect, it } from 'vitest';
import { checkFence } from '../../../core/checkers/fence.js';
import type { ResourceWrite } from '../../../core/checkers/run-history.js';
import { placeFencedWrites } from './write-instants.js';

const RESOURCES = [{ name: 'r', fenced: true }];
const write = (holder: string, token: bigint, atMs: number, endMs: number, accepted = true): ResourceWrite => ({ resource: 'r', key: 'k', holder, token, atMs, endMs, accepted });

describe('placeFencedWrites', () => {
  it('a paused writer whose write was invoked first and published first is no fence violation', () => {
    // b (token 5) invoked at 10 and was paused before its check, till 100; a (token 4) invoked at 20,
    // published and answered at 25. The fence took 4 then 5: correct. At their invokes, 5 comes first.
    const writes = [write('b', 5n, 10, 100), write('a', 4n, 20, 25)];
    expect(checkFence(writes, RESOURCES).ok).toBe(false); // placed at invokes: a false violation
    const placed = placeFencedWrites(writes);
    expect(placed.map((w) => [w.holder, w.atMs])).toEqual([['a', 20], ['b', 20]]);
    expect(checkFence(placed, RESOURCES).ok).toBe(true);
  });

  it('the control: a lower token accepted after a higher one completed is still a violation', () => {
    const writes = [write('b', 5n, 10, 12), write('a', 4n, 20, 25), write('c', 6n, 30, 31, false)];
    const result = checkFence(placeFencedWrites(writes), RESOURCES);
    expect(result.violations.map((v) => v.kind)).toEqual(['fence-accepted-below-mark']);
  });

  it('refused writes keep their instants, and equal tokens stay in invoke order', () => {
    const writes = [write('a', 4n, 1, 2), write('a', 4n, 5, 6), write('b', 3n, 7, 8, false)];
    expect(placeFencedWrites(writes).map((w) => [w.holder, w.atMs, w.accepted])).toEqual([['a', 1, true], ['a', 5, true], ['b', 7, false]]);
  });
});
