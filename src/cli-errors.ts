// The errors the CLI's boundary (src/cli.ts) knows how to report. Anything else that escapes a command is
// unexpected: a bug, or the system refusing an operation; it gets exit code 70 (ExitCode.internal), never
// 1, which says a check failed, and one line naming what failed on which input.

import { ExitCode } from './cli-io.js';

/** What a refusal shows besides its one line: a --json answer for stdout, lines (file:line: problem) before it. */
export interface RefusalDetail {
  /** Printed as one JSON line on stdout, for a command run with --json. */
  readonly json?: unknown;
  /** Printed on stderr as they are, before the refusal's own line (a list of problems in files). */
  readonly lines?: readonly string[];
}

/**
 * A command refusing to go on, with the exit code that says why: the boundary prints `lockstep CMD: message`
 * (and the detail) and exits with it. No command prints its own refusal line (issue 34).
 */
export class Refusal extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly detail: RefusalDetail = {},
  ) {
    super(message);
    this.name = 'Refusal';
  }
}

/** Input the user can fix (a flag, a file): the boundary prints `lockstep CMD: message` and exits 2. */
export class BadInput extends Refusal {
  constructor(message: string, detail: RefusalDetail = {}) {
    super(message, ExitCode.badInput, detail);
    this.name = 'BadInput';
  }
}

/** An operation on a named input (a file written, a directory made) that failed; the cause says why. */
export class OperationError extends Error {
  constructor(
    /** The verb: "write", "read", "create the directory". */
    readonly operation: string,
    readonly input: string,
    override readonly cause: unknown,
  ) {
    super(`cannot ${operation} ${input}: ${systemReason(cause)}`);
    this.name = 'OperationError';
  }
}

/** A system error as a reader wants it: "no space left on device (ENOSPC)", not the syscall's whole message. */
export function systemReason(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const known = typeof code === 'string' ? SYSTEM_REASONS[code] : undefined;
  if (known !== undefined) return `${known} (${String(code)})`;
  return error instanceof Error ? error.message : String(error);
}

const SYSTEM_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EISDIR: 'it is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on device',
  EROFS: 'read-only file system',
  EEXIST: 'it already exists',
  EMFILE: 'too many open files',
  EDQUOT: 'disk quota exceeded',
};
