// The fence supervisor with real processes and no etcd (issue 11 S4): it starts the command as the leader
// of its own process group and ends the whole group (pipeline members, grandchildren) at the deadline it
// holds, which only moves forward; it stops what a command leaves behind before reporting; and if the
// supervisor itself is killed, lockstep's side stops the group. The real-etcd tests of `lockstep lock`
// (src/commands/lock-fence.test.ts) kill and stop the renewing process itself.
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicNowMs } from './monotonic-clock.js';
import { liveGroupMembers } from './process-group.js';
import { SupervisorLink, supervisorEnv } from './supervisor-link.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-supervisor-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A process's state letter from /proc (Z: dead, not reaped yet), or 'gone'. */
function processState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? 'gone';
  } catch {
    return 'gone';
  }
}

/** sh that records its pid, then runs a pipeline and a grandchild (a subshell's sleep) and waits. */
function pipelineAndGrandchild(pidFile: string): string[] {
  return ['sh', '-c', 'echo $$ > "$1"; (sleep 1000; :) & sleep 1000 | cat; wait', 'sh', pidFile];
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, limitMs = 30_000): Promise<T> {
  const until = monotonicNowMs() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (monotonicNowMs() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

/** Starts `command` under a new supervisor; resolves once its whole group (>= `members`) is running. */
async function supervise(command: (pidFile: string) => string[], deadlineInMs: number, members: number) {
  const pidFile = join(dir, `pid-${Math.random().toString(36).slice(2)}`);
  const link = SupervisorLink.start();
  expect(await link.ready()).toBe(true);
  const deadlineMonoMs = monotonicNowMs() + deadlineInMs;
  link.run({ command: command(pidFile), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, deadlineMonoMs, killAfterMs: 300 });
  const pgid = await waitFor('the command to write its pid', async () => Number((await readFile(pidFile, 'utf8').catch(() => '')).trim()) || undefined);
  const running = await waitFor(`${members} live members in group ${pgid}`, () => {
    const live = liveGroupMembers(pgid);
    return live.length >= members ? live : undefined;
  });
  return { link, pgid, running, deadlineMonoMs };
}

describe('the fence supervisor', () => {
  it('ends the pipeline and the grandchild at the deadline, not before', async () => {
    const { link, pgid, running, deadlineMonoMs } = await supervise(pipelineAndGrandchild, 3_000, 5);
    expect(running.length).toBeGreaterThanOrEqual(5); // sh, the subshell, its sleep, the pipeline's sleep and cat
    expect(monotonicNowMs()).toBeLessThan(deadlineMonoMs); // seen alive before the deadline
    const outcome = await link.outcome;
    expect(monotonicNowMs()).toBeGreaterThanOrEqual(deadlineMonoMs);
    expect(outcome).toMatchObject({ kind: 'exited', stoppedBy: 'deadline' });
    expect(liveGroupMembers(pgid)).toEqual([]);
    for (const pid of running) expect(['gone', 'Z']).toContain(processState(pid)); // each one, read from /proc here
  });

  it('moves its deadline forward when told, and never back', async () => {
    const { link, pgid, deadlineMonoMs } = await supervise(pipelineAndGrandchild, 2_000, 5);
    link.moveDeadline(deadlineMonoMs - 1_500); // earlier: ignored
    link.moveDeadline(deadlineMonoMs + 2_000);
    await waitFor('the first deadline to pass', () => (monotonicNowMs() > deadlineMonoMs + 300 ? true : undefined));
    expect(liveGroupMembers(pgid).length).toBeGreaterThanOrEqual(5); // still running on the later deadline
    const outcome = await link.outcome;
    expect(monotonicNowMs()).toBeGreaterThanOrEqual(deadlineMonoMs + 2_000);
    expect(outcome).toMatchObject({ kind: 'exited', stoppedBy: 'deadline' });
  });

  it('stops the group at once when the renewing side fences', async () => {
    const { link, pgid, deadlineMonoMs } = await supervise(pipelineAndGrandchild, 60_000, 5);
    link.fence();
    expect(await link.outcome).toMatchObject({ kind: 'exited', stoppedBy: 'fence', signal: 'SIGTERM' });
    expect(monotonicNowMs()).toBeLessThan(deadlineMonoMs);
    expect(liveGroupMembers(pgid)).toEqual([]);
  });

  it('stops what the command left running in its group before it reports the exit', async () => {
    const { link, pgid } = await supervise((pidFile) => ['sh', '-c', 'echo $$ > "$1"; sleep 1000 & sleep 1; exit 3', 'sh', pidFile], 60_000, 2);
    const outcome = await link.outcome;
    expect(outcome).toMatchObject({ kind: 'exited', code: 3, stoppedBy: null, leftovers: 1 });
    expect(liveGroupMembers(pgid)).toEqual([]);
  });

  it('reports a command that cannot start, and runs nothing once the deadline has passed', async () => {
    const link = SupervisorLink.start();
    expect(await link.ready()).toBe(true);
    link.run({ command: ['/no/such/program'], env: {}, deadlineMonoMs: monotonicNowMs() + 60_000, killAfterMs: 300 });
    expect(await link.outcome).toMatchObject({ kind: 'spawn-error', message: expect.stringMatching(/ENOENT/) });
    const late = SupervisorLink.start();
    expect(await late.ready()).toBe(true);
    const marker = join(dir, 'ran-late');
    late.run({ command: ['sh', '-c', 'touch "$1"', 'sh', marker], env: { PATH: process.env.PATH ?? '' }, deadlineMonoMs: monotonicNowMs() - 1, killAfterMs: 300 });
    expect(await late.outcome).toMatchObject({ kind: 'exited', stoppedBy: 'deadline', code: null });
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);
  });

  it('is backed up by lockstep\'s side: when the supervisor is killed, the group is stopped anyway', async () => {
    const { link, pgid } = await supervise(pipelineAndGrandchild, 60_000, 5);
    const supervisorPid = (link as unknown as { process: { pid: number } }).process.pid;
    process.kill(supervisorPid, 'SIGKILL');
    expect(await link.outcome).toMatchObject({ kind: 'supervisor-lost' });
    expect(liveGroupMembers(pgid)).toEqual([]);
  });
});

describe("the supervisor's own environment", () => {
  it('leaves out the NODE_* variables that make a Node start do work (issue 30) and keeps the rest', () => {
    const env = supervisorEnv({ PATH: '/usr/bin', NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt', NODE_OPTIONS: '--require x', LANG: 'C.UTF-8', LOCKSTEP_X: '1' });
    expect(env).toEqual({ PATH: '/usr/bin', LANG: 'C.UTF-8', LOCKSTEP_X: '1' });
  });
});
