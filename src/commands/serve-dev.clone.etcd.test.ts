// The README's "Run the service" as a new user meets it (issue 29): a fresh `git clone` of this repository's
// committed HEAD into a temporary directory, `npm ci` there, then the README's two commands as written,
// through npx: `npx lockstep serve --dev`, and the lock command it prints, which must be the README's second
// line with DIR filled in, and must be granted through mTLS. `npm ci --prefer-offline` is plain `npm ci`
// served from npm's cache where it can (the same lock file, the same install and prepare build), so the
// test does not depend on the registry's speed. What is not committed is not in the clone: commit first.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../repo-root.js';
import { forgetGroup, reapGroupOnExit } from '../testing/process-reaper.js';
import { DEFAULT_LISTEN } from './serve.js';

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'lockstep-clone-'));
const clone = join(scratch, 'lockstep');
const groups: ChildProcess[] = [];

/** The README's two service commands, in order, without their comments. */
function readmeServiceCommands(): string[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = /## Run the service\n[^]*?```sh\n([^]*?)```/.exec(readme)?.[1];
  if (section === undefined) throw new Error('README.md has no "Run the service" section with a sh block');
  return section.trim().split('\n').map((line) => line.replace(/\s+#.*$/, '').trim());
}

/** A shell command line in the clone, as a terminal runs it: a process group of its own. */
function shell(line: string): { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> } {
  const child = spawn('sh', ['-c', line], { cwd: clone, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  reapGroupOnExit(child);
  groups.push(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('close', (code) => done(code)));
  return { child, out: () => out, err: () => err, exited };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, signal);
  } catch {
    // The group is gone.
  }
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer().once('error', () => done(false)).listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

beforeAll(async () => {
  await run('git', ['clone', '--quiet', REPO_ROOT, clone]);
  await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], { cwd: clone, maxBuffer: 64 * 1024 * 1024 });
}, 600_000);

afterAll(() => {
  for (const child of groups) {
    killGroup(child, 'SIGKILL');
    if (child.pid !== undefined) forgetGroup(child.pid);
  }
  rmSync(scratch, { recursive: true, force: true });
});

describe('the README\'s service commands from a fresh clone', () => {
  it('serve --dev prints the README\'s lock command, which is granted through mTLS; stopping removes DIR', { timeout: 300_000 }, async () => {
    const [serveLine, lockLine] = readmeServiceCommands();
    expect(serveLine).toBe('npx lockstep serve --dev');
    const port = Number(DEFAULT_LISTEN.split(':')[1]);
    if (!(await portIsFree(port))) throw new Error(`port ${port} (serve's default, which the README uses) is taken on this machine: stop what listens there and run again`);
    const serve = shell(serveLine as string);
    const printed = await new Promise<string>((done, fail) => {
      const look = setInterval(() => {
        const line = serve.out().split('\n').find((l) => l.trim().startsWith('npx lockstep lock'));
        if (line !== undefined) settle(() => done(line.trim()));
      }, 200);
      const settle = (finish: () => void): void => {
        clearInterval(look);
        finish();
      };
      void serve.exited.then((code) => settle(() => fail(new Error(`serve --dev exited ${code} before printing the lock command:\n${serve.err()}`))));
    });
    const dir = /--ca (\S+)\/ca\.crt/.exec(printed)?.[1] as string;
    expect(existsSync(join(dir, 'ca.key'))).toBe(true);
    // The README's line is what serve printed, DIR filled in: the README stays true.
    expect(printed).toBe((lockLine as string).replaceAll('DIR/', `${dir}/`));
    const lock = shell(printed);
    expect(await lock.exited, lock.err()).toBe(0);
    expect(lock.out()).toMatch(/^holding with token fingerprint [0-9a-f]{8}$/m);
    expect(lock.err()).toMatch(/locked payments\/ledger\/42/);
    // Ctrl-C: the terminal signals the foreground group (sh and npx die of it; serve drains and stops).
    killGroup(serve.child, 'SIGINT');
    await serve.exited; // every holder of the output pipes closed it: serve's process too
    expect(serve.err()).toMatch(/SIGINT: draining[^]*lockstep serve: stopped/);
    expect(existsSync(dir)).toBe(false);
  });
});
