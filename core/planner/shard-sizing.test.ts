import { describe, expect, it } from 'vitest';
import { drainSecondsMax, maxOverMean, movedFraction, shardsNeeded, syntheticUnits } from './shard-sizing.js';

const units = syntheticUnits(20_000);

describe('shard sizing (ADR-07/09)', () => {
  it.each(Array.from({ length: 19 }, (_, i) => i + 2))('moves within ±20%% of 1/(N+1) of the keys going from %i shards to one more', (n) => {
    const expected = 1 / (n + 1);
    expect(Math.abs(movedFraction(units, n, 1) - expected)).toBeLessThan(0.2 * expected);
  });

  it('moves about M/(N+M) adding several shards at once', () => {
    expect(movedFraction(units, 6, 2)).toBeCloseTo(2 / 8, 1);
    expect(movedFraction(units, 6, 0)).toBe(0);
  });

  it('measures the spread: a single shard is perfect, many shards are close', () => {
    expect(maxOverMean(units, 1)).toBe(1);
    const spread = maxOverMean(units, 16);
    expect(spread).toBeGreaterThan(1);
    expect(spread).toBeLessThan(1.15);
  });

  it('sizes for the hottest shard, not the mean: more shards than G/W when the spread is uneven', () => {
    const sizing = shardsNeeded(units, 10_000, 1_000);
    expect(sizing.shardsNeeded).toBeGreaterThanOrEqual(10);
    expect(sizing.hottestShardGrantsPerSecond).toBeLessThanOrEqual(1_000);
    // one fewer shard would put the hottest over the ceiling
    const fewer = sizing.shardsNeeded - 1;
    expect((10_000 / fewer) * maxOverMean(units, fewer)).toBeGreaterThan(1_000);
  });

  it('needs one shard when the rate is under the ceiling', () => {
    expect(shardsNeeded(units, 10, 1_000).shardsNeeded).toBe(1);
  });

  it('refuses a rate no shard count can carry, naming the fix', () => {
    expect(() => shardsNeeded(units, 1e9, 1)).toThrow(/raise the ceiling/);
  });

  it('drains for the longest TTL plus the expiry scan and one leader change', () => {
    expect(drainSecondsMax([15, 60, 10])).toBe(61.5);
    expect(drainSecondsMax([])).toBe(1.5);
  });
});
