// `lockstep` as a real child process, for tests that signal it (kill -9, SIGSTOP) or read what it printed:
// the bin through tsx, output captured, killed when the test process exits. Also a fenced LockClass file
// with a short TTL and today's pause-test result, for tests that wait out a lease.
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from '../repo-root.js';
import { reapOnExit } from './process-reaper.js';

const OUTPUT_DRAIN_MS = 2_000;

// From the repository root, so the bench (running compiled, from dist/js) finds the same bin as the tests.
export const LOCKSTEP_BIN = join(REPO_ROOT, 'bin', 'lockstep.mjs');

export interface LockstepProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
  /** Resolves when stderr matches `pattern`; rejects if the process exits first or `limitMs` passes. */
  waitForStderr(pattern: RegExp, limitMs?: number): Promise<void>;
}

export interface StartOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** Lead a process group of its own, as a shell's foreground job does (a terminal's Ctrl-C goes to -pid). */
  readonly ownGroup?: boolean;
  /** Options for node itself, before the bin (--cpu-prof, which NODE_OPTIONS refuses). */
  readonly nodeArgs?: readonly string[];
}

export function startLockstep(args: readonly string[], options: StartOptions = {}): LockstepProcess {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), LOCKSTEP_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: options.env ?? process.env, detached: options.ownGroup === true });
  reapOnExit(child);
  if (child.pid === undefined) throw new Error('lockstep did not start');
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    for (const wake of waiters) wake();
  });
  // On 'exit', then the rest of the output: 'close' can wait for ever when a process the command left
  // behind holds lockstep's stdout or stderr open, so it is awaited only briefly.
  const closed = new Promise<void>((done) => child.once('close', () => done()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) =>
    child.once('exit', (code, signal) => void Promise.race([closed, new Promise((pause) => setTimeout(pause, OUTPUT_DRAIN_MS))]).then(() => done({ code, signal }))),
  );
  return {
    child,
    pid: child.pid,
    exited,
    stdout: () => out,
    stderr: () => err,
    waitForStderr: (pattern, limitMs = 60_000) =>
      new Promise((done, fail) => {
        const timer = setTimeout(() => settle(() => fail(new Error(`lockstep ${args[0]} never printed ${pattern} in ${limitMs} ms; stderr:\n${err}`))), limitMs);
        const check = () => {
          if (pattern.test(err)) settle(done);
        };
        const settle = (finish: () => void) => {
          clearTimeout(timer);
          waiters.delete(check);
          finish();
        };
        waiters.add(check);
        // How it ended is said: a start killed by a signal (the gate's own kill -9) prints nothing (issue 32).
        void exited.then(({ code, signal }) => settle(() => (pattern.test(err) ? done() : fail(new Error(`lockstep ${args[0]} exited (${signal ?? `exit code ${code}`}) before printing ${pattern}; stderr:${err === '' ? ' (empty)' : `\n${err}`}`)))));
        check();
      }),
  };
}

/** Runs lockstep to completion. */
export async function runLockstep(args: readonly string[], options: StartOptions = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = startLockstep(args, options);
  const { code } = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr() };
}

/** Writes a fenced class `payments/<name>` with `ttlSeconds` and a passing pause test dated today (UTC). */
export async function writeFencedClass(dir: string, name: string, ttlSeconds: number): Promise<string> {
  const file = join(dir, `${name}.yaml`);
  const resource = `postgresql://test-db/${name}`;
  const today = new Date().toISOString().slice(0, 10);
  await writeFile(
    file,
    [
      'apiVersion: lockstep.dev/v1', 'kind: LockClass', `metadata: { name: ${name}, namespace: payments }`,
      `spec: { purpose: correctness, enforcement: fenced, resource: "${resource}", ttlSeconds: ${ttlSeconds}, tier: entity }`,
      '---',
      'apiVersion: lockstep.dev/v1', 'kind: PauseTestResult', `metadata: { name: ${name}-pause, namespace: payments }`,
      `spec: { class: ${name}, resource: "${resource}", passed: true, ranAt: ${today} }`,
      '',
    ].join('\n'),
  );
  return file;
}
