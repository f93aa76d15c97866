// `lockstep check --model M a.jsonl b.jsonl ...` (issue 16): several histories in one process, so a shell
// loop over a directory of histories pays node's start once. Each file is judged exactly as a lone file
// is (runCheck); then one summary line, and the exit code of the worst verdict. One file prints what it
// always printed.
// check.ts passes the one-file judge in (CheckOne), so neither module imports the other at run time (issue 34).
import type { CliIo } from '../cli-io.js';
import { CheckExit } from './check-exit.js';

/** Judges one file exactly as `lockstep check FILE` does (check.ts runCheck), printing to `io`. */
export type CheckOne = (file: string, io: CliIo) => Promise<number>;

/**
 * The worst first: a violation is the finding a caller must not miss; a file that could not be judged
 * (bad input) hides whatever it holds; an exhausted budget judged the file but could not decide.
 */
const SEVERITY: readonly number[] = [CheckExit.violation, CheckExit.badInput, CheckExit.unknown, CheckExit.ok];
const VERDICT_OF: Readonly<Record<number, string>> = { [CheckExit.ok]: 'ok', [CheckExit.violation]: 'illegal', [CheckExit.unknown]: 'unknown', [CheckExit.badInput]: 'bad-input' };

export function worstExit(codes: readonly number[]): number {
  for (const code of SEVERITY) if (codes.includes(code)) return code;
  return CheckExit.ok;
}

/** Several files, each judged by `checkOne`, then one summary (JSON with `json`); returns the worst exit code. */
export async function runCheckFiles(files: readonly string[], json: boolean, checkOne: CheckOne, io: CliIo): Promise<number> {
  const codes: number[] = [];
  const reports: unknown[] = [];
  for (const file of files) {
    const out: string[] = [];
    const code = await checkOne(file, { out: (text) => void out.push(text), err: io.err });
    codes.push(code);
    if (json) reports.push(JSON.parse(out.at(-1) ?? 'null'));
    else {
      // The explanations as for one file, then its summary line, named by its file.
      for (const text of out.slice(0, -1)) io.out(text);
      io.out(`${file}: ${out.at(-1) ?? 'bad input: nothing judged (the problems are on standard error)'}`);
    }
  }
  const worst = worstExit(codes);
  const names = VERDICT_OF;
  const counts = Object.fromEntries(Object.entries(names).map(([code, verdict]) => [verdict, codes.filter((c) => c === Number(code)).length]));
  const summary = `${files.length} files: ${counts.ok} ok, ${counts.illegal} not linearizable, ${counts.unknown} unknown, ${counts['bad-input']} bad input; exit ${worst}`;
  if (json) io.out(JSON.stringify({ ok: worst === CheckExit.ok, verdict: names[worst], files: reports, counts, summary }));
  else io.out(summary);
  return worst;
}
