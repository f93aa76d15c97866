// The fence supervisor (issue 11 S4): a small process beside `lockstep lock` that starts the guarded
// command in its own process group and ends that group when the lock may be gone, even if the process
// that renews the lock cannot act:
// - at the ADR-12 deadline the renewing process last sent (CLOCK_MONOTONIC, so it keeps running while
//   that process is SIGSTOPped; it only moves forward, and only on a keepalive the renewer saw succeed);
// - at once when the renewing process dies (SIGKILL included: its end of the IPC channel closes);
// - when the renewing process fences, or when this process is told to stop by a signal.
// It does not renew anything itself: a process that renews cannot also be the one that notices it has
// stopped renewing.
import { type ChildProcess, spawn } from 'node:child_process';
import { monotonicNowMs } from './monotonic-clock.js';
import { liveGroupMembers, signalGroup, stopGroup } from './process-group.js';
import { type FromSupervisor, type StoppedBy, type ToSupervisor, isToSupervisor } from './supervisor-protocol.js';

export interface SupervisorChannel {
  /** Resolves once the message is handed to the channel (or the channel is gone). */
  send(message: FromSupervisor): Promise<void>;
  onMessage(handler: (message: unknown) => void): void;
  /** The renewing process is gone (its end of the channel closed). */
  onDisconnect(handler: () => void): void;
}

/** Longest single timer wait: the deadline is re-read at least this often. */
const MAX_TIMER_MS = 1_000;

export class FenceSupervisor {
  private child: ChildProcess | undefined;
  private deadlineMonoMs = Number.NEGATIVE_INFINITY;
  private killAfterMs = 0;
  private timer: NodeJS.Timeout | undefined;
  private stoppedBy: StoppedBy = null;
  private stopping: Promise<unknown> | undefined;
  private finished = false;

  constructor(
    private readonly channel: SupervisorChannel,
    /** Called once when the supervisor has nothing left to do. */
    private readonly onFinished: () => void,
  ) {
    channel.onMessage((message) => this.receive(message));
    channel.onDisconnect(() => this.stop('parent-gone'));
  }

  start(): void {
    void this.channel.send({ type: 'ready' });
  }

  /** Stops the group (once), for `reason`; with no command running, just finishes. */
  stop(reason: Exclude<StoppedBy, null>): void {
    if (this.finished || this.stopping !== undefined) return;
    if (this.child?.pid === undefined) {
      this.finish(); // nothing started (or it could not start): nothing to stop
      return;
    }
    this.stoppedBy = reason;
    this.clearTimer();
    this.stopping = stopGroup(this.pid(), this.killAfterMs).catch(() => signalGroup(this.pid(), 'SIGKILL'));
  }

  private receive(message: unknown): void {
    if (this.finished) return; // nothing runs after the supervisor is done, whatever arrives late
    if (!isToSupervisor(message)) return; // the renewer is our own code: an unknown message is ignored, not trusted
    switch (message.type) {
      case 'run':
        this.run(message);
        return;
      case 'deadline':
        this.moveDeadline(message.deadlineMonoMs);
        return;
      case 'stop':
        this.stop('fence');
        return;
      case 'signal':
        if (this.child !== undefined && this.stopping === undefined) signalGroup(this.pid(), message.signal);
        return;
    }
  }

  private run(message: Extract<ToSupervisor, { type: 'run' }>): void {
    if (this.child !== undefined) return;
    this.killAfterMs = message.killAfterMs;
    this.deadlineMonoMs = message.deadlineMonoMs;
    if (monotonicNowMs() >= this.deadlineMonoMs) {
      // The deadline passed before the command could start: it never runs.
      this.report({ type: 'exited', code: null, signal: null, stoppedBy: 'deadline', leftovers: 0 });
      return;
    }
    const [program, ...args] = message.command;
    // detached: setsid(), so the command leads a new session and process group of its own: the group is
    // what the fence signals, and the terminal's job-control signals go to lockstep, which forwards them.
    const child = spawn(program as string, args, { stdio: 'inherit', env: { ...message.env }, detached: true });
    this.child = child;
    child.once('spawn', () => {
      void this.channel.send({ type: 'started', pid: this.pid() });
      this.armTimer();
    });
    child.once('error', (error) => {
      if (child.pid === undefined) this.report({ type: 'spawn-error', message: error.message });
    });
    child.once('exit', (code, signal) => void this.afterLeaderExit(code, signal));
  }

  private moveDeadline(deadlineMonoMs: number): void {
    if (deadlineMonoMs <= this.deadlineMonoMs) return; // ADR-12: the deadline never moves back
    this.deadlineMonoMs = deadlineMonoMs;
    if (this.child !== undefined && this.stopping === undefined) this.armTimer();
  }

  private armTimer(): void {
    this.clearTimer();
    const waitMs = this.deadlineMonoMs - monotonicNowMs();
    if (waitMs <= 0) {
      this.stop('deadline');
      return;
    }
    this.timer = setTimeout(() => this.armTimer(), Math.min(waitMs, MAX_TIMER_MS));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async afterLeaderExit(code: number | null, signal: NodeJS.Signals | null): Promise<void> {
    this.clearTimer();
    // Whatever the leader left behind in its group could still write with the token: the lock is not
    // released (the report is not sent) until none of it is alive.
    const leftovers = this.stopping === undefined ? liveGroupMembers(this.pid()).length : 0;
    if (leftovers > 0) this.stopping = stopGroup(this.pid(), this.killAfterMs).catch(() => signalGroup(this.pid(), 'SIGKILL'));
    await this.stopping;
    this.report({ type: 'exited', code, signal, stoppedBy: this.stoppedBy, leftovers });
  }

  private report(message: FromSupervisor): void {
    void this.channel.send(message).finally(() => this.finish());
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.clearTimer();
    this.onFinished();
  }

  private pid(): number {
    const pid = this.child?.pid;
    if (pid === undefined) throw new Error('the command has no pid: it did not start');
    return pid;
  }
}
