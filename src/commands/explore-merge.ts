// `lockstep explore merge [--json] <paths...>`: one report from the shards of a sharded exploration (each
// `explore --shard i/n --summary FILE`, e.g. the pods of deploy/explore-job.yaml). A path is a summary file
// or a directory whose `*.json` files include summaries (failure artifacts beside them are skipped: they are
// not summaries). Exit 0: every seed ran and none failed; 1: a run failed (a shard without --keep-going
// stops at its first failure, and the report says how many seeds ran); 2: bad input, shards of different
// explorations, a shard twice or missing.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { BadInput, systemReason } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { MIB, readInputFile } from '../files/read-input.js';
import { MergeRefused, type SourcedSummary, describeMerged, mergeSummaries } from '../explore/merge.js';
import { SUMMARY_FORMAT, summarySchema } from '../explore/summary.js';

/** A summary is a few hundred bytes plus its failures; a whole shard's worth of failures fits well inside. */
const SUMMARY_KIND = { what: `an explore summary (${SUMMARY_FORMAT}, written by explore --summary)`, maxBytes: 16 * MIB };
/** Shards per merge: far above any Indexed Job's completions, low enough that a wrong directory is refused. */
const MAX_SUMMARIES = 10_000;

export function registerExploreMerge(explore: Command, io: CliIo, setExitCode: (code: number) => void): void {
  explore
    .command('merge')
    .description('Combines the summaries of a sharded exploration (explore --shard i/n --summary FILE) into one report; refuses shards of different explorations, a shard given twice or a missing shard. Exit 0: every seed ran, none failed; 1: a run failed; 2: bad input.')
    .argument('<paths...>', 'summary files, or directories holding them')
    .option('--json', 'print the merged report as one JSON object')
    // explore has its own --json, which commander gives to the parent: read both.
    .action(async (paths: string[], _options: unknown, command: Command) => {
      setExitCode(await exploreMerge(paths, command.optsWithGlobals<{ json?: boolean }>().json === true, io));
    });
}

async function exploreMerge(paths: readonly string[], json: boolean, io: CliIo): Promise<number> {
  const sourced = await readSummaries(paths);
  let merged;
  try {
    merged = mergeSummaries(sourced);
  } catch (error) {
    if (error instanceof MergeRefused) throw new BadInput(error.message);
    throw error;
  }
  // explore stops a shard early only at a failure; a summary that did so without one was not written by it.
  if (!merged.complete && merged.failures.length === 0) throw new BadInput('a shard ran fewer seeds than it was given and names no failure: its summary was changed or its run was cut short; run that shard again');
  if (json) io.out(JSON.stringify(merged));
  else io.out(describeMerged(merged).join('\n'));
  return merged.failures.length > 0 ? ExitCode.failed : ExitCode.ok;
}

async function readSummaries(paths: readonly string[]): Promise<SourcedSummary[]> {
  const sourced: SourcedSummary[] = [];
  for (const path of paths) {
    const found = await stat(path).catch(() => undefined);
    if (found?.isDirectory() === true) {
      const inside = await summariesIn(path);
      if (inside.length === 0) throw new BadInput(`${path}: holds no explore summary (a *.json file with "format": "${SUMMARY_FORMAT}"); give the directory the shards' --summary files went to`);
      sourced.push(...inside);
    } else {
      const summary = await summaryFrom(path, true);
      if (summary !== undefined) sourced.push(summary);
    }
    if (sourced.length > MAX_SUMMARIES) throw new BadInput(`more than ${MAX_SUMMARIES} summaries: merge the shards of one exploration at a time`);
  }
  return sourced;
}

async function summariesIn(dir: string): Promise<SourcedSummary[]> {
  const names = await readdir(dir).catch((error: unknown) => {
    throw new BadInput(`${dir}: cannot list the directory: ${systemReason(error)}`);
  });
  const found: SourcedSummary[] = [];
  for (const name of names.filter((n) => n.endsWith('.json')).sort()) {
    const summary = await summaryFrom(join(dir, name), false);
    if (summary !== undefined) found.push(summary);
  }
  return found;
}

/** The summary in `path`; a file that is not one is refused when named, skipped when found in a directory. */
async function summaryFrom(path: string, named: boolean): Promise<SourcedSummary | undefined> {
  const text = await readInputFile(path, SUMMARY_KIND);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (!named) return undefined;
    throw new BadInput(`${path}: is not JSON; give ${SUMMARY_KIND.what}`);
  }
  const isSummary = typeof value === 'object' && value !== null && (value as { format?: unknown }).format === SUMMARY_FORMAT;
  if (!isSummary) {
    if (!named) return undefined;
    throw new BadInput(`${path}: is not ${SUMMARY_KIND.what} (no "format": "${SUMMARY_FORMAT}")`);
  }
  const parsed = summarySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new BadInput(`${path}: ${issue?.path.join('.') || 'the summary'}: ${issue?.message ?? 'invalid'}; the file was changed or truncated: run the shard again`);
  }
  return { source: path, summary: parsed.data };
}
