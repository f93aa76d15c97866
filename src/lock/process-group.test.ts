// Process groups, with real processes: why the fence signals the group and not the command's pid (the
// negative control: SIGTERM to the leader alone leaves the pipeline running), how a group that ignores
// SIGTERM is ended, and that a zombie does not count as alive.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { liveGroupMembers, signalGroup, stopGroup } from './process-group.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
});

async function startGroup(script: string, members: number): Promise<number> {
  const child = spawn('sh', ['-c', script], { stdio: 'ignore', detached: true });
  started.push(child);
  const pgid = child.pid;
  if (pgid === undefined) throw new Error('sh did not start');
  for (let tries = 0; liveGroupMembers(pgid).length < members; tries++) {
    if (tries > 1_500) throw new Error(`group ${pgid} never had ${members} live members`);
    await new Promise((done) => setTimeout(done, 20));
  }
  return pgid;
}

function zombiesIn(pgid: number): number[] {
  return readdirSync('/proc').filter((entry) => /^\d+$/.test(entry)).flatMap((pid) => {
    try {
      const [state, , pgrp] = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '').split(' ');
      return state === 'Z' && Number(pgrp) === pgid ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

describe('process groups', () => {
  it('SIGTERM to the leader alone leaves the pipeline running; stopGroup ends every member', async () => {
    const pgid = await startGroup('sleep 1000 | cat; wait', 3);
    process.kill(pgid, 'SIGTERM'); // what lockstep lock did before (child.kill): the negative control
    await new Promise((done) => setTimeout(done, 300));
    expect(liveGroupMembers(pgid).length).toBeGreaterThanOrEqual(2); // sleep and cat write on
    expect(await stopGroup(pgid, 2_000)).toBe('terminated');
    expect(liveGroupMembers(pgid)).toEqual([]);
    expect(await stopGroup(pgid, 2_000)).toBe('none-left');
  });

  it('kills a group that ignores SIGTERM once the grace has passed', async () => {
    const pgid = await startGroup('trap "" TERM; sleep 1000 & wait', 2);
    expect(await stopGroup(pgid, 200)).toBe('killed');
    expect(liveGroupMembers(pgid)).toEqual([]);
  });

  it('does not count a zombie as alive', async () => {
    // The short sleep exits, and the shell has become the long sleep, which never reaps it.
    const pgid = await startGroup('sleep 0.2 & exec sleep 1000', 1);
    await new Promise((done) => setTimeout(done, 600));
    expect(zombiesIn(pgid)).toHaveLength(1); // read here from /proc: the zombie is there
    expect(liveGroupMembers(pgid)).toEqual([pgid]);
  });

  it('refuses group ids that would signal this process group or every process', () => {
    for (const pgid of [0, 1, -5, 2.5]) expect(() => signalGroup(pgid, 'SIGTERM')).toThrow(/must be an integer above 1/);
  });
});
