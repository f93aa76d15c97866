// Throwaway PostgreSQL servers for tests: Debian's postgresql-15 (installed with apt-get when missing and
// root, like etcd: debian-package.ts), a fresh `initdb` cluster in a temp dir, listening on a free
// loopback port only (no Unix socket), fsync off, trust auth for one user, stopped and removed when the
// test is done and killed when the test process exits. PostgreSQL refuses to run as root, so as root
// initdb and postgres run as the `postgres` user the package creates (or `nobody`), through setpriv,
// which execs the program in place: the child we hold is postgres itself, so a signal reaches it.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { chownSync, closeSync, openSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { type DebianProgram, ensureProgram } from './debian-package.js';
import { readLogTail } from './etcd-member-process.js';
import { LOOPBACK_HOST, freePorts } from './free-port.js';
import { forgetDirectory, reapOnExit, removeOnExit } from './process-reaper.js';

export const POSTGRES_BINARY_ENV = 'LOCKSTEP_POSTGRES_BINARY';
const POSTGRES: DebianProgram = {
  name: 'postgres',
  debianPackage: 'postgresql-15',
  commands: ['postgres'],
  preferredPaths: ['/usr/lib/postgresql/15/bin/postgres'],
  overrideEnv: POSTGRES_BINARY_ENV,
};
export const PSQL_PATH = '/usr/bin/psql'; // postgresql-client-15, which postgresql-15 depends on

const USER = 'lockstep';
const START_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;
const START_ATTEMPTS = 3; // a free port can be taken before postgres binds it

export interface PostgresServer {
  /** `postgresql://lockstep@127.0.0.1:PORT/postgres`: trust auth, no password. */
  readonly url: string;
  readonly logFile: string;
  /** Stops the server (SIGQUIT, then SIGKILL) and removes its directory. Safe to call twice. */
  stop(): Promise<void>;
}

/** The uid and gid to run postgres as: ours, or as root the package's `postgres` user (else nobody). */
async function runAs(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    const ids = await new Promise<string | undefined>((resolve) => execFile('id', ['-u', name], (e, uid) => (e === null ? execFile('id', ['-g', name], (e2, gid) => resolve(e2 === null ? `${uid.trim()}:${gid.trim()}` : undefined)) : resolve(undefined))));
    if (ids === undefined) continue;
    const [uid, gid] = ids.split(':').map(Number) as [number, number];
    return { uid, gid };
  }
  throw new Error('running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as (it refuses root); create one with useradd');
}

function command(binary: string, args: readonly string[], as: { uid: number; gid: number } | undefined): [string, string[]] {
  return as === undefined ? [binary, [...args]] : ['setpriv', [`--reuid=${as.uid}`, `--regid=${as.gid}`, '--clear-groups', '--', binary, ...args]];
}

function run(binary: string, args: readonly string[], as: { uid: number; gid: number } | undefined): Promise<void> {
  const [program, argv] = command(binary, args, as);
  return new Promise((resolve, reject) =>
    execFile(program, argv, { timeout: START_TIMEOUT_MS, env: { ...process.env, LC_ALL: 'C' } }, (error, _out, stderr) => (error === null ? resolve() : reject(new Error(`${program} ${argv.join(' ')} failed: ${error.message}\n${stderr.slice(-2000)}`)))),
  );
}

async function waitUntilReady(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`postgres exited during startup; ${logFile} ends with:\n${readLogTail(logFile, 20)}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within ${START_TIMEOUT_MS / 1000} s (${String(error)}); ${logFile} ends with:\n${readLogTail(logFile, 20)}`);
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((done) => setTimeout(done, 100));
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGQUIT'); // immediate shutdown: the postmaster takes its backends down with it
  });
}

async function startOnce(binary: string, as: { uid: number; gid: number } | undefined): Promise<PostgresServer> {
  const root = await mkdtemp(join(tmpdir(), 'lockstep-postgres-'));
  removeOnExit(root);
  if (as !== undefined) chownSync(root, as.uid, as.gid);
  const dataDir = join(root, 'data');
  const logFile = join(root, 'postgres.log');
  const [port] = await freePorts(1);
  let child: ChildProcess | undefined;
  try {
    await run(join(dirname(binary), 'initdb'), ['-D', dataDir, '-U', USER, '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], as);
    const logFd = openSync(logFile, 'a');
    if (as !== undefined) chownSync(logFile, as.uid, as.gid);
    const settings = [`listen_addresses=${LOOPBACK_HOST}`, `port=${port}`, 'unix_socket_directories=', 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off'];
    const [program, argv] = command(binary, ['-D', dataDir, ...settings.flatMap((s) => ['-c', s])], as);
    try {
      child = spawn(program, argv, { stdio: ['ignore', logFd, logFd], env: { ...process.env, LC_ALL: 'C' } });
    } finally {
      closeSync(logFd);
    }
    reapOnExit(child);
    const url = `postgresql://${USER}@${LOOPBACK_HOST}:${port}/postgres`;
    await waitUntilReady(url, child, logFile);
    const running = child;
    let stopped = false;
    return {
      url,
      logFile,
      async stop() {
        if (stopped) return;
        stopped = true;
        await stopChild(running);
        await rm(root, { recursive: true, force: true });
        forgetDirectory(root);
      },
    };
  } catch (error) {
    if (child !== undefined) await stopChild(child);
    await rm(root, { recursive: true, force: true });
    forgetDirectory(root);
    throw error;
  }
}

/** Starts a fresh server and resolves once it accepts connections. Always call stop() (afterAll). */
export async function startPostgres(): Promise<PostgresServer> {
  const binary = await ensureProgram(POSTGRES);
  const as = await runAs();
  let lastError: unknown;
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    try {
      return await startOnce(binary, as);
    } catch (error) {
      lastError = error;
      if (!/could not bind|already in use/.test(String(error))) break;
    }
  }
  throw lastError;
}
