// Every file a user names on the command line is read here: a class file, a history, an artifact, a fault
// schedule, a topology, a pause profile, a bench report. Each refusal is bad input (exit 2) naming the
// file, the rule and the fix: missing, a directory, not text (a NUL byte, not UTF-8), or larger than the
// limit for its kind (STYLE.md: put a limit on everything; a 50 MB class file once took 74 s and 2 GB to
// die of a stack overflow). The limits are documented with each command (README, docs/).
import { readFile, stat } from 'node:fs/promises';
import { formatNumber } from '../../core/numbers.js';
import { BadInput, systemReason } from '../cli-errors.js';

export const MIB = 1024 * 1024;

export interface InputKind {
  /** What the file should be, for the fix: "a YAML file of LockClass documents". */
  readonly what: string;
  readonly maxBytes: number;
  /** The fix for a directory, when the command has a better one than "give <what>". */
  readonly directoryFix?: string;
}

/** A named input that cannot be used; `reason` reads after the file name. */
export class InputFileError extends BadInput {
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`${file}: ${reason}`);
    this.name = 'InputFileError';
  }
}

/** The file's text, whole; an InputFileError otherwise. */
export async function readInputFile(path: string, kind: InputKind): Promise<string> {
  if (path.trim() === '') throw new InputFileError(JSON.stringify(path), `is not a file name; give ${kind.what}`);
  const found = await stat(path).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (found instanceof Error) throw new InputFileError(path, `cannot read the file: ${found.code === 'ENOENT' ? 'no such file; check the path' : systemReason(found)}`);
  if (found.isDirectory()) throw new InputFileError(path, `cannot read the file: it is a directory; ${kind.directoryFix ?? `give ${kind.what}`}`);
  if (!found.isFile()) throw new InputFileError(path, `cannot read the file: it is not a regular file; give ${kind.what}`);
  if (found.size > kind.maxBytes) throw new InputFileError(path, `is ${sizeText(found.size)}, above the limit of ${sizeText(kind.maxBytes)} for ${kind.what}; split it into smaller files`);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (error) {
    throw new InputFileError(path, `cannot read the file: ${systemReason(error)}`);
  }
  // A file that grew since stat() is held to the same limit.
  if (bytes.length > kind.maxBytes) throw new InputFileError(path, `is ${sizeText(bytes.length)}, above the limit of ${sizeText(kind.maxBytes)} for ${kind.what}; split it into smaller files`);
  return decodeText(path, bytes, kind);
}

function decodeText(path: string, bytes: Buffer, kind: InputKind): string {
  const nul = bytes.indexOf(0);
  if (nul >= 0) throw new InputFileError(path, `is not text (a NUL byte on line ${lineAt(bytes, nul)}); give ${kind.what}`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new InputFileError(path, `is not UTF-8 text; give ${kind.what}`);
  }
}

function lineAt(bytes: Buffer, offset: number): number {
  let line = 1;
  for (let i = bytes.indexOf(10); i >= 0 && i < offset; i = bytes.indexOf(10, i + 1)) line += 1;
  return line;
}

/** "1 MiB", "50.2 MiB", "512 KiB", "300 bytes". */
export function sizeText(bytes: number): string {
  if (bytes >= MIB) return `${formatNumber(bytes / MIB, 1)} MiB`;
  if (bytes >= 1024) return `${formatNumber(bytes / 1024, 1)} KiB`;
  return `${bytes} bytes`;
}
