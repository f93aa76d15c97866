import { describe, expect, it } from 'vitest';
import { disturbancesOf } from './disturbances.js';
import type { Fault } from './faults.js';

const timing = { startMs: 1_000, ttlMs: 5_000, waitMs: 4_000, recoverMs: 1_500 };
const loseAnswers = (everyNth: number): Fault => ({ atMs: 2_000, kind: 'lose-answers', target: 'arbiter-1', forMs: 3_000, everyNth, timeoutMs: 800 });

describe('disturbancesOf: which faults excuse a slow service (issue 11)', () => {
  it('counts every answer lost as a span that excuses a slow grant, not a fence, up to the last lost answer', () => {
    expect(disturbancesOf([loseAnswers(1)], timing)).toEqual([
      { what: 'every answer lost to arbiter-1', fromMs: 3_000, toMs: 1_000 + 2_000 + 3_000 + 800 + 1_500, quorumHealthy: true },
    ]);
  });

  it('its control: one answer in two or more lost is the core\'s to absorb, no disturbance, as a lossy watch is', () => {
    expect(disturbancesOf([loseAnswers(2), loseAnswers(4)], timing)).toEqual([]);
    expect(disturbancesOf([{ atMs: 2_000, kind: 'lossy-watch', target: 'arbiter-1', forMs: 3_000 }], timing)).toEqual([]);
  });
});
