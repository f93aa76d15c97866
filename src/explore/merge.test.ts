import { describe, expect, it } from 'vitest';
import { MergeRefused, type SourcedSummary, describeMerged, mergeSummaries } from './merge.js';
import { type ExploreSummary, SUMMARY_FORMAT } from './summary.js';

/** Shard `index` of `count` over seeds 100..111, with its share of runs and the failures given. */
function shard(index: number, count: number, options: { failures?: string[]; stoppedAfter?: number; wallMs?: number; variant?: string } = {}): SourcedSummary {
  const planned = Array.from({ length: 12 }, (_, run) => run).filter((run) => run % count === index).length;
  const summary: ExploreSummary = {
    format: SUMMARY_FORMAT,
    scenario: 'swarm',
    variant: options.variant ?? 'real-core',
    mutant: null,
    seeds: { first: 100, runs: 12, shard: `${index}/${count}` },
    runs: options.stoppedAfter ?? planned,
    runsPlanned: planned,
    failures: (options.failures ?? []).map((seed) => ({ seed, scenario: 'swarm', check: 'belief', artifact: `out/${seed}.json`, replay: `lockstep replay out/${seed}.json` })),
    runsToFirstFailure: null,
    workers: 1,
    wallMs: options.wallMs ?? 1_000,
  };
  return { source: `shard-${index}.json`, summary };
}

describe('merging the shards of one exploration', () => {
  it('counts every run once, orders the failures by seed, and takes the slowest shard as the wall time', () => {
    const merged = mergeSummaries([shard(2, 3, { failures: ['110'] }), shard(0, 3, { wallMs: 3_000 }), shard(1, 3, { failures: ['101', '104'] })]);
    expect(merged).toMatchObject({ runs: 12, shards: 3, complete: true, wallMs: 3_000, runsPerMinute: 240, seeds: { first: 100, runs: 12, last: 111 } });
    expect(merged.failures.map((f) => f.seed)).toEqual(['101', '104', '110']);
    expect(describeMerged(merged)[0]).toContain('all 12 seeds 100..111');
    expect(describeMerged(merged)).toContain('  seed 104 failed belief: lockstep replay out/104.json');
  });

  it('orders seeds as numbers, not as text (seed 99 before seed 100)', () => {
    const merged = mergeSummaries([shard(0, 2, { failures: ['100'] }), shard(1, 2, { failures: ['99'] })]);
    expect(merged.failures.map((f) => f.seed)).toEqual(['99', '100']);
  });

  it('refuses a missing shard, naming it', () => {
    expect(() => mergeSummaries([shard(0, 3), shard(2, 3)])).toThrow(/shard 1\/3 of 3 is missing/);
  });

  it('refuses a shard given twice, naming both files', () => {
    const twice = { ...shard(1, 2), source: 'copy.json' };
    expect(() => mergeSummaries([shard(0, 2), shard(1, 2), twice])).toThrow(/shard 1\/2 is given twice \(shard-1.json and copy.json\)/);
  });

  it('refuses overlapping partitions (2 shards beside 3) and shards of another variant', () => {
    expect(() => mergeSummaries([shard(0, 2), shard(1, 3)])).toThrow(MergeRefused);
    expect(() => mergeSummaries([shard(0, 2), shard(1, 2, { variant: 'no-seal' })])).toThrow(/not a shard of the same exploration/);
  });

  it('refuses nothing to merge', () => {
    expect(() => mergeSummaries([])).toThrow(/no summaries to merge/);
  });

  it('says when a shard stopped at its first failure rather than claiming its seeds', () => {
    const merged = mergeSummaries([shard(0, 2, { failures: ['102'], stoppedAfter: 2 }), shard(1, 2)]);
    expect(merged.complete).toBe(false);
    expect(merged.runs).toBe(8);
    expect(describeMerged(merged)[0]).toContain('8 of 12 seeds');
  });
});
