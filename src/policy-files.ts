// Reading policy documents (LockClass, PauseTestResult, LockGrant) from files, for every command that
// takes them. Parsing and rules live in core/classes; this is only the file system side.
import { readFile } from 'node:fs/promises';
import { type SourcedDocument, isDocumentSyntaxError, parseDocuments } from '../core/classes/index.js';
import type { CliIo } from './cli-io.js';

/** Input that could not be read at all: a missing file, or text that is not YAML. */
export type Unreadable = { file: string; line?: number; column?: number; message: string };

export async function readDocumentFiles(files: readonly string[], io: CliIo): Promise<{ documents: SourcedDocument[]; unreadable: Unreadable[] }> {
  const documents: SourcedDocument[] = [];
  const unreadable: Unreadable[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      unreadable.push({ file, message: `cannot read the file: ${describeFsError(error)}` });
      continue;
    }
    try {
      const parsed = parseDocuments(text, file).documents;
      if (parsed.length === 0) io.err(`${file}: note: no documents in this file`);
      documents.push(...parsed);
    } catch (error) {
      if (!isDocumentSyntaxError(error)) throw error;
      unreadable.push({ file, line: error.line, column: error.column, message: `not readable YAML: ${error.reason}` });
    }
  }
  return { documents, unreadable };
}

export function formatUnreadable(entry: Unreadable): string {
  const where = entry.line === undefined ? entry.file : `${entry.file}:${entry.line}:${entry.column ?? 1}`;
  return `${where}: ${entry.message}`;
}

export function todayUtc(): string {
  return new Date().toISOString().slice(0, 10);
}

function describeFsError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') return 'no such file; check the path';
  if (code === 'EISDIR') return 'it is a directory; pass the YAML files in it, e.g. dir/*.yaml';
  if (code === 'EACCES') return 'permission denied';
  return error instanceof Error ? error.message : String(error);
}
