// `lockstep lock -- true` in both modes beside `etcdctl lock k true` for `npm run bench:cli` (issue 30): a
// one-member etcd on loopback from the test kit (installed with apt-get when missing), initialised as an
// operator would (lockstep init); `lock --endpoints` runs an arbiter in its own process over it, `lock
// --arbiter` goes through a `lockstep serve` started here on it (plaintext on loopback: the lock's start,
// not TLS, is what is timed; identities are then claimed, ADR-19); etcdctl from Debian's etcd-client
// (installed the same way). Each locks a key of its own, so none waits for another; `true` is the command
// each runs under the lock.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initEtcdLog } from '../src/etcd/index.js';
import { REPO_ROOT } from '../src/repo-root.js';
import { type EtcdCluster, startEtcdCluster } from '../src/testing/etcd-cluster.js';
import { ensureEtcdctl } from '../src/testing/etcdctl.js';
import { freePorts } from '../src/testing/free-port.js';
import { type LockstepProcess, startLockstep } from '../src/testing/lockstep-process.js';

/** A command to time: the program and its arguments. */
export interface StartCommand {
  readonly program: string;
  readonly args: readonly string[];
}

export interface LockCommands {
  readonly lock: StartCommand;
  readonly lockArbiter: StartCommand;
  readonly etcdctlLock: StartCommand;
  /** `lockstep serve` over the same etcd, class and grant, without its --listen: as the gate starts its arbiters. */
  readonly serveArgs: readonly string[];
  /** Stops `lockstep serve` and the etcd (and removes their files). */
  stop(): Promise<void>;
}

/** A class whose key needs no pause test (an advisory, efficiency class): the lock path alone is timed. */
const CLASS_FILE = join(REPO_ROOT, 'examples', 'classes', 'cache-warmer.yaml');
const IDENTITY = 'spiffe://bench/cli';
const GRANT = ['apiVersion: lockstep.dev/v1', 'kind: LockGrant', 'metadata: { name: bench-cli, namespace: search }', `spec: { identity: "${IDENTITY}", prefixes: [search/] }`].join('\n');

const serveArgsOf = (endpoints: string, dir: string): string[] => ['serve', '--endpoints', endpoints, '--classes', join(dir, 'classes'), '--grants', join(dir, 'grants')];

/** `lockstep serve` on a free loopback port over `endpoints`, with the bench's class and grant; its address. */
async function startServe(endpoints: string, dir: string): Promise<{ serve: LockstepProcess; address: string }> {
  const dirs = { classes: join(dir, 'classes'), grants: join(dir, 'grants') };
  await Promise.all([mkdir(dirs.classes), mkdir(dirs.grants)]);
  await copyFile(CLASS_FILE, join(dirs.classes, 'cache-warmer.yaml'));
  await writeFile(join(dirs.grants, 'bench.yaml'), `${GRANT}\n`);
  const [port] = await freePorts(1);
  const address = `127.0.0.1:${String(port)}`;
  const serve = startLockstep([...serveArgsOf(endpoints, dir), '--listen', address]);
  try {
    await serve.waitForStderr(/serving lock\.v1/);
  } catch (error) {
    serve.child.kill('SIGKILL');
    throw error;
  }
  return { serve, address };
}

export async function lockCommands(bin: string): Promise<LockCommands> {
  const etcdctl = await ensureEtcdctl();
  const cluster: EtcdCluster = await startEtcdCluster({ members: 1 });
  const dir = await mkdtemp(join(tmpdir(), 'lockstep-bench-cli-'));
  const cleanUp = async () => {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  };
  let started: { serve: LockstepProcess; address: string };
  try {
    await initEtcdLog(cluster.endpoints);
    started = await startServe(cluster.endpoints.join(','), dir);
  } catch (error) {
    await cleanUp();
    throw error;
  }
  const { serve, address } = started;
  const endpoints = cluster.endpoints.join(',');
  return {
    lock: { program: process.execPath, args: [bin, 'lock', '--endpoints', endpoints, '--class', CLASS_FILE, '--identity', IDENTITY, 'search/bench-cli', '--', 'true'] },
    lockArbiter: { program: process.execPath, args: [bin, 'lock', '--arbiter', address, '--identity', IDENTITY, 'search/bench-cli-arbiter', '--', 'true'] },
    etcdctlLock: { program: etcdctl, args: [`--endpoints=${endpoints}`, 'lock', 'bench-cli-etcdctl', 'true'] },
    serveArgs: serveArgsOf(endpoints, dir),
    stop: async () => {
      serve.child.kill('SIGTERM');
      await serve.exited;
      await cleanUp();
    },
  };
}
