// Finding (or installing) the etcd server binary for tests that run real clusters. CI starts from a fresh
// machine where etcd may be missing; there, as root, we install Debian's `etcd-server` package (etcd
// 3.4.23 on bookworm, the version design/etcd-behaviour.md describes). The package may also start a
// system etcd on 2379/2380; the test clusters never use those ports (src/testing/free-port.ts).
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

/** Set this to an etcd binary to skip the PATH search (e.g. a 3.5 build to compare behaviours). */
export const ETCD_BINARY_ENV = 'LOCKSTEP_ETCD_BINARY';
export const DEBIAN_ETCD_PATH = '/usr/bin/etcd';
export const INSTALL_COMMAND = 'sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server';
const APT_TIMEOUT_MS = 10 * 60_000;
const APT_LOCK_WAIT_SECONDS = 300; // several test workers may ask at once; dpkg's lock serialises them

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first executable `etcd` on PATH, then /usr/bin/etcd; undefined when there is none. */
export async function findEtcdBinary(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const explicit = env[ETCD_BINARY_ENV];
  if (explicit !== undefined && explicit !== '') {
    if (await isExecutable(explicit)) return explicit;
    throw new Error(`${ETCD_BINARY_ENV}=${explicit} is not an executable file; unset it or point it at an etcd binary`);
  }
  const candidates = (env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, 'etcd'));
  for (const candidate of [...candidates, DEBIAN_ETCD_PATH]) {
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function run(command: string, args: readonly string[]): Promise<void> {
  console.warn(`[lockstep etcd] running: ${command} ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    execFile(command, [...args], { env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, timeout: APT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error === null) {
        resolve();
        return;
      }
      reject(new Error(`${command} ${args.join(' ')} failed (${error.message.split('\n')[0] ?? ''}):\n${stderr.slice(-2000)}`));
    });
  });
}

async function installWithApt(): Promise<void> {
  console.warn('[lockstep etcd] etcd is not installed; installing the Debian package etcd-server (tests use their own ports, not a system etcd on 2379)');
  const lockWait = `DPkg::Lock::Timeout=${APT_LOCK_WAIT_SECONDS}`;
  await run('apt-get', ['-o', lockWait, 'update']);
  await run('apt-get', ['-o', lockWait, 'install', '-y', '--no-install-recommends', 'etcd-server']);
}

let pending: Promise<string> | undefined;

/**
 * The path of an etcd server binary. Looks on PATH and at /usr/bin/etcd; if there is none and this
 * process runs as root, installs `etcd-server` with apt-get (logging each command); otherwise throws an
 * error naming the command to run. Memoised: concurrent callers share one install.
 */
export function ensureEtcdBinary(): Promise<string> {
  pending ??= locateOrInstall().catch((error: unknown) => {
    pending = undefined; // let a later caller try again, e.g. after the user installed it
    throw error;
  });
  return pending;
}

async function locateOrInstall(): Promise<string> {
  const found = await findEtcdBinary();
  if (found !== undefined) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`etcd is not installed and this process is not root, so the tests cannot install it. Run:\n  ${INSTALL_COMMAND}\nor set ${ETCD_BINARY_ENV} to an etcd 3.4+ binary.`);
  }
  await installWithApt();
  const installed = await findEtcdBinary();
  if (installed === undefined) throw new Error(`apt-get installed etcd-server but no etcd binary is on PATH or at ${DEBIAN_ETCD_PATH}`);
  console.warn(`[lockstep etcd] using ${installed}`);
  return installed;
}
