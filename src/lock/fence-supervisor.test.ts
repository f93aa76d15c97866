// FenceSupervisor in this process, with a channel the test plays lockstep's side of, and real commands:
// what only an in-process test can show directly: the renewing side's end of the channel closing (its
// death) stops the group at once; a forwarded signal reaches every member; a stray message does nothing.
// The supervisor as its own process is in supervisor-link.test.ts and src/commands/lock-fence.test.ts.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FenceSupervisor, type SupervisorChannel } from './fence-supervisor.js';
import { monotonicNowMs } from './monotonic-clock.js';
import { liveGroupMembers } from './process-group.js';
import type { FromSupervisor } from './supervisor-protocol.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'lockstep-fence-supervisor-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function harness() {
  const sent: FromSupervisor[] = [];
  let deliver: (message: unknown) => void = () => {};
  let disconnect: () => void = () => {};
  let finished = false;
  const channel: SupervisorChannel = {
    send: async (message) => void sent.push(message),
    onMessage: (handler) => (deliver = handler),
    onDisconnect: (handler) => (disconnect = handler),
  };
  const supervisor = new FenceSupervisor(channel, () => (finished = true));
  supervisor.start();
  return { supervisor, sent, deliver: (m: unknown) => deliver(m), disconnect: () => disconnect(), finished: () => finished };
}

async function until<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, limitMs = 30_000): Promise<T> {
  const end = monotonicNowMs() + limitMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (monotonicNowMs() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const started = (sent: FromSupervisor[]) => sent.find((m): m is Extract<FromSupervisor, { type: 'started' }> => m.type === 'started');
const exited = (sent: FromSupervisor[]) => sent.find((m): m is Extract<FromSupervisor, { type: 'exited' }> => m.type === 'exited');

describe('FenceSupervisor', () => {
  it('stops the group at once when the renewing process goes away (its end of the channel closes)', async () => {
    const h = harness();
    expect(h.sent).toEqual([{ type: 'ready' }]);
    h.deliver({ type: 'run', command: ['sh', '-c', 'sleep 1000 | cat'], env, deadlineMonoMs: monotonicNowMs() + 60_000, killAfterMs: 300 });
    const { pid } = await until('the command to start', () => started(h.sent));
    await until('the pipeline', () => (liveGroupMembers(pid).length >= 3 ? true : undefined));
    h.disconnect();
    const report = await until('the exit report', () => exited(h.sent));
    expect(report).toMatchObject({ stoppedBy: 'parent-gone', signal: 'SIGTERM' });
    expect(liveGroupMembers(pid)).toEqual([]);
    expect(h.finished()).toBe(true);
  });

  it('passes a forwarded signal to every member of the group, and ignores a message it does not know', async () => {
    const marks = join(dir, 'marks');
    const h = harness();
    // Two members that each note the SIGTERM they get, then end. (Not SIGINT: sh starts a background job
    // with SIGINT ignored, and a trap cannot undo that.) Each says when its trap is set: the signal must
    // not be sent before (under load, counting live processes let it reach a member still starting).
    const member = `trap 'echo term >> "$0"; exit 0' TERM; echo ready >> "$0.ready"; while :; do sleep 0.05; done`;
    h.deliver({ type: 'run', command: ['sh', '-c', `sh -c '${member.replace(/'/g, `'\\''`)}' "$0" & sh -c '${member.replace(/'/g, `'\\''`)}' "$0"; wait`, marks], env, deadlineMonoMs: monotonicNowMs() + 60_000, killAfterMs: 300 });
    await until('the command to start', () => started(h.sent));
    await until('both members, their traps set', async () => ((await readFile(`${marks}.ready`, 'utf8').catch(() => '')).trim().split('\n').length === 2 ? true : undefined));
    h.deliver({ type: 'kill-everything' }); // not a message of the protocol
    h.deliver({ type: 'signal', signal: 'SIGTERM' });
    const report = await until('the exit report', () => exited(h.sent));
    expect(report.stoppedBy).toBeNull();
    expect((await readFile(marks, 'utf8')).trim().split('\n')).toEqual(['term', 'term']);
  });

  it('finishes without running anything when the renewing process goes away before `run`', async () => {
    const h = harness();
    h.disconnect();
    expect(h.finished()).toBe(true);
    h.deliver({ type: 'run', command: ['touch', join(dir, 'never')], env, deadlineMonoMs: monotonicNowMs() + 60_000, killAfterMs: 300 });
    await new Promise((done) => setTimeout(done, 200));
    await expect(readFile(join(dir, 'never'))).rejects.toThrow(/ENOENT/);
  });
});
