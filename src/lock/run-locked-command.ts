// `lockstep lock`: hold a lock while a command runs (like `etcdctl lock`, with a token and fencing).
// The command gets the fencing token in LOCKSTEP_TOKEN (ADR-02) to present at its resource. When the
// fence deadline comes (ADR-12) the command is sent SIGTERM, then SIGKILL if it lingers, and lockstep
// exits non-zero: the lock may be gone, and whatever the command was doing must not be trusted.
import { type ChildProcess, spawn } from 'node:child_process';
import { constants as osConstants } from 'node:os';
import type { FenceReason } from '../../core/client/client-session.js';
import type { LockClient, LockHandle } from '../../core/client/lock-client.js';
import { LockError, isLockError } from '../../core/lock-error.js';
import { formatToken } from '../../core/token.js';
import { type CliIo, ExitCode } from '../cli-io.js';

export interface RunLockedOptions {
  readonly client: LockClient;
  readonly key: string;
  readonly className: string;
  readonly ttlSeconds: number;
  readonly waitMs: number;
  readonly command: readonly string[];
  /** Grace between SIGTERM and SIGKILL at the fence. */
  readonly killAfterMs: number;
  readonly io: CliIo;
  readonly env?: NodeJS.ProcessEnv;
}

/** Exit code of a command killed by a signal, as shells report it. */
function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (osConstants.signals[signal] ?? 0);
}

export function exitCodeForLockError(error: LockError): number {
  switch (error.code) {
    case 'wait-timeout':
    case 'contended':
      return ExitCode.waitTimeout;
    case 'invalid-argument':
    case 'unknown-class':
      return ExitCode.badInput;
    default:
      return ExitCode.refused;
  }
}

export async function runLockedCommand(options: RunLockedOptions): Promise<number> {
  const { io } = options;
  let child: ChildProcess | undefined;
  let fenced: FenceReason | undefined;
  let handle: LockHandle;
  const onFence = (reason: FenceReason): void => {
    fenced = reason;
    io.err(`lockstep: lost the lock on ${options.key} (${reason}); stopping the command (ADR-12)`);
    if (child !== undefined && child.exitCode === null) {
      child.kill('SIGTERM');
      setTimeout(() => child?.exitCode === null && child.kill('SIGKILL'), options.killAfterMs).unref();
    }
  };
  try {
    handle = await options.client.acquire({ key: options.key, className: options.className, ttlSeconds: options.ttlSeconds, waitMs: options.waitMs, onFence });
  } catch (error) {
    if (!isLockError(error)) throw error;
    io.err(`lockstep: could not lock ${options.key}: ${error.message}`);
    return exitCodeForLockError(error);
  }
  const token = formatToken(handle.token);
  io.err(`lockstep: locked ${options.key} with token ${token}`);
  const [program, ...args] = options.command;
  if (program === undefined) throw new LockError('invalid-argument', 'no command given after --');
  const forward = (signal: NodeJS.Signals) => () => child?.kill(signal);
  const onInt = forward('SIGINT');
  const onTerm = forward('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    const result = await new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { spawnError: Error }>((resolve) => {
      child = spawn(program, args, {
        stdio: 'inherit',
        env: { ...(options.env ?? process.env), LOCKSTEP_TOKEN: token, LOCKSTEP_KEY: options.key },
      });
      child.once('error', (spawnError) => resolve({ spawnError }));
      child.once('exit', (code, signal) => resolve({ code, signal }));
      if (fenced !== undefined) onFence(fenced); // fenced before the child existed
    });
    if ('spawnError' in result) {
      io.err(`lockstep: could not run ${JSON.stringify(program)}: ${result.spawnError.message}`);
      await handle.release().catch(() => false);
      return 127;
    }
    if (fenced !== undefined) return ExitCode.fenced;
    await handle.release().catch((error: unknown) => {
      io.err(`lockstep: release of ${options.key} failed (${error instanceof Error ? error.message : String(error)}); the hold ends when the session expires`);
    });
    if (result.signal !== null) return signalExitCode(result.signal);
    return result.code ?? ExitCode.failed;
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
}
