// The entry bin/lockstep.mjs runs for `lockstep serve` (servestart): the same program and error boundary as
// src/cli.ts with the serve command alone registered, so that the build bundles it with its dependencies
// into one file (bin/serve-bundle.mjs) run with V8's code cache, as `lockstep lock` is (issue 30): an
// arbiter restarted after a crash is unavailable until it serves (ADR-18), and resolving and loading its
// ~400 modules one by one was most of its start.
import { programOf, withErrorBoundary } from './cli.js';
import { type CliIo, processIo } from './cli-io.js';
import { registerServeCommand } from './commands/serve.js';

/** `ready` is called once serve serves: bin/lockstep.mjs saves the bundle's code cache then, not at exit (a crashed arbiter never exits). */
export async function main(argv: readonly string[], io: CliIo = processIo, ready?: () => void): Promise<number> {
  return withErrorBoundary(argv, io, (boundaryIo, setExitCode) => programOf(boundaryIo, setExitCode, [(program, programIo, set) => registerServeCommand(program, programIo, set, ready)]));
}
