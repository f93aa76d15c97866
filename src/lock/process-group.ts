// The guarded command runs as the leader of its own process group (spawned with setsid), so everything
// it starts, pipeline members and grandchildren alike, is in that group unless it leaves on purpose
// (setsid, a daemon's double fork). The fence signals the group, never one pid: SIGTERM to the child
// alone left `sh -c 'writer | cat'`'s writer running with the token after lockstep exited 4 (issue 11 S4).
// Linux only: membership is read from /proc, which is where lockstep runs (Debian, ARCHITECTURE.md).
import { readFileSync, readdirSync } from 'node:fs';

/** Sends `signal` to every process in group `pgid` (0: none, existence only); false when it has no process left. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  assertGroupId(pgid);
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/**
 * The pids of group `pgid` that are alive, zombies excluded: a member that died but whose parent has not
 * reaped it yet can do nothing, and an init that never reaps orphans would otherwise keep the group
 * "alive" for ever.
 */
export function liveGroupMembers(pgid: number): number[] {
  assertGroupId(pgid);
  if (!signalGroup(pgid, 0)) return [];
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(entry);
    if (stat !== undefined && stat.pgrp === pgid && stat.state !== 'Z' && stat.state !== 'X') members.push(Number(entry));
  }
  return members;
}

function readStat(pid: string): { state: string; pgrp: number } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // exited while we looked
  }
  // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, , pgrp] = fields;
  return state === undefined || pgrp === undefined ? undefined : { state, pgrp: Number(pgrp) };
}

export type GroupStop = 'none-left' | 'terminated' | 'killed';

const POLL_MS = 20;
/** How long to wait for the kernel to finish off a group after SIGKILL (TigerStyle: every wait has a limit). */
const AFTER_KILL_LIMIT_MS = 5_000;

/**
 * Stops group `pgid`: SIGTERM, then SIGCONT so that a stopped member acts on it (as coreutils `timeout`
 * does), then SIGKILL to whatever is still alive after `killAfterMs`. Resolves once no member is alive.
 */
export async function stopGroup(pgid: number, killAfterMs: number): Promise<GroupStop> {
  if (liveGroupMembers(pgid).length === 0) return 'none-left';
  signalGroup(pgid, 'SIGTERM');
  signalGroup(pgid, 'SIGCONT');
  if (await waitUntilGone(pgid, killAfterMs)) return 'terminated';
  signalGroup(pgid, 'SIGKILL');
  if (await waitUntilGone(pgid, AFTER_KILL_LIMIT_MS)) return 'killed';
  throw new Error(`process group ${pgid} still has live members ${liveGroupMembers(pgid).join(', ')} ${AFTER_KILL_LIMIT_MS} ms after SIGKILL`);
}

async function waitUntilGone(pgid: number, limitMs: number): Promise<boolean> {
  const until = performance.now() + limitMs;
  for (;;) {
    if (liveGroupMembers(pgid).length === 0) return true;
    if (performance.now() >= until) return false;
    await new Promise((done) => setTimeout(done, Math.min(POLL_MS, Math.max(1, until - performance.now()))));
  }
}

function assertGroupId(pgid: number): void {
  // kill(-1) would signal every process we may signal, kill(-0) our own group: never what is meant.
  if (!Number.isInteger(pgid) || pgid <= 1) throw new Error(`process group id ${pgid} must be an integer above 1`);
}
