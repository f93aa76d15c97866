// Checker benchmark: how long `lockstep check --model lock` takes on a 100,000-event history over 1,000
// keys (the target: under 2 s). The history is legal by construction (core/checkers/
// synthetic-history.ts) and written out as JSON Lines first; the time measured runs from that text to
// the verdict: JSON.parse of each line, reading the events, pairing, decoding and the search.
//
//   npx tsx bench/checker.bench.ts [--json] [--events N] [--keys K] [--processes P] [--seed S]
//
// Exit 0 when the verdict is ok; 1 when it is anything else, which would be a checker bug.
import { performance } from 'node:perf_hooks';
import { type HistoryEvent, checkHistory, lockModel, readHistoryEvent, syntheticLockHistory } from '../core/checkers/index.js';

type Options = { json: boolean; events: number; keys: number; processes: number; seed: number };

function readArgs(argv: readonly string[]): Options {
  const options: Options = { json: false, events: 100_000, keys: 1_000, processes: 5, seed: 1 };
  for (let i = 0; i < argv.length; i += 1) {
    const flag = argv[i];
    if (flag === '--json') {
      options.json = true;
      continue;
    }
    const name = flag?.replace(/^--/, '') as keyof Omit<Options, 'json'>;
    const value = Number(argv[i + 1]);
    if (!['events', 'keys', 'processes', 'seed'].includes(name) || !Number.isInteger(value) || value < 0) {
      throw new Error(`checker.bench: unknown or bad argument ${JSON.stringify(flag)}; use --json, --events N, --keys K, --processes P, --seed S`);
    }
    options[name] = value;
    i += 1;
  }
  return options;
}

function main(): number {
  const options = readArgs(process.argv.slice(2));
  const eventsPerKey = Math.ceil(options.events / options.keys);
  const synthetic = syntheticLockHistory({ keys: options.keys, eventsPerKey, processesPerKey: options.processes, seed: options.seed });
  const text = synthetic.events.map((event) => JSON.stringify(event)).join('\n');

  const start = performance.now();
  const events: HistoryEvent[] = [];
  for (const line of text.split('\n')) {
    const reading = readHistoryEvent(JSON.parse(line));
    if (!reading.ok) throw new Error(`checker.bench: the generated history has a bad line: ${reading.problem}`);
    events.push(reading.event);
  }
  const parsed = performance.now();
  const checked = checkHistory(lockModel(), events);
  const end = performance.now();
  if (checked.kind === 'bad-input') throw new Error(`checker.bench: the generated history does not pair: ${checked.problems[0]?.message}`);

  const { result } = checked;
  const report = {
    events: events.length,
    keys: result.keys.length,
    operations: result.operations,
    unknownOutcomes: checked.unknownOutcomes,
    noEffect: checked.noEffect,
    verdict: result.verdict,
    maxStepsPerKey: Math.max(0, ...result.keys.map((k) => k.steps)),
    wallMs: round(end - start),
    parseMs: round(parsed - start),
    checkMs: round(end - parsed),
    seed: options.seed,
    node: process.version,
  };
  if (options.json) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } else {
    process.stdout.write(
      [
        `checker benchmark: ${result.model} model, seed ${report.seed}, node ${report.node}`,
        `events ${report.events}, keys ${report.keys}, operations ${report.operations} (${report.unknownOutcomes} with unknown outcome, ${report.noEffect} with no effect)`,
        `verdict ${report.verdict}; most search steps on one key ${report.maxStepsPerKey}`,
        `wall ms ${report.wallMs} (parse ${report.parseMs}, check ${report.checkMs})`,
        '',
      ].join('\n'),
    );
  }
  return result.verdict === 'ok' ? 0 : 1;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

process.exitCode = main();
