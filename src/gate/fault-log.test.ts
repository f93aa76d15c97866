// The gate's faults through the shared schedule (scenarios/apply-target-fault.ts runTargetFaults) and the
// gate's fault log: roles resolve when a fault fires, a pause with forMs resumes the process it stopped,
// faults that do not apply are skipped, heals undo their partition, a target's rejection is logged as
// failed, and `applied` names what each fault hit. A fake target with a fake clock.
import { describe, expect, it } from 'vitest';
import type { FaultTarget, TargetProcessState } from '../../scenarios/fault-target.js';
import type { Fault } from '../../scenarios/faults.js';
import { runTargetFaults } from '../../scenarios/apply-target-fault.js';
import { countFaults, faultLog } from './fault-log.js';

function fakeTarget() {
  let now = 0;
  const timers: Array<{ at: number; run: () => void }> = [];
  const states = new Map<string, TargetProcessState>([['etcd-0', 'running'], ['etcd-1', 'running'], ['client-1', 'running']]);
  let leader = 'etcd-0';
  let holder = 'client-1';
  const cuts: string[] = [];
  const target: FaultTarget = {
    now: () => now,
    after: (ms, run) => void timers.push({ at: now + ms, run }),
    resolve: (t) => (t === '@leader' ? leader : t === '@holder' ? holder : t),
    stateOf: (p) => states.get(p),
    pause: (p) => void states.set(p, 'paused'),
    resume: (p) => void states.set(p, 'running'),
    crash: (p) => void states.set(p, 'crashed'),
    restart: (p) => void states.set(p, 'running'),
    partition: (from, to) => {
      const cut = `${from.join(',')}|${to.join(',')}`;
      cuts.push(cut);
      return () => void cuts.splice(cuts.indexOf(cut), 1);
    },
    slowLink: () => () => undefined,
    driftClock: () => undefined,
    // A real target's clock calls reject (src/gate/real-fault-target.ts); the schedule does not await them.
    stepClock: () => Promise.reject(new Error('no control file')),
    stallDisk: () => undefined,
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
  };
  return { target, states, cuts, advance, setLeader: (l: string) => (leader = l), setHolder: (h: string) => (holder = h) };
}

function run(target: FaultTarget, faults: readonly Fault[]) {
  const log = faultLog(() => target.now());
  return { ...runTargetFaults(target, faults, { onLog: log.onLog }), lines: log.lines };
}

describe('the gate\'s faults through the shared schedule', () => {
  it('a pause with forMs resumes the process it paused, though the role has moved', async () => {
    const fake = fakeTarget();
    const faultRun = run(fake.target, [{ atMs: 100, kind: 'pause', target: '@leader', forMs: 1_000 }]);
    await fake.advance(200);
    expect(fake.states.get('etcd-0')).toBe('paused');
    fake.setLeader('etcd-1');
    await fake.advance(1_200);
    expect(fake.states.get('etcd-0')).toBe('running');
    expect(fake.states.get('etcd-1')).toBe('running');
    expect(faultRun.lines.map((l) => `${l.kind} ${l.outcome} ${l.what}`)).toEqual(['pause injected pause etcd-0 (@leader) for 1000 ms', 'resume injected resume etcd-0']);
    // What measureFaultEffects reads: the process the role named when the fault fired.
    expect(faultRun.applied).toEqual([{ atMs: 100, kind: 'pause', target: 'etcd-0', named: '@leader' }]);
  });

  it('skips what does not apply when it fires, heals by id, and logs a target\'s refusal as failed', async () => {
    const fake = fakeTarget();
    fake.setHolder('');
    const faults: Fault[] = [
      { atMs: 10, kind: 'pause', target: '@holder', forMs: 500 },
      { atMs: 20, kind: 'resume', target: 'etcd-1' },
      { atMs: 30, kind: 'partition', id: 'p1', from: ['@leader'], to: ['etcd-0', 'etcd-1'] },
      { atMs: 40, kind: 'clock-step', target: 'client-1', deltaMs: 5_000 },
      { atMs: 50, kind: 'heal', id: 'p1' },
      { atMs: 60, kind: 'restart', target: 'etcd-1' },
    ];
    const faultRun = run(fake.target, faults);
    await fake.advance(35);
    expect(fake.cuts).toEqual(['etcd-0|etcd-0,etcd-1']);
    await fake.advance(100);
    expect(fake.cuts).toEqual([]);
    expect(countFaults(faultRun.lines)).toEqual({
      pause: { injected: 0, skipped: 1, failed: 0 },
      resume: { injected: 0, skipped: 1, failed: 0 },
      partition: { injected: 1, skipped: 0, failed: 0 },
      'clock-step': { injected: 0, skipped: 0, failed: 1 },
      heal: { injected: 1, skipped: 0, failed: 0 },
      restart: { injected: 0, skipped: 1, failed: 0 },
    });
    expect(faultRun.lines.find((l) => l.kind === 'clock-step')?.what).toMatch(/no control file/);
    // Skips are not applied; a call that rejected later still acted (its log line says it failed).
    expect(faultRun.applied.map((f) => f.kind)).toEqual(['partition', 'clock-step', 'heal']);
  });

  it('healAll heals what is still cut at the workload\'s end, and settled() waits for the calls made', async () => {
    const fake = fakeTarget();
    const faultRun = run(fake.target, [{ atMs: 10, kind: 'partition', id: 'p1', from: ['etcd-0'], to: ['etcd-1'] }, { atMs: 20, kind: 'clock-step', target: 'client-1', deltaMs: 1_000 }]);
    await fake.advance(30);
    expect(fake.cuts).toEqual(['etcd-0|etcd-1']);
    await faultRun.settled();
    await faultRun.healAll();
    expect(fake.cuts).toEqual([]);
    expect(countFaults(faultRun.lines)['clock-step']).toEqual({ injected: 0, skipped: 0, failed: 1 });
  });
});
