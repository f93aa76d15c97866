// The pause test's first holder on real processes (core/pause-test FirstHolderControl): a node process of
// lockstep's own (holder-worker.ts) in a process group of its own, frozen whole with SIGSTOP to the
// group and thawed with SIGCONT, spoken to over node's IPC channel. Every group started here is killed
// when the kit's process exits, stopped or not, so no frozen holder outlives it.
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { FirstHolderControl, FirstHolderOutcome, FirstHolderStarted } from '../../core/pause-test/index.js';
import { parseToken } from '../../core/token.js';
import { sleepMs } from '../clock/index.js';
import { entryUrl } from '../repo-root.js';
import type { FromHolder, HolderConfig, ToHolder } from './holder-protocol.js';

const ENTRY = entryUrl('src/pause-test/holder-worker.ts', new URL('./holder-entry.mjs', import.meta.url));
const STATE_POLL_MS = 20;
const STATE_WAIT_MS = 5_000;
const EXIT_WAIT_MS = 5_000;
const OUTPUT_TAIL_CHARS = 2_000;

const liveGroups = new Set<number>();
let hooked = false;

/** Kills every first holder's group still alive (SIGKILL reaches a stopped process too). Synchronous, for exit paths. */
export function killAllHolders(): void {
  for (const pid of liveGroups) signalGroup(pid, 'SIGKILL');
  liveGroups.clear();
}

function killGroupsOnExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', killAllHolders);
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone already.
  }
}

/** The process's state letter from /proc (R, S, T for stopped, Z, ...), or undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    return /^\d+ \(.*\) (\S)/s.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1];
  } catch {
    return undefined;
  }
}

async function waitForState(pid: number, stopped: boolean, what: string): Promise<void> {
  for (let waitedMs = 0; (processState(pid) === 'T') !== stopped; waitedMs += STATE_POLL_MS) {
    if (processState(pid) === undefined) throw new Error(`the first holder's process (pid ${pid}) is gone`);
    if (waitedMs >= STATE_WAIT_MS) throw new Error(`the first holder's process (pid ${pid}) was not ${what} ${STATE_WAIT_MS / 1000} s after the signal`);
    await sleepMs(STATE_POLL_MS);
  }
}

export type HolderSetup = Omit<HolderConfig, 'point' | 'value'>;

interface Running {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly done: Promise<FirstHolderOutcome>;
  readonly exited: Promise<void>;
  output(): string;
}

export class ProcessFirstHolder implements FirstHolderControl {
  private running: Running | undefined;

  constructor(private readonly setup: HolderSetup) {}

  /** The pid of the current first holder's process (its group's id), for the report. */
  get pid(): number | undefined {
    return this.running?.pid;
  }

  async startAt(point: string, value: string): Promise<FirstHolderStarted> {
    await this.stop(); // the last trial's holder, if it lingers: its lease is long expired
    killGroupsOnExit();
    const child = fork(ENTRY, [], { detached: true, execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    if (child.pid === undefined) throw new Error("could not start the first holder's process");
    const pid = child.pid;
    liveGroups.add(pid);
    let output = '';
    const keep = (chunk: Buffer): void => void (output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    void exited.then(() => liveGroups.delete(pid));
    const gone = (): Error => new Error(`the first holder's process exited${output.trim() === '' ? '' : `: ${output.trim().split('\n').slice(-3).join(' | ')}`}`);
    let reached: ((started: FirstHolderStarted) => void) | undefined;
    let failedToStart: ((error: Error) => void) | undefined;
    const started = new Promise<FirstHolderStarted>((resolve, reject) => {
      reached = resolve;
      failedToStart = reject;
    });
    const done = new Promise<FirstHolderOutcome>((resolve, reject) => {
      child.on('message', (message: FromHolder) => {
        if (message.type === 'at') reached?.({ token: parseToken(message.token), passed: message.passed });
        else if (message.type === 'done') resolve({ write: message.write, passed: message.passed });
        else {
          const error = new Error(message.message);
          failedToStart?.(error);
          reject(error);
        }
      });
      void exited.then(() => {
        failedToStart?.(gone());
        reject(gone());
      });
    });
    done.catch(() => undefined); // read through finish(); a failure before then rejects startAt
    this.running = { child, pid, done, exited, output: () => output };
    child.send({ type: 'start', config: { ...this.setup, point, value } } satisfies ToHolder);
    return started;
  }

  async freeze(): Promise<void> {
    const { pid } = this.current();
    signalGroup(pid, 'SIGSTOP');
    await waitForState(pid, true, 'stopped');
  }

  async resume(): Promise<void> {
    const { pid, child } = this.current();
    signalGroup(pid, 'SIGCONT');
    await waitForState(pid, false, 'running again');
    child.send({ type: 'go' } satisfies ToHolder);
  }

  finish(): Promise<FirstHolderOutcome> {
    return this.current().done;
  }

  async stop(): Promise<void> {
    const running = this.running;
    if (running === undefined || running.child.exitCode !== null || running.child.signalCode !== null) return;
    signalGroup(running.pid, 'SIGCONT');
    signalGroup(running.pid, 'SIGKILL');
    await Promise.race([running.exited, sleepMs(EXIT_WAIT_MS)]);
  }

  private current(): Running {
    if (this.running === undefined) throw new Error('no first holder was started');
    return this.running;
  }
}
