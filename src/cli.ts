// The `lockstep` command line (ARCHITECTURE.md, "Contracts others build on"). Each subcommand lives in
// src/commands/ and registers itself here; main() returns the exit code instead of exiting, so tests
// can call it in-process. main() is also the one error boundary (issue 17): whatever a command throws
// ends here as one line naming the command, the operation and its input, with its own exit code: 2 for
// bad input (BadInput), the refusal's own for a Refusal (refused, unauthenticated), 70 for anything
// unexpected (never 1, which says a check failed); temp files of writes in flight are removed. Everything printed passes through the terminal-safe formatter.
import { Command, CommanderError } from 'commander';
import { OperationError, Refusal } from './cli-errors.js';
import { type CliIo, ExitCode, processIo } from './cli-io.js';
import { type RegisterCommands, modulesFor } from './command-table.js';
import { removeTempFiles } from './files/atomic-write.js';
import { oneLine, terminalSafe } from './terminal-text.js';

/** Said under every command's --help (and the README's Commands section). */
export const EXIT_CODES_HELP = `
Exit codes: 0 ok; 1 a check failed; 2 bad input (a flag, a file: the message names it and the fix);
70 an unexpected error (a bug in lockstep, or the system refused an operation such as writing a file:
the message names the operation and its input). A command may add codes of its own (its description).`;

/** The program for `argv`: only the command modules it needs are loaded (src/command-table.ts, issue 16). */
export async function buildProgram(io: CliIo, setExitCode: (code: number) => void, argv: readonly string[] = []): Promise<Command> {
  return programOf(io, setExitCode, await Promise.all(modulesFor(argv).map((m) => m.load())));
}

/** The program with the commands `registers` add (src/cli-lock.ts gives lock's alone, issue 30). */
export function programOf(io: CliIo, setExitCode: (code: number) => void, registers: readonly RegisterCommands[]): Command {
  const program = new Command('lockstep')
    .description('lockstep: a distributed lock service on etcd, with a deterministic simulator and capacity planner.')
    .version('0.1.0')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) });
  for (const register of registers) register(program, io, setExitCode);
  for (const command of [program, ...everySubcommand(program)]) command.addHelpText('after', EXIT_CODES_HELP);
  return program;
}

function everySubcommand(command: Command): Command[] {
  return command.commands.flatMap((c) => [c, ...everySubcommand(c)]);
}

export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  return withErrorBoundary(argv, io, buildProgram);
}

/** Runs the program `build` makes inside the error boundary (main's; tests give a program of their own). */
export async function withErrorBoundary(argv: readonly string[], io: CliIo, build: (io: CliIo, setExitCode: (code: number) => void, argv: readonly string[]) => Command | Promise<Command>): Promise<number> {
  const safeIo: CliIo = { out: (text) => io.out(terminalSafe(text)), err: (text) => io.err(terminalSafe(text)) };
  let exitCode: number = ExitCode.ok;
  const program = await build(
    safeIo,
    (code) => {
      exitCode = code;
    },
    argv,
  );
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version end here with exit code 0; a bad flag is bad input.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.badInput;
    }
    removeTempFiles();
    const command = commandName(program, argv);
    if (error instanceof Refusal) {
      report(safeIo, command, error);
      return error.exitCode;
    }
    safeIo.err(`${command}: ${unexpected(error, argv)}`);
    return ExitCode.internal;
  }
  return exitCode;
}

/** A refusal as the user sees it: its --json answer, its problem lines, then one line naming the command. */
function report(io: CliIo, command: string, refusal: Refusal): void {
  if (refusal.detail.json !== undefined) io.out(JSON.stringify(refusal.detail.json));
  for (const line of refusal.detail.lines ?? []) io.err(oneLine(line));
  io.err(`${command}: ${oneLine(refusal.message)}`);
}

/** "lockstep run", "lockstep class check": the command the arguments name. */
function commandName(program: Command, argv: readonly string[]): string {
  const words = ['lockstep'];
  let command: Command | undefined = program;
  for (const word of argv) {
    command = command?.commands.find((c) => c.name() === word);
    if (command === undefined) break;
    words.push(word);
  }
  return words.join(' ');
}

const SYSCALL_VERBS: Readonly<Record<string, string>> = { open: 'open', scandir: 'read the directory', mkdir: 'create the directory', rename: 'rename', unlink: 'remove', stat: 'find', read: 'read', write: 'write', spawn: 'start' };

/** One line: what failed, on which input, and what to do about it. */
function unexpected(error: unknown, argv: readonly string[]): string {
  if (error instanceof OperationError) return `${oneLine(error.message)} (exit ${ExitCode.internal}: the system refused; nothing half-written was left)`;
  const system = error as Partial<NodeJS.ErrnoException> | null;
  if (typeof system?.code === 'string' && typeof system.syscall === 'string') {
    // A system call no command wrapped: name it and its path as an OperationError would.
    const failed = new OperationError(SYSCALL_VERBS[system.syscall] ?? system.syscall, system.path ?? '(no path)', error);
    return `${oneLine(failed.message)} (exit ${ExitCode.internal}: the system refused)`;
  }
  const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return `unexpected error (exit ${ExitCode.internal}) in \`lockstep ${argv.map((a) => (/^[\w./:=@,+-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}\`: ${oneLine(what)}; this is a bug in lockstep: please report it with this line`;
}
