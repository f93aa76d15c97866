// `lockstep shards`: how many entity shards a grant rate needs (ADR-07/09), measured on a key sample
// with the same rendezvous hashing the arbiter homes keys with. Every figure says where it comes from.
import { formatPercent, roundTo } from '../../core/numbers.js';
import type { Command } from 'commander';
import { checkDocuments, TTL_DEFAULT_SECONDS } from '../../core/classes/index.js';
import { BenchFileError, parseBenchText } from '../../core/planner/measured-bench.js';
import { drainSecondsMax, maxOverMean, movedFraction, shardsNeeded, syntheticUnits } from '../../core/planner/shard-sizing.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { registerShardsMoveCommand } from './shards-move.js';
import { BENCH_FILE } from '../files/bench-file.js';
import { InputFileError, readInputFile } from '../files/read-input.js';
import { readDocumentFiles, refuseUnreadable, todayUtc } from '../policy-files.js';

interface ShardsOptions {
  grantsPerSecond?: string;
  keys?: string;
  shards?: string;
  shardCeiling?: string;
  fromBench?: string;
  add: string;
  class: string[];
  json?: boolean;
}

const MAX_SAMPLE_KEYS = 1_000_000;

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function registerShardsCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  // Sizing is the command's own action (`lockstep shards --grants-per-second ...`, as before) and also
  // `lockstep shards size`; `lockstep shards move` is the range move (shards-move.ts). The sizing flags
  // are checked in runShards, not as commander's required options: those are required of every
  // subcommand too, and `shards move` has none of them.
  const shards = program
    .command('shards')
    .description('Size entity shards (ADR-07/09): shards needed for a grant rate, the spread of rendezvous hashing, keys moved by adding shards, and the drain window of a move (also as `shards size`). `shards move` moves a range between shards.');
  addSizingOptions(shards).action(async (options: ShardsOptions) => {
    setExitCode(await runShards(options, io));
  });
  // The parent declares the same flags, and commander gives flags after `size` to the parent: its values
  // are the ones given (the subcommand's copy is for `shards size --help`, and holds only defaults).
  addSizingOptions(shards.command('size').description('Size entity shards (the same as `lockstep shards` with these flags).')).action(async (_options: ShardsOptions, command: Command) => {
    setExitCode(await runShards((command.parent ?? command).opts<ShardsOptions>(), io));
  });
  registerShardsMoveCommand(shards, io, setExitCode);
}

function addSizingOptions(command: Command): Command {
  return command
    .option('--grants-per-second <G>', 'peak grants per second across the entity tier (required)')
    .option('--keys <K>', 'how many distinct keys (homing units) to sample the spread with (required)')
    .option('--shards <N>', 'the current shard count (default: the count needed)')
    .option('--shard-ceiling <W>', 'grants/s one shard sustains (measure it with lockstep bench)')
    .option('--from-bench <FILE>', 'take the shard ceiling from lockstep bench: its report (--json or --out FILE: the grant cycles/s it carried) or its --profile FILE (the CPU-model ceiling)')
    .option('--add <M>', 'shards to add, for the moved fraction', '1')
    .option('--class <file>', 'LockClass file(s): the drain window is the longest entity-tier TTL (repeatable)', collect, [])
    .option('--json', 'print {shardsNeeded, maxOverMean, movedFraction, drainSecondsMax, ...} on the last line');
}

function positive(text: string | undefined, flag: string, integer: boolean, max = Number.MAX_SAFE_INTEGER): number | string {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value)) || value > max) {
    return `${flag} ${JSON.stringify(text)} must be a positive ${integer ? 'whole ' : ''}number${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}`;
  }
  return value;
}

