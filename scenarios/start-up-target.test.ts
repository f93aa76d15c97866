import { describe, expect, it } from 'vitest';
import { runTargetFaults } from './apply-target-fault.js';
import type { FaultTarget, TargetProcessState } from './fault-target.js';
import type { Fault } from './faults.js';
import { type GateShape, predictGate } from './gate-prediction.js';
import { measureFaultEffects } from '../core/checkers/fault-effects.js';
import { describeStartUps, withStartUps } from './start-up-target.js';

/** Two arbiters on a manual clock: what restart and crash did, and when. */
function fakeTarget(): { target: FaultTarget; calls: string[]; advanceTo: (ms: number) => void } {
  const states = new Map<string, TargetProcessState>([['arbiter-1', 'running'], ['arbiter-2', 'running']]);
  const calls: string[] = [];
  const timers: Array<{ atMs: number; run: () => void }> = [];
  let nowMs = 0;
  const act = (call: string, process: string, state: TargetProcessState): void => {
    calls.push(`${nowMs} ${call} ${process}`);
    states.set(process, state);
  };
  const refuse = (): never => {
    throw new Error('not used here');
  };
  const target: FaultTarget = {
    now: () => nowMs,
    after: (ms, run) => void timers.push({ atMs: nowMs + ms, run }),
    resolve: (name) => name,
    stateOf: (process) => states.get(process),
    pause: refuse,
    resume: refuse,
    crash: (process) => act('crash', process, 'crashed'),
    restart: (process) => act('restart', process, 'running'),
    partition: refuse,
    slowLink: refuse,
    driftClock: refuse,
    stepClock: refuse,
    stallDisk: refuse,
    cannot: () => undefined,
  };
  const advanceTo = (ms: number): void => {
    for (;;) {
      const due = timers.filter((t) => t.atMs <= ms).sort((a, b) => a.atMs - b.atMs)[0];
      if (due === undefined) break;
      timers.splice(timers.indexOf(due), 1);
      nowMs = due.atMs;
      due.run();
    }
    nowMs = ms;
  };
  return { target, calls, advanceTo };
}

const crashRestart = (process: string, crashMs: number, restartMs: number): Fault[] => [
  { atMs: crashMs, kind: 'crash', target: process },
  { atMs: restartMs, kind: 'restart', target: process },
];

describe('withStartUps: a restart serves after its measured start-up (issue 32)', () => {
  it('brings the nth restart back its start-up later, and one not listed at once', () => {
    const fake = fakeTarget();
    const faults = [...crashRestart('arbiter-1', 1_000, 2_000), ...crashRestart('arbiter-1', 5_000, 6_000), ...crashRestart('arbiter-2', 7_000, 8_000)];
    const run = runTargetFaults(withStartUps(fake.target, new Map([['arbiter-1', [1_500, 300]]])), faults);
    fake.advanceTo(10_000);
    expect(fake.calls).toEqual(['1000 crash arbiter-1', '3500 restart arbiter-1', '5000 crash arbiter-1', '6300 restart arbiter-1', '7000 crash arbiter-2', '8000 restart arbiter-2']);
    // The faults acted when the schedule said, as the real gate's did: the effects are measured from there.
    expect(run.applied.map((f) => `${f.atMs} ${f.kind}`)).toEqual(['1000 crash', '2000 restart', '5000 crash', '6000 restart', '7000 crash', '8000 restart']);
  });

  it('ends a start cut short by a crash: the arbiter stays down until its next restart serves', () => {
    const fake = fakeTarget();
    const faults = [...crashRestart('arbiter-1', 1_000, 2_000), ...crashRestart('arbiter-1', 4_000, 5_000)];
    const wrapped = withStartUps(fake.target, new Map([['arbiter-1', [null, 1_000]]]));
    runTargetFaults(wrapped, faults);
    fake.advanceTo(3_000);
    expect(wrapped.stateOf('arbiter-1')).toBe('running'); // starting, as the real target reports it
    fake.advanceTo(10_000);
    // The crash at 4 s killed a start, not a serving arbiter: nothing reached the inner target then.
    expect(fake.calls).toEqual(['1000 crash arbiter-1', '6000 restart arbiter-1']);
  });

  it('says what it replays', () => {
    expect(describeStartUps(new Map([['arbiter-1', [2_000, null, 4_000]], ['arbiter-2', [1_000]]]))).toBe('4 arbiter restarts replayed with their measured start-ups, served after 2000 ms (median, longest 4000 ms), 1 never served (crashed again first)');
    expect(describeStartUps(new Map())).toBe('no arbiter restart to replay');
  });
});

describe('predictGate with the real start-ups', () => {
  const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
  const shape: GateShape = { members: 3, arbiters: 2, clients: 3, keys: 2, durationMs: 20_000, seed: '1' };
  // arbiter-1 restarts at 6 s; arbiter-2 is crashed at 8 s and restarted at 11 s (issue 32's focus schedule, shortened).
  const faults: Fault[] = [...crashRestart('arbiter-1', 5_000, 6_000), ...crashRestart('arbiter-2', 8_000, 11_000)];
  const nextGrantAfter = async (startUpsMs: Map<string, (number | null)[]>): Promise<number | undefined> => {
    const run = await predictGate(shape, faults, { yieldToHost, startUpsMs });
    return measureFaultEffects(run.events, [{ atMs: 8_000, kind: 'crash' }]).perFault[0]?.nextGrantMs;
  };

  it("waits for an arbiter whose start outlasted the other's crash: both down, as measured (27 of 51 crashes)", async () => {
    const instant = await nextGrantAfter(new Map());
    // arbiter-1's serve takes 6 s to start: it serves at 12 s, after arbiter-2 is back at 11 s.
    const slow = await nextGrantAfter(new Map([['arbiter-1', [6_000]]]));
    expect(instant).toBeDefined();
    expect(instant as number).toBeLessThan(2_000); // the other arbiter took the keys at once
    expect(slow as number).toBeGreaterThanOrEqual(3_000); // nothing served from 8 s until arbiter-2's restart at 11 s
  });
});
