// The entry bin/lockstep.mjs runs for `lockstep lock` (issue 30): the same program and error boundary as
// src/cli.ts, with the lock command alone registered directly, so that the build can bundle it with its
// dependencies into one file per mode (bin/lock-bundle.mjs): a lock taken from a
// cron job or a deploy script pays for no module resolution of its ~300 files and no other command.
import { programOf, withErrorBoundary } from './cli.js';
import { type CliIo, processIo } from './cli-io.js';
import { registerLockCommand } from './commands/lock.js';

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  return withErrorBoundary(argv, io, (boundaryIo, setExitCode) => programOf(boundaryIo, setExitCode, [registerLockCommand]));
}
