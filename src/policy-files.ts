// Reading policy documents (LockClass, PauseTestResult, LockGrant) from files, for every command that
// takes them. Parsing and rules live in core/classes; this is only the file system side, and its limits:
// a file of at most MAX_POLICY_FILE_BYTES, at most MAX_POLICY_DOCUMENTS documents in all (README,
// docs/lock-classes.md). A class is a few hundred bytes, so both are far above any real class repository.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { type Problem, type SourcedDocument, isDocumentSyntaxError, parseDocuments } from '../core/classes/index.js';
import { BadInput } from './cli-errors.js';
import type { CliIo } from './cli-io.js';
import { InputFileError, MIB, readInputFile } from './files/read-input.js';
import { oneLine } from './terminal-text.js';

export const MAX_POLICY_FILE_BYTES = MIB;
export const MAX_POLICY_DOCUMENTS = 10_000;

/** Input that could not be read at all: a missing file, text that is not YAML, too much of it. */
export type Unreadable = { file: string; line?: number; column?: number; message: string };

const POLICY_FILE = { what: 'a YAML file of LockClass, PauseTestResult or LockGrant documents', maxBytes: MAX_POLICY_FILE_BYTES, directoryFix: 'pass the YAML files in it, e.g. dir/*.yaml' };

/** Every problem is returned (none printed): a command lists them and judges nothing from a partial read. `_io` is unused. */
export async function readDocumentFiles(files: readonly string[], _io?: CliIo): Promise<{ documents: SourcedDocument[]; unreadable: Unreadable[] }> {
  const documents: SourcedDocument[] = [];
  const unreadable: Unreadable[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readInputFile(file, POLICY_FILE);
    } catch (error) {
      if (!(error instanceof InputFileError)) throw error;
      unreadable.push({ file, message: error.reason });
      continue;
    }
    let parsed: SourcedDocument[];
    try {
      parsed = parseDocuments(text, file).documents;
    } catch (error) {
      if (!isDocumentSyntaxError(error)) throw error;
      unreadable.push({ file, line: error.line, column: error.column, message: `not readable YAML: ${error.reason}` });
      continue;
    }
    if (parsed.length === 0) unreadable.push({ file, message: 'has no documents; an empty or truncated file is not a policy (give LockClass, PauseTestResult or LockGrant documents)' });
    if (documents.length + parsed.length > MAX_POLICY_DOCUMENTS) {
      unreadable.push({ file, message: `brings the documents to ${documents.length + parsed.length}, above the limit of ${MAX_POLICY_DOCUMENTS} in one check; check fewer files at a time` });
      break;
    }
    for (const document of parsed) documents.push(document);
  }
  return { documents, unreadable };
}

export function formatUnreadable(entry: Unreadable): string {
  const where = entry.line === undefined ? entry.file : `${entry.file}:${entry.line}:${entry.column ?? 1}`;
  return oneLine(`${where}: ${entry.message}`);
}

/**
 * Refuses through the CLI's boundary when anything could not be read: each `file:line: why` on a line of
 * its own, then the command's line; nothing is judged from a partial read (a pause test in the unreadable
 * file would look missing). `json` is the --json answer, for a command that prints one.
 */
export function refuseUnreadable(unreadable: readonly Unreadable[], refusal: { json?: unknown; consequence?: string } = {}): void {
  if (unreadable.length === 0) return;
  const lines = unreadable.map(formatUnreadable);
  const message = `${unreadable.length} of the files could not be read; ${refusal.consequence ?? 'nothing is judged from a partial read: fix them and run again'}`;
  throw new BadInput(message, { lines, ...(refusal.json === undefined ? {} : { json: refusal.json }) });
}

/** `file:line: namespace/name: field: what is wrong; how to fix` (the line is left out when unknown). */
export function formatProblem(problem: Problem): string {
  const where = problem.line === undefined ? problem.source : `${problem.source}:${problem.line}`;
  // Names, fields and values come from the file: one problem stays one line, whatever they hold.
  return oneLine(`${where}: ${problem.namespace}/${problem.name}: ${problem.field}: ${problem.message}; ${problem.fix}`);
}

export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Directories stand for the class files directly in them (examples/classes, not its invalid/ examples);
 * a directory with none is bad input. Files are passed through for readDocumentFiles to judge.
 */
export async function expandPolicyPaths(paths: readonly string[]): Promise<string[]> {
  const files: string[] = [];
  for (const path of paths) {
    const isDirectory = await stat(path).then(
      (s) => s.isDirectory(),
      () => false,
    );
    if (!isDirectory) {
      files.push(path);
      continue;
    }
    const inside = (await readdir(path)).filter((name) => /\.ya?ml$/.test(name)).sort();
    if (inside.length === 0) throw new BadInput(`${path}: is a directory with no .yaml or .yml files in it; pass class files, e.g. examples/classes/*.yaml, or a directory of them`);
    for (const name of inside) files.push(join(path, name));
  }
  return files;
}
