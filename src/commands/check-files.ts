// `lockstep check --model M a.jsonl b.jsonl ...` (issue 16): several histories in one process, so a shell
// loop over a directory of histories pays node's start once. Each file is judged exactly as a lone file
// is (runCheck); then one summary line, and the exit code of the worst verdict. One file prints what it
// always printed.
import type { CliIo } from '../cli-io.js';
import { assert } from '../../core/assert.js';
import { CheckExit, type CheckCommandOptions, optionProblem, runCheck } from './check.js';

/**
 * The worst first: a violation is the finding a caller must not miss; a file that could not be judged
 * (bad input) hides whatever it holds; an exhausted budget judged the file but could not decide.
 */
// (Functions, not constants: check.ts imports this module, so CheckExit is not there yet at its load.)
const severity = (): readonly number[] => [CheckExit.violation, CheckExit.badInput, CheckExit.unknown, CheckExit.ok];
const verdictOf = (): Readonly<Record<number, string>> => ({ [CheckExit.ok]: 'ok', [CheckExit.violation]: 'illegal', [CheckExit.unknown]: 'unknown', [CheckExit.badInput]: 'bad-input' });

export function worstExit(codes: readonly number[]): number {
  for (const code of severity()) if (codes.includes(code)) return code;
  return CheckExit.ok;
}

export async function runCheckFiles(files: readonly string[], options: CheckCommandOptions, io: CliIo): Promise<number> {
  const [first] = files;
  assert(first !== undefined, 'commander gives <histories...> at least one file');
  // One file prints what it always printed; a bad option is the same for every file: said once.
  if (files.length === 1 || optionProblem(options) !== undefined) return runCheck(first, options, io);
  const json = options.json === true;
  const codes: number[] = [];
  const reports: unknown[] = [];
  for (const file of files) {
    const out: string[] = [];
    const code = await runCheck(file, options, { out: (text) => void out.push(text), err: io.err });
    codes.push(code);
    if (json) reports.push(JSON.parse(out.at(-1) ?? 'null'));
    else {
      // The explanations as for one file, then its summary line, named by its file.
      for (const text of out.slice(0, -1)) io.out(text);
      io.out(`${file}: ${out.at(-1) ?? 'bad input: nothing judged (the problems are on standard error)'}`);
    }
  }
  const worst = worstExit(codes);
  const names = verdictOf();
  const counts = Object.fromEntries(Object.entries(names).map(([code, verdict]) => [verdict, codes.filter((c) => c === Number(code)).length]));
  const summary = `${files.length} files: ${counts.ok} ok, ${counts.illegal} not linearizable, ${counts.unknown} unknown, ${counts['bad-input']} bad input; exit ${worst}`;
  if (json) io.out(JSON.stringify({ ok: worst === CheckExit.ok, verdict: names[worst], files: reports, counts, summary }));
  else io.out(summary);
  return worst;
}
