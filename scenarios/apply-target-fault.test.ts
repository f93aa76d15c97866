import { describe, expect, it } from 'vitest';
import { formatMs } from '../core/numbers.js';
import { type TargetFault, applyTargetFault, faultsTargetCannot, runTargetFaults, scheduleTargetFaults } from './apply-target-fault.js';
import type { FaultTarget, HealLink, TargetProcessState } from './fault-target.js';
import type { Fault } from './faults.js';

/** A target of named processes and a manual clock that records every call made to it. */
class RecordingTarget implements FaultTarget {
  readonly calls: string[] = [];
  readonly states = new Map<string, TargetProcessState>();
  leader = 'etcd-1';
  holder = '';
  refuse = new Map<string, string>();
  /** What the next call returns: a real target's calls may be asynchronous. */
  nextResult: Promise<void> | undefined;
  private clockMs = 0;
  private timers: Array<{ atMs: number; run: () => void }> = [];

  constructor(names: readonly string[]) {
    for (const name of names) this.states.set(name, 'running');
  }

  now(): number {
    return this.clockMs;
  }
  after(ms: number, run: () => void): void {
    this.timers.push({ atMs: this.clockMs + ms, run });
  }
  /** Runs every timer due by `ms`, in time order (equal times in the order set). */
  advanceTo(ms: number): void {
    for (;;) {
      const due = this.timers.filter((t) => t.atMs <= ms).sort((a, b) => a.atMs - b.atMs)[0];
      if (due === undefined) break;
      this.timers.splice(this.timers.indexOf(due), 1);
      this.clockMs = due.atMs;
      due.run();
    }
    this.clockMs = ms;
  }
  resolve(target: string): string {
    if (target === '@leader') return this.leader;
    if (target === '@holder') return this.holder;
    return target;
  }
  stateOf(process: string): TargetProcessState | undefined {
    return this.states.get(process);
  }
  private act(call: string, process?: string, state?: TargetProcessState): void | Promise<void> {
    this.calls.push(call);
    if (process !== undefined && state !== undefined) this.states.set(process, state);
    const result = this.nextResult;
    this.nextResult = undefined;
    return result;
  }
  pause(p: string): void | Promise<void> {
    return this.act(`pause ${p}`, p, 'paused');
  }
  resume(p: string): void | Promise<void> {
    return this.act(`resume ${p}`, p, 'running');
  }
  crash(p: string, powerLoss: boolean): void | Promise<void> {
    return this.act(`crash ${p}${powerLoss ? ' power-loss' : ''}`, p, 'crashed');
  }
  restart(p: string): void | Promise<void> {
    return this.act(`restart ${p}`, p, 'running');
  }
  partition(from: readonly string[], to: readonly string[], oneWay: boolean): HealLink {
    const what = `${from.join(',')}${oneWay ? '->' : '<->'}${to.join(',')}`;
    this.calls.push(`partition ${what}`);
    return () => void this.calls.push(`heal partition ${what}`);
  }
  slowLink(from: readonly string[], to: readonly string[], extraDelayMs: number, oneWay: boolean): HealLink {
    const what = `${from.join(',')}${oneWay ? '->' : '<->'}${to.join(',')}+${extraDelayMs}`;
    this.calls.push(`slow ${what}`);
    return () => void this.calls.push(`heal slow ${what}`);
  }
  driftClock(p: string, ppm: number): void | Promise<void> {
    return this.act(`drift ${p} ${ppm}`);
  }
  stepClock(p: string, deltaMs: number, clock: 'wall' | 'monotonic'): void | Promise<void> {
    return this.act(`step ${p} ${deltaMs}${clock === 'wall' ? '' : ` ${clock}`}`);
  }
  stallDisk(member: string, durationMs: number): void | Promise<void> {
    return this.act(`stall ${member} ${durationMs}`);
  }
  cannot(kind: string): string | undefined {
    return this.refuse.get(kind);
  }
}

const names = ['etcd-1', 'etcd-2', 'etcd-3', 'alice', 'bob'];
const apply = (target: FaultTarget, fault: TargetFault, heals = new Map<string, HealLink>(), log: string[] = []): string =>
  applyTargetFault(target, fault, heals, (what) => log.push(what));

