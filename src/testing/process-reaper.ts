// Test clusters must not outlive the test process: a crashed or timed-out test run would otherwise leave
// etcd members running and temporary data dirs behind. 'exit' handlers must be synchronous, so this kills
// with SIGKILL and removes directories with rmSync.
import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';

const liveProcesses = new Set<ChildProcess>();
/** Leaders of process groups (spawned detached): the whole group is killed, not the leader alone. */
const liveGroups = new Set<number>();
const liveDirectories = new Set<string>();
let hooked = false;

function reapAll(): void {
  for (const child of liveProcesses) {
    try {
      child.kill('SIGKILL');
    } catch {
      // Already gone.
    }
  }
  liveProcesses.clear();
  for (const pgid of liveGroups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // The whole group is gone.
    }
  }
  liveGroups.clear();
  for (const directory of liveDirectories) rmSync(directory, { recursive: true, force: true });
  liveDirectories.clear();
}

function hookExit(): void {
  if (hooked) return;
  hooked = true;
  process.on('exit', reapAll);
}

/** Kill `child` when this process exits, unless it exited first. */
export function reapOnExit(child: ChildProcess): void {
  hookExit();
  liveProcesses.add(child);
  child.once('exit', () => liveProcesses.delete(child));
}

/**
 * Kill the whole process group `child` leads (spawned with detached: true) when this process exits: an
 * `npx` leaves its node and that node's etcd behind when only npx is killed. The group is killed even after
 * the leader exited, for its children may not have; call forgetGroup once the test has ended it itself.
 */
export function reapGroupOnExit(child: ChildProcess): void {
  hookExit();
  if (child.pid !== undefined) liveGroups.add(child.pid);
}

export function forgetGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Remove `directory` when this process exits, unless forgetDirectory was called first. */
export function removeOnExit(directory: string): void {
  hookExit();
  liveDirectories.add(directory);
}

export function forgetDirectory(directory: string): void {
  liveDirectories.delete(directory);
}

/** Whether a process `pid` still exists (signal 0 asks without sending anything). */
export function processAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes `pid` started that are still its children (Linux /proc): what a test checks is gone after a stop. */
export function childrenOf(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((s) => s !== '').map(Number);
}
