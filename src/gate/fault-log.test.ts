// The gate's reading of the shared schedule's fault log (issue 15): per kind and outcome, a pause's own
// resume counted as a resume, a call that failed later counted as failed, skips as skipped. Driven through
// runTargetFaults on a fake target, so the lines are the shared dispatcher's own.
import { describe, expect, it } from 'vitest';
import { runTargetFaults } from '../../scenarios/apply-target-fault.js';
import type { FaultTarget, TargetProcessState } from '../../scenarios/fault-target.js';
import type { Fault } from '../../scenarios/faults.js';
import { FaultLog, countFaults } from './fault-log.js';

function fakeTarget() {
  let now = 0;
  const timers: Array<{ at: number; run: () => void }> = [];
  const states = new Map<string, TargetProcessState>([['etcd-0', 'running'], ['client-1', 'running'], ['arbiter-1', 'running']]);
  const target: FaultTarget = {
    now: () => now,
    after: (ms, run) => void timers.push({ at: now + ms, run }),
    resolve: (t) => (t === '@leader' ? 'etcd-0' : t === '@holder' ? '' : t),
    stateOf: (p) => states.get(p),
    pause: (p) => void states.set(p, 'paused'),
    resume: (p) => void states.set(p, 'running'),
    crash: (p) => void states.set(p, 'crashed'),
    restart: async (p) => {
      states.set(p, 'running');
      throw new Error('port taken');
    },
    partition: () => () => undefined,
    slowLink: () => () => undefined,
    driftClock: async () => undefined,
    stepClock: async () => {
      throw new Error('no control file');
    },
    stallDisk: async () => undefined,
    cannot: () => undefined,
  };
  const advance = async (to: number): Promise<void> => {
    for (;;) {
      timers.sort((a, b) => a.at - b.at);
      const next = timers[0];
      if (next === undefined || next.at > to) break;
      timers.shift();
      now = next.at;
      next.run();
      await new Promise((r) => setImmediate(r));
    }
    now = to;
    await new Promise((r) => setImmediate(r));
  };
  return { target, advance };
}

describe('FaultLog over runTargetFaults', () => {
  it('counts per kind: a pause\'s resume as a resume, later failures as failed, skips as skipped', async () => {
    const fake = fakeTarget();
    const log = new FaultLog(() => fake.target.now());
    const faults: Fault[] = [
      { atMs: 10, kind: 'pause', target: '@leader', forMs: 100 },
      { atMs: 20, kind: 'pause', target: '@holder', forMs: 100 },
      { atMs: 30, kind: 'crash', target: 'arbiter-1' },
      { atMs: 40, kind: 'restart', target: 'arbiter-1' },
      { atMs: 50, kind: 'clock-step', target: 'arbiter-1', deltaMs: 5_000 },
    ];
    const run = runTargetFaults(fake.target, faults, { onLog: log.onLog });
    await fake.advance(1_000);
    await run.settled();
    expect(countFaults(log.lines)).toEqual({
      pause: { injected: 1, skipped: 1, failed: 0 },
      crash: { injected: 1, skipped: 0, failed: 0 },
      restart: { injected: 0, skipped: 0, failed: 1 },
      'clock-step': { injected: 0, skipped: 0, failed: 1 },
      resume: { injected: 1, skipped: 0, failed: 0 },
    });
    expect(log.lines.find((l) => l.kind === 'restart')?.what).toMatch(/restart arbiter-1: failed: port taken/);
    expect(run.applied.map((a) => [a.kind, a.target])).toEqual([['pause', 'etcd-0'], ['crash', 'arbiter-1'], ['restart', 'arbiter-1'], ['clock-step', 'arbiter-1']]);
  });
});
