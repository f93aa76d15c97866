// `lockstep shards`: how many entity shards a grant rate needs (ADR-07/09), measured on a key sample
// with the same rendezvous hashing the arbiter homes keys with. Every figure says where it comes from.
import type { Command } from 'commander';
import { checkDocuments } from '../../core/classes/index.js';
import { drainSecondsMax, maxOverMean, movedFraction, shardsNeeded, syntheticUnits } from '../../core/planner/shard-sizing.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { formatUnreadable, readDocumentFiles, todayUtc } from '../policy-files.js';

interface ShardsOptions {
  grantsPerSecond: string;
  keys: string;
  shards?: string;
  shardCeiling?: string;
  add: string;
  class: string[];
  json?: boolean;
}

const DEFAULT_TTL_SECONDS = 15; // ADR-11's default, when no class is given
const MAX_SAMPLE_KEYS = 1_000_000;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerShardsCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('shards')
    .description('Size entity shards (ADR-07/09): shards needed for a grant rate, the spread of rendezvous hashing, keys moved by adding shards, and the drain window of a move.')
    .requiredOption('--grants-per-second <G>', 'peak grants per second across the entity tier')
    .requiredOption('--keys <K>', 'how many distinct keys (homing units) to sample the spread with')
    .option('--shards <N>', 'the current shard count (default: the count needed)')
    .option('--shard-ceiling <W>', 'grants/s one shard sustains (measure it with lockstep bench)')
    .option('--add <M>', 'shards to add, for the moved fraction', '1')
    .option('--class <file>', 'LockClass file(s): the drain window is the longest entity-tier TTL (repeatable)', collect, [])
    .option('--json', 'print {shardsNeeded, maxOverMean, movedFraction, drainSecondsMax, ...} on the last line')
    .action(async (options: ShardsOptions) => {
      setExitCode(await runShards(options, io));
    });
}

function positive(text: string | undefined, flag: string, integer: boolean, max = Number.MAX_SAFE_INTEGER): number | string {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)) || value > max) {
    return `${flag} ${JSON.stringify(text)} must be a positive ${integer ? 'whole ' : ''}number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`;
  }
  return value;
}

async function runShards(options: ShardsOptions, io: CliIo): Promise<number> {
  const g = positive(options.grantsPerSecond, '--grants-per-second', false);
  const k = positive(options.keys, '--keys', true, MAX_SAMPLE_KEYS);
  const m = positive(options.add, '--add', true, 1024);
  const n = options.shards === undefined ? undefined : positive(options.shards, '--shards', true, 1024);
  const w = options.shardCeiling === undefined ? undefined : positive(options.shardCeiling, '--shard-ceiling', false);
  const bad = [g, k, m, n, w].find((v): v is string => typeof v === 'string');
  if (bad !== undefined) {
    io.err(`lockstep shards: ${bad}`);
    return ExitCode.badInput;
  }
  if (w === undefined && n === undefined) {
    io.err('lockstep shards: give --shard-ceiling W (grants/s one shard sustains; measure it with lockstep bench) or --shards N (the count to evaluate)');
    return ExitCode.badInput;
  }
  const ttls = await classTtls(options.class, io);
  if (typeof ttls === 'number') return ttls;
  const units = syntheticUnits(k as number);
  let sized;
  try {
    sized = w === undefined ? undefined : shardsNeeded(units, g as number, w as number);
  } catch (error) {
    io.err(`lockstep shards: ${(error as Error).message}`);
    return ExitCode.failed;
  }
  const shardCount = (n as number | undefined) ?? sized?.shardsNeeded ?? 1;
  const spread = maxOverMean(units, shardCount);
  const report = {
    grantsPerSecond: g as number,
    sampleKeys: k as number,
    shardCeilingPerSecond: w ?? null,
    shardsNeeded: sized?.shardsNeeded ?? null,
    shards: shardCount,
    maxOverMean: round(spread, 3),
    hottestShardGrantsPerSecond: round(((g as number) / shardCount) * spread, 1),
    hottestShardUtilisation: w === undefined ? null : round((((g as number) / shardCount) * spread) / (w as number), 3),
    add: m as number,
    movedFraction: round(movedFraction(units, shardCount, m as number), 4),
    idealMovedFraction: round((m as number) / (shardCount + (m as number)), 4),
    drainSecondsMax: drainSecondsMax(ttls.length > 0 ? ttls : [DEFAULT_TTL_SECONDS]),
    ttlSource: ttls.length > 0 ? 'classes' : `default ${DEFAULT_TTL_SECONDS} s (ADR-11)`,
  };
  if (options.json === true) {
    io.out(JSON.stringify(report));
    return ExitCode.ok;
  }
  io.out(`entity shards for ${report.grantsPerSecond} grants/s (spread measured on ${report.sampleKeys} sample keys with rendezvous hashing):`);
  if (report.shardsNeeded !== null) io.out(`  shards needed          ${report.shardsNeeded}  (hottest shard under the ${report.shardCeilingPerSecond} grants/s ceiling)`);
  io.out(`  at ${report.shards} shards: hottest/mean  ${report.maxOverMean}  (measured on the sample)`);
  io.out(`  hottest shard          ${report.hottestShardGrantsPerSecond} grants/s${report.hottestShardUtilisation === null ? '' : ` = ${Math.round(report.hottestShardUtilisation * 100)}% of its ceiling`}`);
  io.out(`  adding ${report.add} moves        ${(report.movedFraction * 100).toFixed(1)}% of keys  (measured; ideal ${(report.idealMovedFraction * 100).toFixed(1)}%)`);
  io.out(`  drain window, max      ${report.drainSecondsMax} s  (analytic: longest TTL (${report.ttlSource}) + 0.5 s expiry scan + 1 s leader-change extension)`);
  return ExitCode.ok;
}

async function classTtls(files: readonly string[], io: CliIo): Promise<number[] | number> {
  if (files.length === 0) return [];
  const { documents, unreadable } = await readDocumentFiles(files, io);
  if (unreadable.length > 0) {
    for (const entry of unreadable) io.err(formatUnreadable(entry));
    return ExitCode.badInput;
  }
  const checked = checkDocuments(documents, { today: todayUtc() });
  return checked.classes.filter((c) => c.tier === 'entity').map((c) => c.ttlSeconds);
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
