// One etcd member process of a test cluster: spawn with its log captured to a file, signal, wait for exit.
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { reapOnExit } from './process-reaper.js';

const LOG_TAIL_BYTES = 16 * 1024;
export const DEFAULT_LOG_TAIL_LINES = 40;

/** The environment for an etcd child: none of the caller's ETCD_* variables, which etcd reads as flags. */
function etcdEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('ETCD_')) env[name] = value;
  }
  // etcd 3.4 refuses to start on arm64 unless told that the platform is acknowledged as unsupported.
  if (process.arch === 'arm64') env['ETCD_UNSUPPORTED_ARCH'] = 'arm64';
  return env;
}

/** The last `lines` lines of a member's log, or a note that there is none yet. */
export function readLogTail(logFile: string, lines = DEFAULT_LOG_TAIL_LINES): string {
  let text: string;
  try {
    const whole = readFileSync(logFile);
    text = whole.subarray(Math.max(0, whole.length - LOG_TAIL_BYTES)).toString('utf8');
  } catch {
    return `(no log at ${logFile})`;
  }
  return text.split('\n').slice(-lines - 1).join('\n');
}

export class EtcdMemberProcess {
  private child: ChildProcess | undefined;
  private exitPromise: Promise<void> = Promise.resolve();
  private exitDescription: string | undefined;

  constructor(
    readonly binary: string,
    readonly args: readonly string[],
    readonly logFile: string,
  ) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.exitDescription === undefined;
  }

  /** How the last run ended ("exit code 1", "signal SIGKILL"), or undefined while it runs. */
  get exitReason(): string | undefined {
    return this.exitDescription;
  }

  start(): void {
    if (this.running) throw new Error(`etcd (pid ${this.pid}) is already running`);
    const logFd = openSync(this.logFile, 'a');
    try {
      const child = spawn(this.binary, [...this.args], { stdio: ['ignore', logFd, logFd], env: etcdEnvironment() });
      this.child = child;
      this.exitDescription = undefined;
      reapOnExit(child);
      this.exitPromise = new Promise((resolve) => {
        child.once('exit', (code, signal) => {
          this.exitDescription = signal !== null ? `signal ${signal}` : `exit code ${code ?? '?'}`;
          resolve();
        });
        child.once('error', (error) => {
          this.exitDescription = `spawn failed: ${error.message}`;
          resolve();
        });
      });
    } finally {
      closeSync(logFd); // the child holds its own copy of the descriptor
    }
  }

  signal(signal: NodeJS.Signals): void {
    if (this.running) this.child?.kill(signal);
  }

  /** Sends `signal` and waits for the exit; escalates to SIGKILL after `graceMs`. */
  async stop(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    if (!this.running) return;
    this.signal('SIGCONT'); // a paused member cannot act on SIGTERM
    this.signal(signal);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(true), graceMs);
    });
    const escalate = await Promise.race([this.exitPromise.then(() => false), timedOut]);
    clearTimeout(timer);
    if (escalate) {
      this.signal('SIGKILL');
      await this.exitPromise;
    }
  }
}
