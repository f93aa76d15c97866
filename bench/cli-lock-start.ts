// `lockstep lock -- true` beside `etcdctl lock k true` for `npm run bench:cli` (issue 30): a one-member etcd
// on loopback from the test kit (installed with apt-get when missing), initialised as an operator would
// (lockstep init), and etcdctl from Debian's etcd-client (installed the same way). Both lock a key of
// their own, so neither waits for the other; `true` is the command each runs under the lock.
import { join } from 'node:path';
import { initEtcdLog } from '../src/etcd/index.js';
import { REPO_ROOT } from '../src/repo-root.js';
import { type EtcdCluster, startEtcdCluster } from '../src/testing/etcd-cluster.js';
import { ensureEtcdctl } from '../src/testing/etcdctl.js';

/** A command to time: the program and its arguments. */
export interface StartCommand {
  readonly program: string;
  readonly args: readonly string[];
}

export interface LockCommands {
  readonly lock: StartCommand;
  readonly etcdctlLock: StartCommand;
  /** Stops the etcd (and removes its data dir). */
  stop(): Promise<void>;
}

/** A class whose key needs no pause test (an advisory, efficiency class): the lock path alone is timed. */
const CLASS_FILE = join(REPO_ROOT, 'examples', 'classes', 'cache-warmer.yaml');

export async function lockCommands(bin: string): Promise<LockCommands> {
  const etcdctl = await ensureEtcdctl();
  const cluster: EtcdCluster = await startEtcdCluster({ members: 1 });
  try {
    await initEtcdLog(cluster.endpoints);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  const endpoints = cluster.endpoints.join(',');
  return {
    lock: { program: process.execPath, args: [bin, 'lock', '--endpoints', endpoints, '--class', CLASS_FILE, '--identity', 'spiffe://bench/cli', 'search/bench-cli', '--', 'true'] },
    etcdctlLock: { program: etcdctl, args: [`--endpoints=${endpoints}`, 'lock', 'bench-cli-etcdctl', 'true'] },
    stop: () => cluster.stop(),
  };
}
