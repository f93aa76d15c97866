// Finding (or installing) a program the tests need from Debian's packages: etcd for real clusters,
// chromium for the browser tests. CI starts from a fresh machine where they may be missing; there, as
// root, we install the Debian package (logging each command); elsewhere we throw an error naming the
// command to run. Memoised per program: concurrent callers share one install.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { delimiter, join } from 'node:path';

export interface DebianProgram {
  /** Used in log lines and errors: 'etcd', 'chromium'. */
  readonly name: string;
  /** The Debian package that provides it. */
  readonly debianPackage: string;
  /** Executable names searched on PATH, in order. */
  readonly commands: readonly string[];
  /** Absolute paths tried before PATH (e.g. the real binary behind a wrapper script). */
  readonly preferredPaths?: readonly string[];
  /** Absolute paths tried after PATH. */
  readonly fallbackPaths?: readonly string[];
  /** An environment variable that names the binary explicitly, skipping the search. */
  readonly overrideEnv: string;
}

const APT_TIMEOUT_MS = 10 * 60_000;
const APT_LOCK_WAIT_SECONDS = 300; // several test workers may ask at once; dpkg's lock serialises them

export function installCommand(program: DebianProgram): string {
  return `sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y ${program.debianPackage}`;
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The program's binary: the override variable, then preferred paths, PATH, fallback paths; undefined when there is none. */
export async function findProgram(program: DebianProgram, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const explicit = env[program.overrideEnv];
  if (explicit !== undefined && explicit !== '') {
    if (await isExecutable(explicit)) return explicit;
    throw new Error(`${program.overrideEnv}=${explicit} is not an executable file; unset it or point it at a ${program.name} binary`);
  }
  const onPath = (env['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '').flatMap((dir) => program.commands.map((command) => join(dir, command)));
  for (const candidate of [...(program.preferredPaths ?? []), ...onPath, ...(program.fallbackPaths ?? [])]) {
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

function run(program: DebianProgram, command: string, args: readonly string[]): Promise<void> {
  console.warn(`[lockstep ${program.name}] running: ${command} ${args.join(' ')}`);
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

const pending = new Map<string, Promise<string>>();

/**
 * The path of the program's binary, installing its Debian package first when it is missing and this
 * process runs as root.
 */
export function ensureProgram(program: DebianProgram): Promise<string> {
  let found = pending.get(program.name);
  if (found === undefined) {
    found = locateOrInstall(program).catch((error: unknown) => {
      pending.delete(program.name); // let a later caller try again, e.g. after the user installed it
      throw error;
    });
    pending.set(program.name, found);
  }
  return found;
}

async function locateOrInstall(program: DebianProgram): Promise<string> {
  const found = await findProgram(program);
  if (found !== undefined) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(`${program.name} is not installed and this process is not root, so the tests cannot install it. Run:\n  ${installCommand(program)}\nor set ${program.overrideEnv} to a ${program.name} binary.`);
  }
  console.warn(`[lockstep ${program.name}] ${program.name} is not installed; installing the Debian package ${program.debianPackage}`);
  const lockWait = `DPkg::Lock::Timeout=${APT_LOCK_WAIT_SECONDS}`;
  await run(program, 'apt-get', ['-o', lockWait, 'update']);
  await run(program, 'apt-get', ['-o', lockWait, 'install', '-y', '--no-install-recommends', program.debianPackage]);
  const installed = await findProgram(program);
  if (installed === undefined) throw new Error(`apt-get installed ${program.debianPackage} but no ${program.name} binary is on PATH or at ${[...(program.preferredPaths ?? []), ...(program.fallbackPaths ?? [])].join(', ')}`);
  console.warn(`[lockstep ${program.name}] using ${installed}`);
  return installed;
}
