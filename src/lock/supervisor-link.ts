// `lockstep lock`'s side of the fence supervisor (fence-supervisor.ts): starts the supervisor process
// with an IPC channel, hands it the command and every new ADR-12 deadline, and learns how the command
// ended. If the supervisor itself dies while the command runs, this side stops the command's group: one
// of the two processes must always be able to.
import { type ChildProcess, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { RUNNING_COMPILED, entryUrl } from '../repo-root.js';
import { stopGroup } from './process-group.js';
import { type ForwardedSignal, type FromSupervisor, type StoppedBy, type ToSupervisor, isFromSupervisor } from './supervisor-protocol.js';

// The supervisor starts from one small bundled CommonJS file in dist/js when lockstep runs compiled (built
// by bin/lock-bundle.mjs: Node's own modules only, no ESM graph to load; issue 30), else (under tests) from
// its TypeScript through tsx's loader.
const SUPERVISOR_ENTRY = entryUrl('src/lock/fence-supervisor.bundle.cjs', new URL('./fence-supervisor-main.ts', import.meta.url));
const SUPERVISOR_ARGS = RUNNING_COMPILED ? [fileURLToPath(SUPERVISOR_ENTRY)] : ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, fileURLToPath(SUPERVISOR_ENTRY)];

/**
 * The supervisor's own environment: lockstep's without the NODE_* variables, which only make Node do work at
 * its start that the supervisor never uses (NODE_EXTRA_CA_CERTS parses a CA bundle for TLS: ~55 ms of CPU
 * for Debian's ca-certificates, half a bare `node -e 0`; NODE_OPTIONS may --require anything). The command
 * gets the environment `run` hands over, not this one. Issue 30.
 */
export function supervisorEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('NODE_')));
}

export type SupervisedOutcome =
  | { readonly kind: 'exited'; readonly code: number | null; readonly signal: NodeJS.Signals | null; readonly stoppedBy: StoppedBy; readonly leftovers: number }
  | { readonly kind: 'spawn-error'; readonly message: string }
  /** The supervisor ended without a report; the command's group (if it had started) was stopped here. */
  | { readonly kind: 'supervisor-lost'; readonly detail: string };

export interface RunSpec {
  readonly command: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly deadlineMonoMs: number;
  readonly killAfterMs: number;
}

export class SupervisorLink {
  /** Resolves when the command's group is gone, however that came about. */
  readonly outcome: Promise<SupervisedOutcome>;
  private readonly process: ChildProcess;
  private readonly readyPromise: Promise<boolean>;
  private commandPid: number | undefined;
  private killAfterMs = 0;

  private constructor() {
    // Its own session (detached): a Ctrl-C or SIGHUP meant for lockstep does not reach it, so it cannot
    // be taken down with lockstep by the terminal; it notices lockstep's end through the channel instead.
    this.process = spawn(process.execPath, SUPERVISOR_ARGS, { stdio: ['inherit', 'inherit', 'inherit', 'ipc'], detached: true, env: supervisorEnv(process.env) });
    let markReady: (ready: boolean) => void = () => {};
    this.readyPromise = new Promise((resolve) => (markReady = resolve));
    let report: FromSupervisor | undefined;
    this.process.on('message', (message: unknown) => {
      if (!isFromSupervisor(message)) return;
      if (message.type === 'ready') markReady(true);
      else if (message.type === 'started') this.commandPid = message.pid;
      else report = message;
    });
    this.outcome = new Promise((resolve) => {
      let settled = false;
      const ended = (detail: string) => {
        if (settled) return;
        settled = true;
        markReady(false);
        if (report?.type === 'exited') resolve({ kind: 'exited', code: report.code, signal: report.signal, stoppedBy: report.stoppedBy, leftovers: report.leftovers });
        else if (report?.type === 'spawn-error') resolve({ kind: 'spawn-error', message: report.message });
        else void this.stopOrphanedGroup().then(() => resolve({ kind: 'supervisor-lost', detail }));
      };
      // 'exit' can come before the last messages are read; the channel's end ('disconnect') comes after them.
      let exited: string | undefined;
      let disconnected = false;
      this.process.once('error', (error) => ended(`could not start: ${error.message}`));
      this.process.once('exit', (code, signal) => {
        exited = `exited with ${signal ?? code}`;
        if (disconnected) ended(exited);
      });
      this.process.once('disconnect', () => {
        disconnected = true;
        if (exited !== undefined) ended(exited);
      });
    });
  }

  /** Starts the supervisor process; it is ready for `run` once `ready()` resolves true. */
  static start(): SupervisorLink {
    return new SupervisorLink();
  }

  /** True once the supervisor listens; false if it ended first. */
  ready(): Promise<boolean> {
    return this.readyPromise;
  }

  run(spec: RunSpec): void {
    this.killAfterMs = spec.killAfterMs;
    this.send({ type: 'run', command: spec.command, env: spec.env, deadlineMonoMs: spec.deadlineMonoMs, killAfterMs: spec.killAfterMs });
  }

  moveDeadline(deadlineMonoMs: number): void {
    this.send({ type: 'deadline', deadlineMonoMs });
  }

  /** The renewing side fenced: the supervisor stops the group now. */
  fence(): void {
    this.send({ type: 'stop' });
  }

  forward(signal: ForwardedSignal): void {
    this.send({ type: 'signal', signal });
  }

  /** Lets the supervisor go without running anything (the lock was not taken): it ends by itself. */
  close(): void {
    if (this.process.connected) this.process.disconnect();
  }

  private send(message: ToSupervisor): void {
    if (!this.process.connected) return; // it has ended, or is ending: `outcome` says how
    this.process.send(message, (error) => {
      if (error !== null && error !== undefined && this.process.connected) this.process.kill('SIGKILL'); // outcome: supervisor-lost
    });
  }

  private async stopOrphanedGroup(): Promise<void> {
    if (this.commandPid !== undefined) await stopGroup(this.commandPid, this.killAfterMs).catch(() => undefined);
  }
}
