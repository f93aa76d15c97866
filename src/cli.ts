// The `lockstep` command line (ARCHITECTURE.md, "Contracts others build on"). Each subcommand lives in
// src/commands/ and registers itself here; main() returns the exit code instead of exiting, so tests
// can call it in-process.
import { Command, CommanderError } from 'commander';
import { type CliIo, ExitCode, processIo } from './cli-io.js';
import { registerBenchCommand } from './commands/bench.js';
import { registerCheckCommand } from './commands/check.js';
import { registerClassCommands } from './commands/class-check.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerInitCommand } from './commands/init.js';
import { registerLockCommand } from './commands/lock.js';
import { registerPauseTestCommand } from './commands/pause-test.js';
import { registerShardsCommand } from './commands/shards.js';
import { registerTtlCommand } from './commands/ttl.js';
import { registerQuorumCommand } from './commands/quorum.js';
import { registerScenarioCommands } from './commands/run.js';
import { registerExploreCommand } from './commands/explore.js';
import { registerWebCommand } from './commands/web.js';

export function buildProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('lockstep')
    .description('lockstep: a distributed lock service on etcd, with a deterministic simulator and capacity planner.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  registerClassCommands(program, io, setExitCode);
  registerCheckCommand(program, io, setExitCode);
  registerInitCommand(program, io, setExitCode);
  registerLockCommand(program, io, setExitCode);
  registerPauseTestCommand(program, io, setExitCode);
  registerDemoCommand(program, io, setExitCode);
  registerBenchCommand(program, io, setExitCode);
  registerShardsCommand(program, io, setExitCode);
  registerTtlCommand(program, io, setExitCode);
  registerQuorumCommand(program, io, setExitCode);
  registerScenarioCommands(program, io, setExitCode);
  registerExploreCommand(program, io, setExitCode);
  registerWebCommand(program, io, setExitCode);
  return program;
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let exitCode: number = ExitCode.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; a bad flag is bad input.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.badInput;
    }
    io.err(`lockstep: ${error instanceof Error ? error.message : String(error)}`);
    return ExitCode.failed;
  }
  return exitCode;
}
