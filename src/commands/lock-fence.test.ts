// `lockstep lock`'s fence with real processes on a real etcd (issue 11 S4). The command runs in its own
// process group under a fence supervisor, so:
// - at the fence, a pipeline's members and a grandchild are stopped too, not only the direct child;
// - kill -9 of `lockstep lock` stops the command's group at once, not at its deadline;
// - SIGSTOP of `lockstep lock` stops the group by the fence deadline, while it is still stopped, and a
//   second holder gets the key only after the group is gone;
// - a Ctrl-C reaches the command once (lockstep forwards it; the command's own session keeps the
//   terminal from delivering it a second time), and the key is released.
// What the tests observe comes from /proc and from files the commands write, not from lockstep's account.
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { initEtcdLog } from '../etcd/index.js';
import { liveGroupMembers } from '../lock/process-group.js';
import { type EtcdCluster, startEtcdCluster } from '../testing/etcd-cluster.js';
import { type LockstepProcess, startLockstep, writeFencedClass } from '../testing/lockstep-process.js';

const REAL_PROCESS_TIMEOUT_MS = 180_000;
const SHORT_TTL_SECONDS = 5; // the platform minimum (ADR-11): the SIGSTOP test waits one out
const LONG_TTL_SECONDS = 15; // the kill -9 test tells "at once" from "at the deadline" (>= 9 s away)

/** A process's state letter from /proc (T: stopped, Z: dead, not reaped yet), or 'gone'. */
function processState(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? 'gone';
  } catch {
    return 'gone';
  }
}

