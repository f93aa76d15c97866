import { describe, expect, it } from 'vitest';
import { CancelSource, CancelledError } from '../../core/cancel.js';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from './process.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const world = (): Kernel => new Kernel({ seed: 'process-test', yieldToHost, trace: { keepRecords: true } });

describe('SimProcess clock', () => {
  it('implements the Clock port in local time, with drift', async () => {
    const kernel = world();
    const fast = new SimProcess(kernel, { name: 'fast', clock: { driftPpm: 1000, offsetMs: 50 } });
    const clock = fast.clock();
    expect(clock.now()).toBe(50);
    let wokeAtTrueMs = -1;
    void clock.sleep(1001).then(() => (wokeAtTrueMs = kernel.now()));
    await kernel.runUntilQuiescent();
    // 1001 local ms at 1.001 local ms per true ms take 1000 true ms.
    expect(wokeAtTrueMs).toBeCloseTo(1000, 9);
    expect(clock.now()).toBeGreaterThanOrEqual(1051);
  });

  it('re-places timers when drift changes, and fires timers a forward step makes due at once, in due order', async () => {
    const kernel = world();
    const process = new SimProcess(kernel, { name: 'p' });
    const fired: string[] = [];
    process.setTimer(300, () => fired.push(`300 at ${kernel.now()}`));
    process.setTimer(200, () => fired.push(`200 at ${kernel.now()}`));
    process.setTimer(1000, () => fired.push(`1000 at ${kernel.now()}`));
    await kernel.runUntil(100);
    process.stepClock(250, 'monotonic'); // local 350: the 200 and 300 timers are now overdue
    await kernel.runUntil(101);
    expect(fired).toEqual(['200 at 100', '300 at 100']);
    process.setDriftPpm(1_000_000); // local runs at twice true speed from 101 (local 351)
    await kernel.runUntilQuiescent();
    expect(fired[2]).toBe(`1000 at ${101 + (1000 - 351) / 2}`);
    expect(kernel.trace.records().map((r) => r.kind)).toEqual(['clock.step', 'clock.drift']);
  });

  it('moves no timer and no Clock reading at a wall step, as an NTP step under libfaketime does (issue 32)', async () => {
    const kernel = world();
    const process = new SimProcess(kernel, { name: 'p' });
    const fired: number[] = [];
    process.setTimer(300, () => fired.push(kernel.now()));
    await kernel.runUntil(100);
    process.stepClock(250);
    process.stepClock(-5_000);
    expect([process.clock().now(), process.wallNow()]).toEqual([100, 100 + 250 - 5_000]);
    await kernel.runUntilQuiescent();
    expect(fired).toEqual([300]);
    expect(kernel.trace.records().map((r) => r.fields['clock'])).toEqual(['wall', 'wall']);
  });

  it('rejects a cancelled sleep with CancelledError', async () => {
    const kernel = world();
    const process = new SimProcess(kernel, { name: 'p' });
    const cancel = new CancelSource();
    const outcome = process.clock().sleep(100, cancel.signal).catch((error: unknown) => error);
    kernel.schedule(10, () => cancel.cancel());
    await kernel.runUntilQuiescent();
    expect(await outcome).toBeInstanceOf(CancelledError);
    expect(process.pendingTimers).toBe(0);
    expect(kernel.now()).toBe(10);
  });

  it('requires unique names', () => {
    const kernel = world();
    new SimProcess(kernel, { name: 'p' });
    expect(() => new SimProcess(kernel, { name: 'p' })).toThrow('already used');
  });
});

describe('SimProcess pause', () => {
  it('holds timers and deliveries during a pause and runs them at resume, in order; local time keeps running', async () => {
    const kernel = world();
    const holder = new SimProcess(kernel, { name: 'holder' });
    const log: string[] = [];
    const clock = holder.clock();
    void clock.sleep(50).then(() => log.push(`sleep(50) woke at ${kernel.now()}, local ${clock.now()}`));
    holder.setTimer(200, () => log.push(`timer(200) at ${kernel.now()}`));
    kernel.schedule(10, () => holder.pause());
    kernel.schedule(60, () => expect(holder.deliver(() => log.push(`delivery at ${kernel.now()}`))).toBe('held'));
    kernel.schedule(100, () => holder.resume());
    await kernel.runUntilQuiescent();
    expect(log).toEqual(['sleep(50) woke at 100, local 100', 'delivery at 100', 'timer(200) at 200']);
    expect(holder.deliver(() => log.push('direct'))).toBe('ran');
  });
});

describe('SimProcess crash and restart', () => {
  it('drops pending timers and held deliveries, never settles the dead incarnation sleeps, and calls hooks', async () => {
    const kernel = world();
    const member = new SimProcess(kernel, { name: 'member' });
    const log: string[] = [];
    const oldClock = member.clock();
    void oldClock.sleep(100).then(() => log.push('old sleep woke'), () => log.push('old sleep rejected'));
    member.onCrash((process, { powerLoss }) => log.push(`crash hook: incarnation ${process.incarnation}, powerLoss ${powerLoss}`));
    member.onRestart((process) => {
      log.push(`restart hook at ${kernel.now()}`);
      void process.clock().sleep(10).then(() => log.push(`new sleep woke at ${kernel.now()}`));
    });
    kernel.schedule(10, () => member.pause());
    kernel.schedule(20, () => member.deliver(() => log.push('held delivery ran')));
    kernel.schedule(30, () => member.crash());
    kernel.schedule(40, () => expect(member.deliver(() => log.push('delivery to a crashed process'))).toBe('dropped'));
    kernel.schedule(150, () => member.restart());
    kernel.schedule(200, () => void oldClock.sleep(1).then(() => log.push('stale clock woke')));
    await kernel.runUntilQuiescent();
    expect(log).toEqual(['crash hook: incarnation 1, powerLoss false', 'restart hook at 150', 'new sleep woke at 160']);
    expect(member.pendingTimers).toBe(0);
    const crash = kernel.trace.records().find((r) => r.kind === 'process.crash');
    expect(crash?.fields).toEqual({ droppedDeliveries: 1, droppedTimers: 1, incarnation: 1, powerLoss: false });
  });

  it('enforces the lifecycle', () => {
    const kernel = world();
    const process = new SimProcess(kernel, { name: 'p' });
    expect(() => process.resume()).toThrow('cannot resume while running');
    expect(() => process.restart()).toThrow('crash it first');
    process.crash();
    expect(() => process.pause()).toThrow('cannot pause while crashed');
    expect(() => process.setTimer(1, () => {})).toThrow('restart it first');
  });
});
