// `lockstep check <history.jsonl...> --model lock|kv [--resource fenced|unfenced] [--budget N] [--json]`:
// checks an external history for linearizability (ADR-23). The file is read and split into JSON lines
// here, keeping line numbers; the event shape, the models and the search live in core/checkers.
// docs/history-format.md describes the format and the exit codes.
import type { Command } from 'commander';
import {
  DEFAULT_STEPS_PER_KEY,
  type Describer,
  type HistoryEvent,
  type HistoryProblem,
  type KeyResult,
  type LinearizabilityResult,
  type Locate,
  type Model,
  type Operation,
  explainKey,
  checkHistory,
  kvModel,
  lockModel,
  readHistoryEvent,
} from '../../core/checkers/index.js';
import { BadInput } from '../cli-errors.js';
import { assert } from '../../core/assert.js';
import type { CliIo } from '../cli-io.js';
import { InputFileError, MIB, readInputFile } from '../files/read-input.js';
import { oneLine } from '../terminal-text.js';
import { CheckExit } from './check-exit.js';
import { runCheckFiles } from './check-files.js';

export type CheckCommandOptions = { model: string; resource?: string; budget?: string; json?: boolean };

const PROBLEMS_SHOWN = 20;
const MAX_BUDGET = 1_000_000_000;
/** A history of millions of events fits; a V8 string cannot hold much more than 512 MiB at all. */
export const MAX_HISTORY_BYTES = 256 * MIB;
const HISTORY_FILE = { what: 'a JSON Lines history, one event a line (docs/history-format.md)', maxBytes: MAX_HISTORY_BYTES, directoryFix: 'pass a .jsonl file' };

export function registerCheckCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('check')
    .description('Check a history (JSON Lines) for linearizability, per key. Exit 0: linearizable; 1: a key is not; 2: bad input; 3: unknown (the search budget ran out).')
    .argument('<histories...>', 'JSON Lines files, one event a line: {"process", "type", "f", "key", "value", "time"} (docs/history-format.md); several are judged one by one, then summarised, and the exit code is the worst verdict\'s (1, then 2, then 3)')
    .requiredOption('--model <model>', 'the sequential specification: lock or kv')
    .option('--resource <kind>', 'lock model only: the resource behind writes, fenced (default) or unfenced')
    .option('--budget <steps>', `search steps per key before its verdict is unknown (default ${DEFAULT_STEPS_PER_KEY})`)
    .option('--json', 'print one JSON object on the last line')
    .action(async (files: string[], options: CheckCommandOptions) => {
      const [first] = files;
      assert(first !== undefined, 'commander gives <histories...> at least one file');
      // One file prints what it always printed; a bad option is the same for every file: said once.
      const alone = files.length === 1 || optionProblem(options) !== undefined;
      setExitCode(alone ? await runCheck(first, options, io) : await runCheckFiles(files, options.json === true, (file, fileIo) => runCheck(file, options, fileIo), io));
    });
}

type LineProblem = { line: number; message: string };

export async function runCheck(file: string, options: CheckCommandOptions, io: CliIo): Promise<number> {
  const setup = readOptions(options);
  // Bad flags refuse the whole command through the CLI's boundary; a bad file is one file's verdict (check-files).
  if (typeof setup === 'string') throw new BadInput(setup, options.json === true ? { json: { ok: false, verdict: 'bad-input', file, errors: [{ line: null, message: setup }] } } : {});
  let text: string;
  try {
    text = await readInputFile(file, HISTORY_FILE);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    return badInput(io, options, file, [], error.message);
  }
  const parsed = parseHistoryText(text);
  if (parsed.problems.length > 0) return badInput(io, options, file, parsed.problems);
  // A truncated or empty file is not a history that passed: nothing was checked.
  if (parsed.events.length === 0) return badInput(io, options, file, [], `${file}: has no events; a history is one JSON event a line (docs/history-format.md)`);
  const json = options.json === true;
  if (setup.model === 'kv') return judge(kvModel(), parsed, file, setup.stepsPerKey, json, io);
  return judge(lockModel({ resource: setup.resource }), parsed, file, setup.stepsPerKey, json, io);
}

/** What is wrong with the options, or undefined when they are good. */
export function optionProblem(options: CheckCommandOptions): string | undefined {
  const setup = readOptions(options);
  return typeof setup === 'string' ? setup : undefined;
}

function readOptions(options: CheckCommandOptions): string | { model: 'lock' | 'kv'; resource: 'fenced' | 'unfenced'; stepsPerKey: number } {
  if (options.model !== 'lock' && options.model !== 'kv') return `--model ${JSON.stringify(options.model)} is not a model; give --model lock or --model kv`;
  if (options.resource !== undefined && options.model !== 'lock') return '--resource applies to --model lock only';
  const resource = options.resource ?? 'fenced';
  if (resource !== 'fenced' && resource !== 'unfenced') return `--resource ${JSON.stringify(resource)} is not a resource kind; give fenced or unfenced`;
  const budget = options.budget ?? String(DEFAULT_STEPS_PER_KEY);
  if (!/^[1-9][0-9]*$/.test(budget) || Number(budget) > MAX_BUDGET) return `--budget ${JSON.stringify(budget)} is not a step count; give a whole number from 1 to ${MAX_BUDGET}`;
  return { model: options.model, resource, stepsPerKey: Number(budget) };
}

