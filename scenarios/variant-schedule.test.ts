import { describe, expect, it } from 'vitest';
import { FaultScheduleError } from './fault-schedule.js';
import { scenarioNamed } from './registry.js';
import { checkGivenSchedule, variantSchedule } from './variant-schedule.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const pauseTest = scenarioNamed('pause-test');

describe('variantSchedule', () => {
  it("gives the variant's own schedule and the processes of its run", async () => {
    const own = await variantSchedule(pauseTest, 'unfenced', '1', yieldToHost);
    expect(own.faults).toEqual([
      { atMs: 1000, kind: 'pause', target: 'alice' },
      { atMs: 16000, kind: 'resume', target: 'alice' },
    ]);
    expect(own.context.variant).toBe('pause-test / unfenced');
    expect(own.context.processes.map((p) => p.name)).toEqual(expect.arrayContaining(['alice', 'bob', 'arbiter-1', 'ledger-db']));
    expect(own.context.processes.find((p) => p.name === 'alice')?.role).toBe('client');
  });
});

describe('checkGivenSchedule', () => {
  it('refuses a process the variant does not have, naming the field and the processes it has', async () => {
    const attempt = checkGivenSchedule([{ atMs: 1000, kind: 'pause', target: 'zed' }], pauseTest, undefined, '1', yieldToHost);
    await expect(attempt).rejects.toThrow(FaultScheduleError);
    await expect(checkGivenSchedule([{ atMs: 1000, kind: 'pause', target: 'zed' }], pauseTest, undefined, '1', yieldToHost)).rejects.toThrow(
      /^fault schedule: faults\[0\]\.target is "zed", not a process of pause-test \/ fenced; allowed: alice, bob, /,
    );
  });

  it('refuses an unknown kind before it runs anything', async () => {
    await expect(checkGivenSchedule([{ atMs: 1000, kind: 'explode', target: 'alice' }], pauseTest, 'unfenced', '1', yieldToHost)).rejects.toThrow(/faults\[0\]\.kind is "explode"; allowed: pause, resume/);
  });

  it('accepts a schedule of its processes and roles, as given', async () => {
    const schedule = [
      { atMs: 1000, kind: 'pause', target: 'alice', forMs: 2000 },
      { atMs: 5000, kind: 'crash', target: '@leader' },
    ];
    await expect(checkGivenSchedule(schedule, pauseTest, undefined, '1', yieldToHost)).resolves.toBe(schedule);
    const roles = [{ atMs: 5000, kind: 'pause', target: '@holder' }];
    await expect(checkGivenSchedule(roles, pauseTest, undefined, '1', yieldToHost)).resolves.toBe(roles);
  });
});