/** `root` and every live process descended from it (by parent pid, read from /proc). */
function descendantsOf(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') children.set(Number(ppid), [...(children.get(Number(ppid)) ?? []), Number(entry)]);
    } catch {
      // exited while we looked
    }
  }
  const found = processState(root) === 'gone' ? [] : [root];
  for (let i = 0; i < found.length; i++) found.push(...(children.get(found[i] ?? -1) ?? []));
  return found;
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, limitMs = 60_000): Promise<T> {
  const until = performance.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (performance.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

describe('lockstep lock: the fence reaches the whole process group and outlives the renewing process', () => {
  let cluster: EtcdCluster;
  let dir: string;
  let shortClass: string;
  let longClass: string;
  const running: LockstepProcess[] = [];
  /** Every command process seen, killed at the end whatever a test left behind. */
  const survivors = new Set<number>();
  beforeAll(async () => {
    cluster = await startEtcdCluster({ members: 1 });
    await initEtcdLog(cluster.endpoints); // lockstep init
    dir = await mkdtemp(join(tmpdir(), 'lockstep-fence-'));
    shortClass = await writeFencedClass(dir, 'fence-short', SHORT_TTL_SECONDS);
    longClass = await writeFencedClass(dir, 'fence-long', LONG_TTL_SECONDS);
  });
  afterAll(async () => {
    for (const run of running) {
      run.child.kill('SIGCONT');
      run.child.kill('SIGKILL');
    }
    for (const pid of survivors) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await cluster?.stop();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** `lockstep lock` as `identity` (a second holder is another identity: the same one would be a leak, ADR-13). */
  function lock(classFile: string, key: string, command: readonly string[], options: { wait?: string; identity?: string } = {}): LockstepProcess {
    const identity = options.identity ?? `svc-${key}`;
    const run = startLockstep(['lock', '--endpoints', cluster.endpoints.join(','), '--class', classFile, '--identity', identity, '--wait', options.wait ?? '0s', `payments/${key}`, '--', ...command]);
    running.push(run);
    return run;
  }

  /** sh that records its pid (the group id), runs a grandchild (a subshell's sleep) and a pipeline, and waits. */
  function pipelineAndGrandchild(pidFile: string): string[] {
    return ['sh', '-c', 'echo $$ > "$0"; (sleep 1000; :) & sleep 1000 | cat; wait', pidFile];
  }

  /**
   * The command's processes, once at least `count` are alive: the sh whose pid it wrote and every process
   * descended from it, found by parent pid in /proc (not by process group, which is what is under test).
   */
  async function commandProcesses(pidFile: string, count: number): Promise<{ root: number; pids: number[] }> {
    const root = await waitFor('the command to write its pid', async () => Number((await readFile(pidFile, 'utf8').catch(() => '')).trim()) || undefined);
    const pids = await waitFor(`${count} live processes under ${root}`, () => {
      const found = descendantsOf(root);
      return found.length >= count ? found : undefined;
    });
    for (const pid of pids) survivors.add(pid);
    return { root, pids };
  }

  const alive = (pid: number) => !['gone', 'Z'].includes(processState(pid));

  /** Waits up to `limitMs` for every one of `pids` to be gone; returns those still alive then. */
  async function stillAliveAfter(pids: readonly number[], limitMs: number): Promise<number[]> {
    const until = performance.now() + limitMs;
    while (pids.some(alive) && performance.now() < until) await new Promise((done) => setTimeout(done, 20));
    return pids.filter(alive);
  }

  it('stops a pipeline and a grandchild at the fence, and exits 4', async () => {
    const pidFile = join(dir, 'pipeline.pid');
    const holder = lock(shortClass, 'fence-pipeline', pipelineAndGrandchild(pidFile));
    const { root, pids } = await commandProcesses(pidFile, 5); // sh, the subshell and its sleep, the pipeline's sleep and cat
    cluster.pauseMember(0); // etcd stops answering: keepalives fail, and the ADR-12 deadline comes
    try {
      const exit = await holder.exited;
      expect(exit.code, holder.stderr()).toBe(4);
      expect(holder.stderr()).toMatch(/lost the lock on payments\/fence-pipeline/);
      expect(pids.filter(alive)).toEqual([]); // lockstep exited 4 only once nothing the command started was alive
      expect(liveGroupMembers(root)).toEqual([]);
    } finally {
      cluster.resumeMember(0);
      await cluster.waitUntilHealthy();
    }
  }, REAL_PROCESS_TIMEOUT_MS);

  it('passes a Ctrl-C on to the command once, then releases the key', async () => {
    const pidFile = join(dir, 'int.pid');
    const marks = join(dir, 'int.marks');
    const command = ['sh', '-c', 'echo $$ > "$0"; trap \'echo int >> "$1"; exit 130\' INT; while :; do sleep 0.05; done', pidFile, marks];
    const holder = startLockstep(['lock', '--endpoints', cluster.endpoints.join(','), '--class', longClass, '--identity', 'svc-int', 'payments/fence-int', '--', ...command], { ownGroup: true });
    running.push(holder);
    const { pids } = await commandProcesses(pidFile, 1);
    process.kill(-holder.pid, 'SIGINT'); // what a terminal does: the signal goes to lockstep's whole group
    expect((await holder.exited).code, holder.stderr()).toBe(130); // the command's own exit
    expect(await readFile(marks, 'utf8')).toBe('int\n'); // once: forwarded by lockstep, not also delivered by the terminal
    expect(pids.filter(alive)).toEqual([]);
    const second = lock(longClass, 'fence-int', ['true'], { identity: 'svc-second' }); // --wait 0s: released, not expired
    expect((await second.exited).code, second.stderr()).toBe(0);
  }, REAL_PROCESS_TIMEOUT_MS);

  it('stops the command\'s processes at once when lockstep lock is killed with SIGKILL; a second holder then gets the key', async () => {
    const pidFile = join(dir, 'kill.pid');
    const holder = lock(longClass, 'fence-kill', pipelineAndGrandchild(pidFile));
    const { pids } = await commandProcesses(pidFile, 5);
    process.kill(holder.pid, 'SIGKILL');
    // Its fence deadline was at least TTL - 1 s - TTL/3 = 9 s away: all gone within 5 s means "at once".
    expect(await stillAliveAfter(pids, 5_000)).toEqual([]);
    const startedFile = join(dir, 'kill-second.started');
    const second = lock(longClass, 'fence-kill', ['sh', '-c', 'echo started > "$0"', startedFile], { wait: '60s', identity: 'svc-second' });
    expect((await second.exited).code, second.stderr()).toBe(0);
    expect(await readFile(startedFile, 'utf8')).toBe('started\n');
  }, REAL_PROCESS_TIMEOUT_MS);

  it('stops the command\'s processes by the fence deadline while lockstep lock is SIGSTOPped, before a second holder gets the key', async () => {
    const pidFile = join(dir, 'stop.pid');
    const heartbeats = join(dir, 'stop.heartbeats');
    // A heartbeat every 50 ms (wall-clock ns, comparable with the second holder's), and a grandchild.
    const holder = lock(shortClass, 'fence-stop', ['sh', '-c', 'echo $$ > "$0"; (sleep 1000; :) & while :; do date +%s%N >> "$1"; sleep 0.05; done', pidFile, heartbeats]);
    const { pids } = await commandProcesses(pidFile, 3);
    process.kill(holder.pid, 'SIGSTOP');
    try {
      const startedFile = join(dir, 'stop-second.started');
      const second = lock(shortClass, 'fence-stop', ['sh', '-c', 'date +%s%N > "$0"', startedFile], { wait: '60s', identity: 'svc-second' });
      // The deadline was at most TTL - 1 s after the stop (a keepalive sent before it + TTL - 1 s).
      expect(await stillAliveAfter(pids, SHORT_TTL_SECONDS * 1_000)).toEqual([]);
      expect(processState(holder.pid)).toBe('T'); // still stopped: nothing waited for SIGCONT
      expect((await second.exited).code, second.stderr()).toBe(0);
      const lastHeartbeatNs = BigInt((await readFile(heartbeats, 'utf8')).trim().split('\n').at(-1) ?? '0');
      const secondStartedNs = BigInt((await readFile(startedFile, 'utf8')).trim());
      expect(lastHeartbeatNs).toBeGreaterThan(0n);
      expect(secondStartedNs).toBeGreaterThan(lastHeartbeatNs); // never two holders acting at once
    } finally {
      process.kill(holder.pid, 'SIGCONT');
    }
    const exit = await holder.exited;
    expect(exit.code, holder.stderr()).toBe(4);
  }, REAL_PROCESS_TIMEOUT_MS);
});