async function runShards(options: ShardsOptions, io: CliIo): Promise<number> {
  const missing = options.grantsPerSecond === undefined ? '--grants-per-second <G>' : options.keys === undefined ? '--keys <K>' : undefined;
  if (missing !== undefined) throw new BadInput(`required option '${missing}' not specified (sizing: lockstep shards --grants-per-second G --keys K ...; a range move: lockstep shards move --help)`);
  const g = positive(options.grantsPerSecond, '--grants-per-second', false);
  const k = positive(options.keys, '--keys', true, MAX_SAMPLE_KEYS);
  const m = positive(options.add, '--add', true, 1024);
  const n = options.shards === undefined ? undefined : positive(options.shards, '--shards', true, 1024);
  const w = options.shardCeiling === undefined ? undefined : positive(options.shardCeiling, '--shard-ceiling', false);
  const measured = options.fromBench === undefined ? undefined : await benchCeiling(options.fromBench, w !== undefined);
  const bad = [g, k, m, n, w, measured].find((v): v is string => typeof v === 'string');
  if (bad !== undefined) throw new BadInput(bad);
  const ceiling = (measured as { grantsPerSecond: number } | undefined)?.grantsPerSecond ?? (w as number | undefined);
  if (ceiling === undefined && n === undefined) throw new BadInput('give --shard-ceiling W (grants/s one shard sustains), --from-bench FILE (a lockstep bench report or profile) or --shards N (the count to evaluate)');
  const ttls = await classTtls(options.class, io);
  const units = syntheticUnits(k as number);
  let sized;
  try {
    sized = ceiling === undefined ? undefined : shardsNeeded(units, g as number, ceiling);
  } catch (error) {
    throw new Refusal((error as Error).message, ExitCode.failed);
  }
  const shardCount = (n as number | undefined) ?? sized?.shardsNeeded ?? 1;
  const spread = maxOverMean(units, shardCount);
  const report = {
    grantsPerSecond: g as number,
    sampleKeys: k as number,
    shardCeilingPerSecond: ceiling === undefined ? null : roundTo(ceiling, 1),
    shardCeilingSource: measured === undefined ? (w === undefined ? null : 'given: --shard-ceiling') : (measured as { source: string }).source,
    shardsNeeded: sized?.shardsNeeded ?? null,
    shards: shardCount,
    maxOverMean: roundTo(spread, 3),
    hottestShardGrantsPerSecond: roundTo(((g as number) / shardCount) * spread, 1),
    hottestShardUtilisation: ceiling === undefined ? null : roundTo((((g as number) / shardCount) * spread) / ceiling, 3),
    add: m as number,
    movedFraction: roundTo(movedFraction(units, shardCount, m as number), 4),
    idealMovedFraction: roundTo((m as number) / (shardCount + (m as number)), 4),
    drainSecondsMax: drainSecondsMax(ttls.length > 0 ? ttls : [TTL_DEFAULT_SECONDS]),
    ttlSource: ttls.length > 0 ? 'classes' : `default ${TTL_DEFAULT_SECONDS} s (ADR-11)`,
  };
  if (options.json === true) {
    io.out(JSON.stringify(report));
    return ExitCode.ok;
  }
  io.out(`entity shards for ${report.grantsPerSecond} grants/s (spread measured on ${report.sampleKeys} sample keys with rendezvous hashing):`);
  if (report.shardsNeeded !== null) io.out(`  shards needed          ${report.shardsNeeded}  (hottest shard under the ${report.shardCeilingPerSecond} grants/s ceiling; ${report.shardCeilingSource})`);
  io.out(`  at ${report.shards} shards: hottest/mean  ${report.maxOverMean}  (measured on the sample)`);
  io.out(`  hottest shard          ${report.hottestShardGrantsPerSecond} grants/s${report.hottestShardUtilisation === null ? '' : ` = ${formatPercent(report.hottestShardUtilisation, 0)} of its ceiling`}`);
  io.out(`  adding ${report.add} moves        ${formatPercent(report.movedFraction)} of keys  (measured; ideal ${formatPercent(report.idealMovedFraction)})`);
  io.out(`  drain window, max      ${report.drainSecondsMax} s  (analytic: longest TTL (${report.ttlSource}) + 0.5 s expiry scan + 1 s leader-change extension)`);
  return ExitCode.ok;
}

/** A shard's ceiling in grants/s from a bench file: a grant cycle is two writes (grant, release). */
async function benchCeiling(file: string, alsoGiven: boolean): Promise<{ grantsPerSecond: number; source: string } | string> {
  if (alsoGiven) return '--from-bench and --shard-ceiling both give the ceiling; choose one';
  let text: string;
  try {
    text = await readInputFile(file, BENCH_FILE);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    return `--from-bench ${error.message}`;
  }
  try {
    const bench = parseBenchText(text);
    if (bench.writeCeilingPerSecond === null) return `--from-bench ${file}: ${bench.writeCeilingSource}; give --shard-ceiling W instead`;
    return { grantsPerSecond: bench.writeCeilingPerSecond / 2, source: `half of ${roundTo(bench.writeCeilingPerSecond, 1)} writes/s, a grant and its release; the writes: ${bench.writeCeilingSource}` };
  } catch (error) {
    if (!(error instanceof BenchFileError)) throw error;
    return `--from-bench ${file}: ${error.message}`;
  }
}

async function classTtls(files: readonly string[], io: CliIo): Promise<number[]> {
  if (files.length === 0) return [];
  const { documents, unreadable } = await readDocumentFiles(files, io);
  refuseUnreadable(unreadable);
  const checked = checkDocuments(documents, { today: todayUtc() });
  return checked.classes.filter((c) => c.tier === 'entity').map((c) => c.ttlSeconds);
}
