import { describe, expect, it } from 'vitest';
import { SCENARIOS } from './registry.js';
import { runScenario } from './runner.js';
import { checkFaultSchedule, FaultScheduleError, formatFaultSchedule, MAX_FAULTS, parseFaultSchedule, sameFaultSchedule } from './fault-schedule.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const processes = [
  { name: 'alice', role: 'client' },
  { name: 'bob', role: 'client' },
  { name: 'arbiter-1', role: 'arbiter' },
  { name: 'etcd-1', role: 'member' },
  { name: 'etcd-2', role: 'member' },
  { name: 'ledger-db', role: 'resource' },
];
const context = { processes, variant: 'pause-test / fenced' };
const pause = { atMs: 1000, kind: 'pause', target: 'alice' };

describe('checkFaultSchedule', () => {
  it("accepts every scenario variant's own schedule against the processes of its run", async () => {
    let checked = 0;
    for (const scenario of SCENARIOS) {
      for (const variant of scenario.variants) {
        const run = await runScenario(scenario, variant.name, '1', { yieldToHost, timeline: { maxRecords: 0 } });
        const own = { processes: run.timeline?.processes ?? [], variant: `${scenario.name} / ${variant.name}` };
        expect(() => checkFaultSchedule(JSON.parse(JSON.stringify(run.faults)), own), `${scenario.name} / ${variant.name}`).not.toThrow();
        checked += run.faults.length;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  it.each([
    ['not a list', { faults: pause }, '(schedule)', /is object; it must be a list of faults/],
    ['a fault that is not an object', [pause, 7], 'faults[1]', /is 7; each fault is an object/],
    ['an unknown kind', [{ ...pause, kind: 'pauze' }], 'faults[0].kind', /is "pauze"; allowed: pause, resume, restart, crash, partition, heal/],
    ['a missing field', [{ atMs: 5, kind: 'stall-disk', target: 'etcd-1' }], 'faults[0].durationMs', /is missing; a stall-disk fault needs kind, atMs, target, durationMs/],
    ['a field the kind does not have', [{ ...pause, forMS: 10 }], 'faults[0].forMS', /is not a field of a pause fault; its fields: kind, atMs, target, forMs/],
    ['a negative time', [{ ...pause, atMs: -1 }], 'faults[0].atMs', /is -1; it must be a number of ms from the start of the workload, from 0 to the run's horizon \(300000\)/],
    ['a time past the horizon', [{ ...pause, atMs: 300_001 }], 'faults[0].atMs', /is 300001; .*from 0 to the run's horizon \(300000\)/],
    ['a pause longer than the horizon', [{ ...pause, forMs: 1e12 }], 'faults[0].forMs', /is 1000000000000; it must be a number of ms above 0, at most the run's horizon \(300000\)/],
    ['a clock step past the horizon', [{ atMs: 0, kind: 'clock-step', target: 'alice', deltaMs: -400_000 }], 'faults[0].deltaMs', /from -300000 to 300000/],
    ['a clock more than twice as fast', [{ atMs: 0, kind: 'clock-drift', target: 'alice', ppm: 1e9 }], 'faults[0].ppm', /at most 1000000/],
    ['a text where a time goes', [{ ...pause, atMs: '1000' }], 'faults[0].atMs', /is "1000"; it must be a number/],
    ['two partitions of one id', [{ atMs: 5, kind: 'partition', id: 'cut', from: ['etcd-1'], to: ['etcd-2'] }, { atMs: 6, kind: 'slow-link', id: 'cut', from: ['alice'], to: ['arbiter-1'], extraDelayMs: 5 }], 'faults[1].id', /is "cut", already the id of faults\[0\]/],
    ['a process the variant does not have', [{ ...pause, target: 'carol' }], 'faults[0].target', /is "carol", not a process of pause-test \/ fenced; allowed: alice, bob, arbiter-1, etcd-1, etcd-2, ledger-db, @leader/],
    ['a role that does not exist', [{ ...pause, target: '@primary' }], 'faults[0].target', /is "@primary", not a role here/],
    ['a disk stall on a client', [{ atMs: 5, kind: 'stall-disk', target: 'alice', durationMs: 100 }], 'faults[0].target', /not a process of role member of pause-test \/ fenced; allowed: etcd-1, etcd-2, @leader, @follower, @member-N/],
    ['a partition side that is empty', [{ atMs: 5, kind: 'partition', id: 'p', from: [], to: ['etcd-1'] }], 'faults[0].from', /must be a non-empty list/],
    ['a partition side naming a stranger', [{ atMs: 5, kind: 'partition', id: 'p', from: ['etcd-1', 'zed'], to: ['etcd-2'] }], 'faults[0].from[1]', /faults\[0\]\.from\[1\] is "zed", not a process/],
    ['a heal of nothing', [{ atMs: 5, kind: 'partition', id: 'cut', from: ['etcd-1'], to: ['etcd-2'] }, { atMs: 9, kind: 'heal', id: 'cuts' }], 'faults[1].id', /must be the id of a partition or slow-link fault in this schedule: "cut"/],
    ['a clock that runs backwards', [{ atMs: 0, kind: 'clock-drift', target: 'alice', ppm: -1_000_000 }], 'faults[0].ppm', /above -1000000/],
    ['an epoch advance via a client', [{ atMs: 0, kind: 'advance-epoch', via: 'alice' }], 'faults[0].via', /not a process of role arbiter .*; allowed: arbiter-1$/],
    ['a snapshot after its restore', [{ atMs: 100, kind: 'restore', snapshotAtMs: 200, clusterToken: 't' }], 'faults[0].snapshotAtMs', /taken at or before the restore \(atMs 100\)/],
    ['an unknown restore mode', [{ atMs: 100, kind: 'restore', snapshotAtMs: 50, clusterToken: 't', arbiters: 'reboot' }], 'faults[0].arbiters', /allowed: reconnect, restart/],
  ])('refuses %s, naming the fault and field and what is allowed', (_what, schedule, field, message) => {
    const attempt = (): unknown => checkFaultSchedule(schedule, context);
    expect(attempt).toThrow(FaultScheduleError);
    expect(attempt).toThrow(new RegExp(`^fault schedule: ${field.replace(/[[\]().]/g, '\\$&')} `));
    expect(attempt).toThrow(message);
  });

  it('accepts roles and any process name when the processes are not known', () => {
    const schedule = [{ ...pause, target: 'someone' }, { atMs: 2, kind: 'crash', target: '@member-3', powerLoss: true }, { atMs: 3, kind: 'pause', target: '@holder', forMs: 10 }];
    expect(checkFaultSchedule(schedule)).toEqual(schedule);
    expect(() => checkFaultSchedule([{ ...pause, target: '@member-0' }])).toThrow(/not a role here/);
  });

  it('keeps every time inside the horizon it is given', () => {
    expect(() => checkFaultSchedule([{ ...pause, atMs: 50_000 }], { horizonMs: 60_000 })).not.toThrow();
    expect(() => checkFaultSchedule([{ ...pause, atMs: 70_000 }], { horizonMs: 60_000 })).toThrow(/faults\[0\]\.atMs is 70000; .*horizon \(60000\)/);
  });

  it('names the first twelve processes of a large variant, and how many more', () => {
    const many = Array.from({ length: 20 }, (_, i) => ({ name: `waiter-${i}`, role: 'client' }));
    expect(() => checkFaultSchedule([{ ...pause, target: 'zed' }], { processes: many, variant: 'hot-key / memory' })).toThrow(/allowed: waiter-0, .*, waiter-11, \.\.\. \(8 more\), @leader, @follower, @member-N, @holder$/);
  });

  it(`refuses more than ${MAX_FAULTS} faults`, () => {
    expect(() => checkFaultSchedule(Array.from({ length: MAX_FAULTS + 1 }, () => pause))).toThrow(/has 201 faults; at most 200/);
  });
});

describe('the editor text', () => {
  it('reads back what it writes, one fault a line, and names a JSON error', () => {
    const schedule = [pause, { atMs: 16000, kind: 'resume', target: 'alice' }];
    const text = formatFaultSchedule(schedule);
    expect(text.split('\n')).toHaveLength(4);
    expect(parseFaultSchedule(text, context)).toEqual(schedule);
    expect(formatFaultSchedule([])).toBe('[]');
    expect(() => parseFaultSchedule('[{"atMs": 1000,]')).toThrow(/fault schedule: \(schedule\) is not JSON/);
  });

  it('tells an edit from the same schedule', () => {
    expect(sameFaultSchedule([pause], JSON.parse(formatFaultSchedule([pause])) as unknown[])).toBe(true);
    expect(sameFaultSchedule([pause], [{ ...pause, atMs: 1001 }])).toBe(false);
  });
});
