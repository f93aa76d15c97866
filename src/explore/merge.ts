// Combines the summaries of one sharded exploration (`explore --shard i/n --summary FILE`, one per machine)
// into the report one unsharded run over the same seeds would give: every run, every failure in seed order
// with its replay command, runs per minute. A merge that would claim seeds nobody ran is refused: shards
// of another exploration (scenario, variant, mutant, first seed, runs or shard count differ), a shard given
// twice, or a shard missing. A shard that stopped at its first failure (no --keep-going) covered only part
// of its seeds; the merged report says so rather than counting the rest as clean.
import { formatNumber, formatSeconds } from '../../core/numbers.js';
import { parseShard } from '../../scenarios/explore.js';
import type { ExploreSummary, SummaryFailure } from './summary.js';

export interface SourcedSummary {
  /** Where it came from, for messages: a file name. */
  readonly source: string;
  readonly summary: ExploreSummary;
}

export interface MergedExploration {
  readonly scenario: string;
  readonly variant: string;
  readonly mutant: string | null;
  readonly seeds: { readonly first: number; readonly runs: number; readonly last: number };
  readonly shards: number;
  /** Runs completed in all shards. */
  readonly runs: number;
  /** Every seed of the exploration ran (no shard stopped early). */
  readonly complete: boolean;
  /** Failures of every shard, in seed order. */
  readonly failures: readonly SummaryFailure[];
  /** The slowest shard's wall time: the exploration's, when the shards ran at once. */
  readonly wallMs: number;
  readonly runsPerMinute: number;
}

/** Why a set of summaries cannot be merged; the message names the files and the fix. */
export class MergeRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MergeRefused';
  }
}

/** The fields that must agree for summaries to be shards of one exploration. */
function identityOf(summary: ExploreSummary): string {
  const { count } = parseShard(summary.seeds.shard);
  return `scenario ${summary.scenario}, variant ${summary.variant}, mutant ${summary.mutant ?? 'none'}, seeds ${summary.seeds.first} + ${summary.seeds.runs} runs, ${count} shards`;
}

export function mergeSummaries(sourced: readonly SourcedSummary[]): MergedExploration {
  const first = sourced[0];
  if (first === undefined) throw new MergeRefused('no summaries to merge: give the files `explore --summary` wrote, or the directories that hold them');
  const expected = identityOf(first.summary);
  const strangers = sourced.filter((s) => identityOf(s.summary) !== expected);
  if (strangers.length > 0) {
    throw new MergeRefused(`${strangers.map((s) => s.source).join(', ')} ${strangers.length === 1 ? 'is' : 'are'} not a shard of the same exploration as ${first.source} (${expected}; ${identityOf(strangers[0]!.summary)}): merge the shards of one exploration at a time`);
  }
  const { count } = parseShard(first.summary.seeds.shard);
  const byIndex = new Map<number, string>();
  for (const { source, summary } of sourced) {
    const { index } = parseShard(summary.seeds.shard);
    const seen = byIndex.get(index);
    if (seen !== undefined) throw new MergeRefused(`shard ${index}/${count} is given twice (${seen} and ${source}): its seeds would be counted twice; give each shard once`);
    byIndex.set(index, source);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) throw new MergeRefused(`shard${missing.length === 1 ? '' : 's'} ${missing.map((i) => `${i}/${count}`).join(', ')} of ${count} ${missing.length === 1 ? 'is' : 'are'} missing: their seeds did not run (or their summaries are elsewhere); give every shard's summary`);
  return combine(sourced.map((s) => s.summary), count);
}

function combine(summaries: readonly ExploreSummary[], shards: number): MergedExploration {
  const head = summaries[0]!;
  const runs = summaries.reduce((sum, s) => sum + s.runs, 0);
  const wallMs = Math.max(...summaries.map((s) => s.wallMs));
  const failures = summaries.flatMap((s) => s.failures).sort((a, b) => compareSeeds(a.seed, b.seed));
  return {
    scenario: head.scenario,
    variant: head.variant,
    mutant: head.mutant,
    seeds: { first: head.seeds.first, runs: head.seeds.runs, last: head.seeds.first + head.seeds.runs - 1 },
    shards,
    runs,
    complete: summaries.every((s) => s.runs === s.runsPlanned),
    failures,
    wallMs,
    runsPerMinute: wallMs === 0 ? 0 : Math.round((runs * 60_000) / wallMs),
  };
}

function compareSeeds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The report as a person reads it: one line of totals, then each failure with its replay command. */
export function describeMerged(merged: MergedExploration): string[] {
  const what = merged.mutant === null ? `${merged.scenario} / ${merged.variant}` : `${merged.scenario} with mutant ${merged.mutant}`;
  const coverage = merged.complete
    ? `all ${formatNumber(merged.seeds.runs, 0)} seeds ${merged.seeds.first}..${merged.seeds.last}`
    : `${formatNumber(merged.runs, 0)} of ${formatNumber(merged.seeds.runs, 0)} seeds ${merged.seeds.first}..${merged.seeds.last} (a shard stopped at its first failure; run with --keep-going to cover every seed)`;
  const outcome = merged.failures.length === 0 ? 'no failure' : `${merged.failures.length} failure${merged.failures.length === 1 ? '' : 's'}`;
  const lines = [`explore ${what}: ${merged.shards} shards, ${coverage}, ${formatNumber(merged.runsPerMinute, 0)} runs/min (slowest shard ${formatSeconds(merged.wallMs, 1)}): ${outcome}`];
  for (const failure of merged.failures) lines.push(`  seed ${failure.seed} failed ${failure.check}: ${failure.replay}`);
  return lines;
}