describe('applyTargetFault: the shared fault rules', () => {
  it('resolves a role when the fault fires and names the role in the description', () => {
    const target = new RecordingTarget(names);
    target.leader = 'etcd-2';
    expect(apply(target, { atMs: 0, kind: 'crash', target: '@leader' })).toBe('crash etcd-2');
    expect(target.calls).toEqual(['crash etcd-2']);
    target.leader = 'etcd-3';
    expect(apply(target, { atMs: 0, kind: 'pause', target: '@leader' })).toBe('pause etcd-3 (@leader)');
    expect(target.calls).toEqual(['crash etcd-2', 'pause etcd-3']);
  });

  it('with forMs resumes the very process it paused, though the role moved on meanwhile', () => {
    const target = new RecordingTarget(names);
    const log = scheduleTargetFaults(target, [{ atMs: 1_000, kind: 'pause', target: '@leader', forMs: 2_000 }]);
    target.advanceTo(1_500);
    expect(target.calls).toEqual(['pause etcd-1']);
    target.leader = 'etcd-2'; // the control: re-resolving the role at the resume would pick etcd-2
    expect(target.resolve('@leader')).not.toBe('etcd-1');
    target.advanceTo(5_000);
    expect(target.calls).toEqual(['pause etcd-1', 'resume etcd-1']);
    expect(target.stateOf('etcd-1')).toBe('running');
    expect(target.stateOf('etcd-2')).toBe('running');
    expect(log).toEqual([`${formatMs(1_000)}: pause etcd-1 (@leader) for ${formatMs(2_000)}`, `${formatMs(1_000)}: resume etcd-1 (at ${formatMs(3_000)})`]);
  });

  it("skips a pause's own resume when the process is no longer paused (crashed meanwhile)", () => {
    const target = new RecordingTarget(names);
    const log = scheduleTargetFaults(target, [
      { atMs: 0, kind: 'pause', target: 'alice', forMs: 1_000 },
      { atMs: 500, kind: 'crash', target: 'alice' },
    ]);
    target.advanceTo(2_000);
    expect(target.calls).toEqual(['pause alice', 'crash alice']);
    expect(log.at(-1)).toBe(`${formatMs(0)}: skip: resume alice (it is crashed) (at ${formatMs(1_000)})`);
  });

  it('skips a fault that does not apply now, and calls nothing', () => {
    const target = new RecordingTarget(names);
    target.states.set('alice', 'paused');
    target.states.set('bob', 'crashed');
    expect(apply(target, { atMs: 0, kind: 'pause', target: 'alice' })).toBe('skip: pause alice (it is paused)');
    expect(apply(target, { atMs: 0, kind: 'resume', target: 'bob' })).toBe('skip: resume bob (it is crashed)');
    expect(apply(target, { atMs: 0, kind: 'crash', target: 'bob' })).toBe('skip: crash bob (it is already down)');
    expect(apply(target, { atMs: 0, kind: 'restart', target: 'etcd-1' })).toBe('skip: restart etcd-1 (it is running)');
    expect(apply(target, { atMs: 0, kind: 'pause', target: '@holder' })).toBe('skip: pause @holder (nobody holds that role now)');
    expect(apply(target, { atMs: 0, kind: 'clock-step', target: 'carol', deltaMs: 5 })).toBe('skip: clock-step carol (no such process at this time)');
    expect(target.calls).toEqual([]);
    // The control: the same faults on processes in the right state do act.
    expect(apply(target, { atMs: 0, kind: 'resume', target: 'alice' })).toBe('resume alice');
    expect(apply(target, { atMs: 0, kind: 'restart', target: 'bob' })).toBe('restart bob');
    target.holder = 'alice';
    expect(apply(target, { atMs: 0, kind: 'pause', target: '@holder' })).toBe('pause alice (@holder)');
    expect(target.calls).toEqual(['resume alice', 'restart bob', 'pause alice']);
  });

  it('heals a partition and a slow link by id, each once', () => {
    const target = new RecordingTarget(names);
    const heals = new Map<string, HealLink>();
    target.leader = 'etcd-3';
    expect(apply(target, { atMs: 0, kind: 'partition', id: 'p1', from: ['@leader'], to: ['etcd-1', 'etcd-2'] }, heals)).toBe('partition p1: etcd-3 <-> etcd-1,etcd-2');
    expect(apply(target, { atMs: 0, kind: 'partition', id: 'p2', from: ['alice'], to: ['bob'], oneWay: true }, heals)).toBe('partition p2: alice -> bob');
    expect(apply(target, { atMs: 0, kind: 'slow-link', id: 's1', from: ['alice'], to: ['etcd-1'], extraDelayMs: 40 }, heals)).toBe(`slow link s1: alice <-> etcd-1 +${formatMs(40)}`);
    expect(apply(target, { atMs: 0, kind: 'heal', id: 'p1' }, heals)).toBe('heal p1');
    expect(apply(target, { atMs: 0, kind: 'heal', id: 'p1' }, heals)).toBe('heal p1');
    expect(apply(target, { atMs: 0, kind: 'heal', id: 's1' }, heals)).toBe('heal s1');
    expect(target.calls.filter((c) => c.startsWith('heal'))).toEqual(['heal partition etcd-3<->etcd-1,etcd-2', 'heal slow alice<->etcd-1+40']);
    expect([...heals.keys()]).toEqual(['p2']);
  });

  it('passes clock, disk and power-loss parameters through', () => {
    const target = new RecordingTarget(names);
    expect(apply(target, { atMs: 0, kind: 'clock-drift', target: 'alice', ppm: -300_000 })).toBe("alice's clock drifts -300000 ppm");
    expect(apply(target, { atMs: 0, kind: 'clock-step', target: 'bob', deltaMs: -1_500 })).toBe(`bob's clock steps ${formatMs(-1_500)}`);
    expect(apply(target, { atMs: 0, kind: 'clock-step', target: 'bob', deltaMs: 20, clock: 'monotonic' })).toBe(`bob's monotonic clock steps ${formatMs(20)}`);
    expect(apply(target, { atMs: 0, kind: 'stall-disk', target: 'etcd-2', durationMs: 800 })).toBe(`stall the disk of etcd-2 for ${formatMs(800)}`);
    expect(apply(target, { atMs: 0, kind: 'crash', target: 'etcd-1', powerLoss: true })).toBe('crash etcd-1 (power loss)');
    expect(target.calls).toEqual(['drift alice -300000', 'step bob -1500', 'step bob 20 monotonic', 'stall etcd-2 800', 'crash etcd-1 power-loss']);
  });

  it("skips a kind the target cannot inject with its reason, and lists it before a run", () => {
    const target = new RecordingTarget(names);
    target.refuse.set('stall-disk', 'this machine has no device-mapper');
    expect(apply(target, { atMs: 0, kind: 'stall-disk', target: 'etcd-1', durationMs: 100 })).toBe('skip: stall-disk (this machine has no device-mapper)');
    expect(target.calls).toEqual([]);
    const faults: Fault[] = [
      { atMs: 0, kind: 'pause', target: 'alice' },
      { atMs: 1, kind: 'stall-disk', target: 'etcd-1', durationMs: 100 },
      { atMs: 2, kind: 'lossy-watch', target: 'arbiter-1', forMs: 100 },
    ];
    expect(faultsTargetCannot(target, faults)).toEqual(['faults[1].kind stall-disk: this machine has no device-mapper', 'faults[2].kind lossy-watch: this target has no way to inject it']);
    expect(faultsTargetCannot(new RecordingTarget(names), faults.slice(0, 2))).toEqual([]);
  });

  it('hands the simulator-only kinds to applyOther, or skips them without it', () => {
    const target = new RecordingTarget(names);
    const fault: Fault = { atMs: 10, kind: 'stuck-member', target: 'etcd-1', forMs: 100 };
    const without = scheduleTargetFaults(target, [fault]);
    const seen: Fault[] = [];
    const withIt = scheduleTargetFaults(target, [fault], { applyOther: (f) => (seen.push(f), 'stuck') });
    target.advanceTo(10);
    expect(without).toEqual([`${formatMs(10)}: skip: stuck-member (this target has no way to inject it)`]);
    expect(withIt).toEqual([`${formatMs(10)}: stuck`]);
    expect(seen).toEqual([fault]);
  });

  it('fires faults in time order, equal times in schedule order, and reports each description', () => {
    const target = new RecordingTarget(names);
    const seen: string[] = [];
    scheduleTargetFaults(target, [
      { atMs: 200, kind: 'crash', target: 'bob' },
      { atMs: 100, kind: 'pause', target: 'alice' },
      { atMs: 200, kind: 'resume', target: 'alice' },
    ], { onLog: (fault, description) => seen.push(`${fault.kind}: ${description}`) });
    target.advanceTo(1_000);
    expect(target.calls).toEqual(['pause alice', 'crash bob', 'resume alice']);
    expect(seen).toEqual(['pause: pause alice', 'crash: crash bob', 'resume: resume alice']);
  });

  it("logs an asynchronous call's failure without awaiting it", async () => {
    const target = new RecordingTarget(names);
    const log: string[] = [];
    target.nextResult = Promise.reject(new Error('kill: no such process'));
    expect(apply(target, { atMs: 0, kind: 'crash', target: 'alice' }, new Map(), log)).toBe('crash alice');
    expect(log).toEqual([]); // not awaited: the description is returned at once
    await new Promise((done) => setImmediate(done));
    expect(log).toEqual(['crash alice failed: kill: no such process']);
  });
});

