// `lockstep class check [--now YYYY-MM-DD] [--json] <files...>`: checks LockClass, PauseTestResult and
// LockGrant documents the way the admission webhook will (ADR-24), before the pull request merges.
// Files are read here; parsing and every rule live in core/classes. The command only reads.
import type { Command } from 'commander';
import { type CheckResult, checkDocuments, isCivilDate } from '../../core/classes/index.js';
import { BadInput } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { formatProblem, readDocumentFiles, refuseUnreadable, todayUtc } from '../policy-files.js';
import { registerClassRegisterCommand } from './class-register.js';

// Other commands print class problems as class check does.
export { formatProblem } from '../policy-files.js';

export type ClassCheckOptions = { now?: string; json?: boolean };

export function registerClassCommands(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  const classCommand = program.command('class').description('Lock classes and grants (ADR-01, 04, 11, 17, 19, 24).');
  classCommand
    .command('check')
    .description('Check LockClass, PauseTestResult and LockGrant documents. Exit 0: all valid; 1: a document is invalid; 2: unreadable input.')
    .argument('<files...>', 'YAML files; documents in one file are separated by ---, and a pause test may sit in any of them')
    .option('--now <date>', "today's date, YYYY-MM-DD, for waiver expiry and pause-test age (default: today in UTC)")
    .option('--json', 'print one JSON object {ok, files, classes, problems, ...} on the last line')
    .action(async (files: string[], options: ClassCheckOptions) => {
      setExitCode(await runClassCheck(files, options, io));
    });
  registerClassRegisterCommand(classCommand, io, setExitCode);
}

export async function runClassCheck(files: readonly string[], options: ClassCheckOptions, io: CliIo): Promise<number> {
  const today = options.now ?? todayUtc();
  if (!isCivilDate(today)) throw new BadInput(`--now ${JSON.stringify(today)} is not a calendar date; give it as YYYY-MM-DD, e.g. --now 2026-11-30`);
  const { documents, unreadable } = await readDocumentFiles(files, io);
  refuseUnreadable(unreadable, options.json === true ? { json: { ok: false, files, today, classes: [], problems: [], errors: unreadable } } : {});
  const result = checkDocuments(documents, { today });
  const ok = result.problems.length === 0;
  if (options.json === true) {
    io.out(JSON.stringify({ ok, files, today, classes: result.classes, problems: result.problems, pauseTests: result.pauseTests, grants: result.grants }));
  } else {
    for (const problem of result.problems) io.out(formatProblem(problem));
    io.out(summary(result, files.length, documents.length, today));
  }
  return ok ? ExitCode.ok : ExitCode.failed;
}


function summary(result: CheckResult, fileCount: number, documentCount: number, today: string): string {
  const files = plural(fileCount, 'file');
  if (result.problems.length > 0) {
    return `invalid: ${plural(result.problems.length, 'problem')}; checked ${plural(documentCount, 'document')} in ${files} (today is ${today})`;
  }
  const counts = [plural(result.classes.length, 'class', 'classes'), plural(result.pauseTests.length, 'pause-test result'), plural(result.grants.length, 'grant')];
  return `ok: ${counts.join(', ')} in ${files} (today is ${today})`;
}

function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
