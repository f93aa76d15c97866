import { describe, expect, it } from 'vitest';
import { isFromSupervisor, isToSupervisor } from './supervisor-protocol.js';

describe('the supervisor protocol', () => {
  it('accepts the messages lockstep sends, and nothing malformed', () => {
    expect(isToSupervisor({ type: 'run', command: ['true'], env: {}, deadlineMonoMs: 1, killAfterMs: 500 })).toBe(true);
    expect(isToSupervisor({ type: 'deadline', deadlineMonoMs: 2 })).toBe(true);
    expect(isToSupervisor({ type: 'stop' })).toBe(true);
    expect(isToSupervisor({ type: 'signal', signal: 'SIGINT' })).toBe(true);
    for (const bad of [null, 'run', { type: 'run', command: [], env: {}, deadlineMonoMs: 1, killAfterMs: 1 }, { type: 'run', command: [1], env: {}, deadlineMonoMs: 1, killAfterMs: 1 },
      { type: 'deadline', deadlineMonoMs: Number.NaN }, { type: 'signal', signal: 'SIGKILL' }, { type: 'exec' }]) {
      expect(isToSupervisor(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it('accepts the supervisor\'s reports, and nothing malformed', () => {
    expect(isFromSupervisor({ type: 'ready' })).toBe(true);
    expect(isFromSupervisor({ type: 'started', pid: 42 })).toBe(true);
    expect(isFromSupervisor({ type: 'spawn-error', message: 'ENOENT' })).toBe(true);
    expect(isFromSupervisor({ type: 'exited', code: 0, signal: null, stoppedBy: null, leftovers: 0 })).toBe(true);
    for (const bad of [undefined, { type: 'started', pid: 'x' }, { type: 'exited' }, { type: 'spawn-error' }]) expect(isFromSupervisor(bad)).toBe(false);
  });
});
