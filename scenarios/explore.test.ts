import { describe, expect, it } from 'vitest';
import { type Episode, toFaults } from './explore-schedule.js';
import { exploreRun, parseShard, runSchedule, scheduleOf, seedOfRun, shardRuns, shrinkFailure, swarmProfile } from './explore.js';
import { swarmEpisodes } from './swarm.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

/** Runs `runs` explorations from `baseSeed`; the verdicts in seed order. */
async function explore(variant: string, baseSeed: number, runs: number) {
  const verdicts = [];
  for (let run = 0; run < runs; run += 1) verdicts.push((await exploreRun(swarmProfile, variant, baseSeed, run, yieldToHost)).verdict);
  return verdicts;
}

describe('the explorer', () => {
  it('splits the seeds over shards: every run in exactly one shard, whatever the shard count', () => {
    for (const count of [1, 2, 3, 7]) {
      const all = Array.from({ length: count }, (_, index) => shardRuns(50, { index, count })).flat();
      expect([...all].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    }
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    for (const bad of ['4/4', '1', '-1/2', '1/0', 'a/b']) expect(() => parseShard(bad)).toThrow(/0 <= i < n/);
    expect(seedOfRun(100, 7)).toBe('107');
  });

  it('runs for a seed exactly the schedule `lockstep run swarm --seed N` runs (fast-check\'s first value for that seed)', () => {
    for (const seed of ['1', '9', '123']) expect(scheduleOf(swarmProfile, seed)).toEqual(swarmEpisodes(seed));
  });

  it.each([
    // [mutant, first seed, runs, seed that fails, the check that catches it]
    ['grant-on-watch-event', 1, 2, '1', 'belief'],
    ['no-seal', 1, 2, '2', 'token-order'],
    ['no-epoch-compare', 13, 2, '14', 'belief'],
    ['deadline-from-receive-time', 11, 2, '12', 'belief'],
  ])('catches %s in a small run, while the real core passes the same seeds', async (mutant, baseSeed, runs, failing, check) => {
    const caught = await explore(mutant, baseSeed, runs);
    const first = caught.find((v) => !v.ok);
    expect(first?.seed).toBe(failing);
    expect(first?.check).toBe(check);
    const honest = await explore('real-core', baseSeed, runs);
    expect(honest.filter((v) => !v.ok)).toEqual([]);
  });

  it('shrinks a failing schedule to one no longer than the original that still fails the same check, keeping what the failure needs', async () => {
    const seed = '14';
    const original = swarmEpisodes(seed);
    const shrunk = await shrinkFailure(swarmProfile, 'no-epoch-compare', seed, 'belief', yieldToHost, 20);
    expect(shrunk.original).toEqual(original);
    expect(shrunk.shrunk.length).toBeLessThanOrEqual(original.length);
    // The mutant only shows after an epoch advance an arbiter missed: shrinking cannot drop it.
    expect(shrunk.shrunk.some((episode: Episode) => episode.kind === 'advance-epoch')).toBe(true);
    expect(shrunk.artifact?.faults).toEqual(toFaults(shrunk.shrunk));
    const again = await runSchedule(swarmProfile, 'no-epoch-compare', seed, shrunk.shrunk, yieldToHost);
    expect(again.verdict).toMatchObject({ ok: false, check: 'belief' });
    expect(again.artifact?.traceHash).toBe(shrunk.artifact?.traceHash);
  });
});