/** JSON Lines: one event a line, blank lines skipped; `lines[i]` is the line of event i. */
export function parseHistoryText(text: string): { events: HistoryEvent[]; lines: number[]; problems: LineProblem[] } {
  const events: HistoryEvent[] = [];
  const lines: number[] = [];
  const problems: LineProblem[] = [];
  text.split('\n').forEach((raw, i) => {
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (source.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      problems.push({ line: i + 1, message: `not a JSON value: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }
    const reading = readHistoryEvent(value);
    if (!reading.ok) problems.push({ line: i + 1, message: reading.problem });
    else {
      events.push(reading.event);
      lines.push(i + 1);
    }
  });
  return { events, lines, problems };
}

function judge<S, I, O>(model: Model<S, I, O>, parsed: { events: HistoryEvent[]; lines: number[] }, file: string, stepsPerKey: number, json: boolean, io: CliIo): number {
  const lineOf = (event: number): number => parsed.lines[event] ?? 0;
  const checked = checkHistory(model, parsed.events, { stepsPerKey });
  if (checked.kind === 'bad-input') {
    const problems = checked.problems.map((p: HistoryProblem) => ({ line: lineOf(p.event), message: p.related === undefined ? p.message : `${p.message} (${p.related.what}: line ${lineOf(p.related.event)})` }));
    return badInput(io, { json }, file, problems);
  }
  const { result } = checked;
  const locate: Locate = (op) => locateLines(op, lineOf);
  const illegal = result.keys.filter((k) => k.verdict === 'illegal');
  const unknown = result.keys.filter((k) => k.verdict === 'unknown');
  const summary = summarize(result, illegal, unknown, parsed.events.length, checked.unknownOutcomes, checked.noEffect);
  if (json) {
    const report = {
      ok: result.verdict === 'ok',
      verdict: result.verdict,
      file,
      model: result.model,
      events: parsed.events.length,
      operations: result.operations,
      keys: result.keys.length,
      unknownOutcomes: checked.unknownOutcomes,
      noEffect: checked.noEffect,
      stepsPerKey,
      illegal: illegal.map((k) => illegalKeyJson(model, k, locate, lineOf)),
      unknown: unknown.map((k) => ({ key: k.key, operations: k.operations, steps: k.steps })),
      summary,
    };
    io.out(JSON.stringify(report));
  } else {
    // Keys and values come from the file: each line of an explanation stays one line.
    for (const key of illegal) io.out(explainKey(model, key, locate).map(oneLine).join('\n'));
    for (const key of unknown) io.out(`key ${JSON.stringify(key.key)}: unknown: the search spent its budget of ${stepsPerKey} steps on ${key.operations} operations; rerun with a larger --budget`);
    io.out(summary);
  }
  return result.verdict === 'ok' ? CheckExit.ok : result.verdict === 'illegal' ? CheckExit.violation : CheckExit.unknown;
}

function summarize<I, O>(result: LinearizabilityResult<I, O>, illegal: readonly KeyResult<I, O>[], unknown: readonly KeyResult<I, O>[], events: number, unknownOutcomes: number, noEffect: number): string {
  const names = (keys: readonly KeyResult<I, O>[]): string => keys.slice(0, 5).map((k) => JSON.stringify(k.key)).join(', ') + (keys.length > 5 ? ', ...' : '');
  const scope = `${plural(result.operations, 'operation')} on ${plural(result.keys.length, 'key')} under the ${result.model} model (${plural(events, 'event')}; ${unknownOutcomes} with unknown outcome; ${noEffect} with no effect left out)`;
  if (illegal.length > 0) return `violation: ${illegal.length} of ${plural(result.keys.length, 'key')} not linearizable (${names(illegal)}); ${scope}`;
  if (unknown.length > 0) return `unknown: the search budget ran out on ${unknown.length} of ${plural(result.keys.length, 'key')} (${names(unknown)}), no violation in the others; ${scope}`;
  return `ok: linearizable: ${scope}`;
}

function illegalKeyJson<I, O>(model: Describer<I, O>, key: KeyResult<I, O>, locate: Locate, lineOf: (event: number) => number): object {
  const failure = key.failure;
  const op = (o: Operation<I, O>) => ({
    lines: [lineOf(o.invokeEvent), o.completionEvent === undefined ? null : lineOf(o.completionEvent)],
    process: o.process,
    operation: model.describeOperation(o),
    call: o.callTime,
    return: o.returnTime === Number.POSITIVE_INFINITY ? null : o.returnTime,
  });
  return {
    key: key.key,
    operations: key.operations,
    steps: key.steps,
    explanation: explainKey(model, key, locate),
    prefix: failure?.prefix.map((p) => ({ ...op(p.operation), stateAfter: p.stateAfter })) ?? [],
    stateAfterPrefix: failure?.stateAfterPrefix ?? null,
    deadline: failure === undefined ? null : op(failure.deadline),
    blocked: failure?.blocked.map((b) => ({ ...op(b.operation), reason: b.reason, alike: b.alike })) ?? [],
  };
}

function plural(count: number, one: string): string {
  return `${count} ${one}${count === 1 ? '' : 's'}`;
}

function locateLines(op: Operation<unknown, unknown>, lineOf: (event: number) => number): string {
  const first = lineOf(op.invokeEvent);
  if (op.completionEvent === undefined) return `line ${first} (never completed)`;
  const last = lineOf(op.completionEvent);
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

function badInput(io: CliIo, options: { json?: boolean }, file: string, problems: readonly LineProblem[], message?: string): number {
  const messages = message === undefined ? problems.map((p) => `${file}:${p.line}: ${p.message}`) : [message];
  for (const text of messages.slice(0, PROBLEMS_SHOWN)) io.err(oneLine(text));
  if (messages.length > PROBLEMS_SHOWN) io.err(`... and ${messages.length - PROBLEMS_SHOWN} more problems`);
  if (options.json === true) {
    const errors = message === undefined ? problems : [{ line: null, message }];
    io.out(JSON.stringify({ ok: false, verdict: 'bad-input', file, errors }));
  }
  return CheckExit.badInput;
}
