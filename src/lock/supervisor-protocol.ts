// The messages between `lockstep lock` (the renewing process) and its fence supervisor, over the IPC
// channel node opens between them (issue 11 S4). Deadlines are CLOCK_MONOTONIC milliseconds
// (monotonic-clock.ts); the supervisor only ever moves its deadline forward.

export type ForwardedSignal = 'SIGINT' | 'SIGTERM' | 'SIGHUP';

export type ToSupervisor =
  /** Start the command (its own process group) and hold it to `deadlineMonoMs`. */
  | { readonly type: 'run'; readonly command: readonly string[]; readonly env: Readonly<Record<string, string>>; readonly deadlineMonoMs: number; readonly killAfterMs: number }
  /** A keepalive succeeded: the ADR-12 deadline moved to `deadlineMonoMs`. */
  | { readonly type: 'deadline'; readonly deadlineMonoMs: number }
  /** The renewing process fenced (ADR-12): stop the group now. */
  | { readonly type: 'stop' }
  /** Pass a signal lockstep received on to the command's group. */
  | { readonly type: 'signal'; readonly signal: ForwardedSignal };

/** Why the supervisor stopped the group; null when the command ended by itself. */
export type StoppedBy = 'deadline' | 'fence' | 'parent-gone' | 'supervisor-signalled' | null;

export type FromSupervisor =
  /** Listening: `run` may be sent. */
  | { readonly type: 'ready' }
  /** The command runs as pid `pid`, the leader of process group `pid`. */
  | { readonly type: 'started'; readonly pid: number }
  | { readonly type: 'spawn-error'; readonly message: string }
  /**
   * The command's group is gone. `code`/`signal` are its leader's; `leftovers` counts members still alive
   * when the leader exited, which the supervisor stopped before reporting: the lock is released only
   * when nothing the command started can still write with its token.
   */
  | { readonly type: 'exited'; readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stoppedBy: StoppedBy; readonly leftovers: number };

export function isToSupervisor(message: unknown): message is ToSupervisor {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  switch (m.type) {
    case 'run':
      return Array.isArray(m.command) && m.command.every((a) => typeof a === 'string') && m.command.length > 0 && typeof m.env === 'object' && m.env !== null && Number.isFinite(m.deadlineMonoMs) && Number.isFinite(m.killAfterMs);
    case 'deadline':
      return Number.isFinite(m.deadlineMonoMs);
    case 'stop':
      return true;
    case 'signal':
      return m.signal === 'SIGINT' || m.signal === 'SIGTERM' || m.signal === 'SIGHUP';
    default:
      return false;
  }
}

export function isFromSupervisor(message: unknown): message is FromSupervisor {
  if (typeof message !== 'object' || message === null) return false;
  const m = message as Record<string, unknown>;
  switch (m.type) {
    case 'ready':
      return true;
    case 'started':
      return Number.isInteger(m.pid);
    case 'spawn-error':
      return typeof m.message === 'string';
    case 'exited':
      return Number.isInteger(m.leftovers);
    default:
      return false;
  }
}
