// etcdctl for tests that back up and restore real clusters (issue 19: an entity cluster restored from an
// old snapshot). Debian ships it apart from the server, in `etcd-client` (3.4.23 on bookworm, matching the
// server); found or installed like etcd itself (debian-package.ts). Only what is used is wrapped: the two
// snapshot commands an operator runs (`snapshot save` against a member, `snapshot restore` into a data
// dir) and `move-leader`, with which the planner's measurement places the leader (issue 32).
import { execFile } from 'node:child_process';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DebianProgram, ensureProgram, findProgram } from './debian-package.js';

/** Set this to an etcdctl binary to skip the PATH search. */
export const ETCDCTL_BINARY_ENV = 'LOCKSTEP_ETCDCTL_BINARY';

const ETCDCTL: DebianProgram = { name: 'etcdctl', debianPackage: 'etcd-client', commands: ['etcdctl'], fallbackPaths: ['/usr/bin/etcdctl'], overrideEnv: ETCDCTL_BINARY_ENV };
const ETCDCTL_TIMEOUT_MS = 60_000;

export function findEtcdctl(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  return findProgram(ETCDCTL, env);
}

/** The path of etcdctl, installing `etcd-client` with apt-get when missing and root. */
export function ensureEtcdctl(): Promise<string> {
  return ensureProgram(ETCDCTL);
}

function etcdctl(args: readonly string[]): Promise<string> {
  return ensureEtcdctl().then(
    (binary) =>
      new Promise((resolve, reject) => {
        // ETCDCTL_API=3: 3.4's etcdctl defaults to v3 already; set so a 3.3 one on PATH cannot answer in v2.
        execFile(binary, [...args], { env: { ...process.env, ETCDCTL_API: '3' }, timeout: ETCDCTL_TIMEOUT_MS }, (error, stdout, stderr) => {
          if (error === null) resolve(stdout);
          else reject(new Error(`etcdctl ${args.join(' ')} failed (${error.message.split('\n')[0] ?? ''}):\n${stderr.slice(-2000)}`));
        });
      }),
  );
}

/**
 * `etcdctl move-leader`: hands the leadership to the member with ID `memberIdHex` (etcdctl finds the
 * current leader among `endpoints`). The planner's measurement places the leader as the simulator does
 * (issue 32, sim/planner/quorum-run.ts).
 */
export async function moveLeader(endpoints: readonly string[], memberIdHex: string): Promise<void> {
  await etcdctl([`--endpoints=${endpoints.join(',')}`, 'move-leader', memberIdHex]);
}

/** `etcdctl snapshot save`: the member's backend as of now, into `path`. */
export async function saveSnapshot(endpoint: string, path: string): Promise<void> {
  await etcdctl([`--endpoints=${endpoint}`, 'snapshot', 'save', path]);
}

export interface SnapshotRestore {
  readonly snapshot: string;
  /** The member's name, peer URL and cluster token: kept as they were, the cluster ID comes back unchanged (ADR-03). */
  readonly name: string;
  readonly peerUrl: string;
  readonly clusterToken: string;
  /** The member's data dir; its `member/` directory is replaced by the restored one (other files, such as a log, stay). */
  readonly dataDir: string;
}

/**
 * `etcdctl snapshot restore` for a one-member cluster. etcdctl refuses a data dir that exists, so it
 * restores into a fresh one and the restored `member/` directory is moved into place.
 */
export async function restoreSnapshot(restore: SnapshotRestore): Promise<void> {
  const scratch = await mkdtemp(join(tmpdir(), 'lockstep-restore-'));
  try {
    const restored = join(scratch, 'data');
    await etcdctl([
      'snapshot',
      'restore',
      restore.snapshot,
      `--name=${restore.name}`,
      `--initial-cluster=${restore.name}=${restore.peerUrl}`,
      `--initial-cluster-token=${restore.clusterToken}`,
      `--initial-advertise-peer-urls=${restore.peerUrl}`,
      `--data-dir=${restored}`,
    ]);
    await rm(join(restore.dataDir, 'member'), { recursive: true, force: true });
    await rename(join(restored, 'member'), join(restore.dataDir, 'member'));
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