describe('runTargetFaults: the schedule with what a real run needs', () => {
  it('lists each fault that acted with its target resolved when it fired, skips left out', () => {
    const target = new RecordingTarget(names);
    target.holder = 'bob';
    const run = runTargetFaults(target, [
      { atMs: 100, kind: 'pause', target: '@holder', forMs: 50 },
      { atMs: 200, kind: 'resume', target: 'alice' }, // alice is running: skipped
      { atMs: 300, kind: 'partition', id: 'p', from: ['@leader'], to: ['etcd-2'] },
      { atMs: 400, kind: 'crash', target: '@leader' },
    ]);
    target.leader = 'etcd-3';
    target.advanceTo(1_000);
    expect(run.applied).toEqual([
      { atMs: 100, kind: 'pause', target: 'bob', named: '@holder' },
      { atMs: 300, kind: 'partition' },
      { atMs: 400, kind: 'crash', target: 'etcd-3', named: '@leader' },
    ]);
    expect(run.log).toHaveLength(5); // the pause's own resume is a line of the log, not another fault
  });

  it('lists a fault at the time it fired, not the time it was due (a real timer fires late)', () => {
    const target = new RecordingTarget(names);
    const after = target.after.bind(target);
    target.after = (ms, run) => after(ms + 160, run); // the gate's 5 m seed 3: a partition due at 35053 ms fired at 35213 ms
    target.holder = 'bob';
    const run = runTargetFaults(target, [{ atMs: 35_053, kind: 'partition', id: 'p', from: ['@holder'], to: ['etcd-2'] }]);
    target.advanceTo(40_000);
    expect(run.applied).toEqual([{ atMs: 35_213, kind: 'partition' }]);
  });

  it('heals at the end only what is still cut, and waits for the calls still on their way', async () => {
    const target = new RecordingTarget(names);
    const run = runTargetFaults(target, [
      { atMs: 0, kind: 'partition', id: 'a', from: ['alice'], to: ['etcd-1'] },
      { atMs: 0, kind: 'partition', id: 'b', from: ['bob'], to: ['etcd-1'] },
      { atMs: 10, kind: 'heal', id: 'a' },
      { atMs: 20, kind: 'crash', target: 'etcd-2' },
    ]);
    let killed = false;
    target.nextResult = undefined;
    target.advanceTo(15);
    target.nextResult = new Promise<void>((done) => setTimeout(() => ((killed = true), done()), 20));
    target.advanceTo(20);
    await run.settled();
    expect(killed).toBe(true);
    await run.healAll();
    expect(target.calls.filter((c) => c.startsWith('heal'))).toEqual(['heal partition alice<->etcd-1', 'heal partition bob<->etcd-1']);
    await run.healAll(); // the control: nothing left to heal the second time
    expect(target.calls.filter((c) => c.startsWith('heal'))).toHaveLength(2);
  });
});
