import { describe, expect, it } from 'vitest';
import { CancelSource, CancelledError } from '../../core/cancel.js';
import { Kernel, MaxEventsExceededError } from './kernel.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const makeKernel = (): Kernel => new Kernel({ seed: 'kernel-test', yieldToHost });

describe('Kernel: events', () => {
  it('runs events in (time, sequence) order, with fractional times', async () => {
    const kernel = makeKernel();
    const log: string[] = [];
    kernel.schedule(2, () => log.push('2a'));
    kernel.schedule(0.25, () => log.push('0.25'));
    kernel.schedule(2, () => log.push('2b'));
    kernel.schedule(1, () => {
      log.push('1');
      kernel.scheduleAfter(1, () => log.push('2c, scheduled last'));
      kernel.scheduleAfter(0, () => log.push('1 again, same time'));
    });
    const result = await kernel.runUntilQuiescent();
    expect(log).toEqual(['0.25', '1', '1 again, same time', '2a', '2b', '2c, scheduled last']);
    expect(result).toEqual({ reason: 'quiescent', events: 6, nowMs: 2 });
    expect(kernel.eventsExecuted).toBe(6);
  });

  it('refuses to schedule in the past or at a non-finite time', async () => {
    const kernel = makeKernel();
    await kernel.runUntil(10);
    expect(() => kernel.schedule(9, () => {})).toThrow('>= now (10 ms)');
    expect(() => kernel.schedule(NaN, () => {})).toThrow(RangeError);
    expect(() => kernel.schedule(Infinity, () => {})).toThrow(RangeError);
    await expect(kernel.runUntil(5)).rejects.toThrow('before now');
  });

  it('cancels pending events only', async () => {
    const kernel = makeKernel();
    const log: number[] = [];
    const first = kernel.schedule(1, () => log.push(1));
    const second = kernel.schedule(2, () => log.push(2));
    expect(kernel.cancel(second)).toBe(true);
    expect(kernel.cancel(second)).toBe(false);
    expect(kernel.pendingEvents).toBe(1);
    await kernel.runUntilQuiescent();
    expect(kernel.cancel(first)).toBe(false);
    expect(log).toEqual([1]);
  });
});

describe('Kernel: runs', () => {
  it('runUntil runs events up to and at the time, then stands at it', async () => {
    const kernel = makeKernel();
    const log: number[] = [];
    for (const t of [1, 5, 5.5, 9]) kernel.schedule(t, () => log.push(t));
    expect(await kernel.runUntil(5)).toEqual({ reason: 'time', events: 2, nowMs: 5 });
    expect(log).toEqual([1, 5]);
    expect(kernel.nextEventTimeMs()).toBe(5.5);
    expect(await kernel.runFor(10)).toEqual({ reason: 'time', events: 2, nowMs: 15 });
    expect(await kernel.runUntil(20)).toEqual({ reason: 'time', events: 0, nowMs: 20 });
  });

  it('runUntilCondition stops when the condition holds, at quiescence, or at its deadline', async () => {
    const kernel = makeKernel();
    let count = 0;
    const tick = (): void => {
      count++;
      if (count < 100) kernel.scheduleAfter(1, tick);
    };
    kernel.schedule(0, tick);
    expect(await kernel.runUntilCondition(() => count === 10)).toEqual({ reason: 'condition', events: 10, nowMs: 9 });
    expect(await kernel.runUntilCondition(() => count === 1000, { untilMs: 50.5 })).toEqual({ reason: 'time', events: 41, nowMs: 50.5 });
    expect(await kernel.runUntilCondition(() => count === 1000)).toEqual({ reason: 'quiescent', events: 49, nowMs: 99 });
    expect(await kernel.runUntilCondition(() => true)).toEqual({ reason: 'condition', events: 0, nowMs: 99 });
  });

  it('bounds the events of a run by maxEvents, naming it', async () => {
    const kernel = new Kernel({ seed: 's', maxEvents: 1000 });
    const spin = (): void => void kernel.scheduleAfter(0, spin);
    kernel.schedule(0, spin);
    const error = await kernel.runUntil(1).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MaxEventsExceededError);
    expect(String(error)).toContain('maxEvents (1000)');
    await expect(kernel.runUntil(1, { maxEvents: 10 })).rejects.toThrow('maxEvents (10)');
  });

  it('refuses a second run while one is in progress', async () => {
    const kernel = makeKernel();
    kernel.schedule(1, () => {});
    const first = kernel.runUntilQuiescent();
    await expect(kernel.runUntilQuiescent()).rejects.toThrow('already in progress');
    await first;
  });

  it('propagates a thrown callback and fails the run on an async callback rejection', async () => {
    const kernel = makeKernel();
    kernel.schedule(1, () => {
      throw new Error('boom');
    });
    await expect(kernel.runUntilQuiescent()).rejects.toThrow('boom');
    kernel.schedule(2, async () => {
      await kernel.sleep(1);
      throw new Error('async boom');
    });
    kernel.schedule(10, () => {});
    await expect(kernel.runUntilQuiescent()).rejects.toThrow('async boom');
    expect(kernel.now()).toBe(3);
  });
});

// Three helpers that call each other, 50 awaits deep in all, each await on a different kind of promise.
async function viaResolved(depth: number, log: string[]): Promise<number> {
  if (depth === 0) return 0;
  await Promise.resolve();
  return 1 + (await viaNewPromise(depth - 1, log));
}
async function viaNewPromise(depth: number, log: string[]): Promise<number> {
  if (depth === 0) return 0;
  await new Promise<void>((done) => done());
  return 1 + (await viaAll(depth - 1, log));
}
async function viaAll(depth: number, log: string[]): Promise<number> {
  if (depth === 0) return 0;
  const [inner] = await Promise.all([viaResolved(depth - 1, log), Promise.resolve()]);
  return 1 + inner;
}

describe('Kernel: promise continuations run at their event time (the drain)', () => {
  it('completes a 50-await chain started by a sleep before the next event, even one at the same time', async () => {
    const kernel = makeKernel();
    const log: string[] = [];
    const chain = (async () => {
      await kernel.sleep(10);
      const depth = await viaResolved(50, log);
      log.push(`chain of ${depth} done at ${kernel.now()}`);
    })();
    kernel.schedule(10, () => log.push('same-time event at 10'));
    kernel.schedule(10.001, () => log.push('next event at 10.001'));
    await kernel.runUntilQuiescent();
    await chain;
    // The sleep's event was scheduled first, so its whole chain runs before the other event at 10.
    expect(log).toEqual(['chain of 50 done at 10', 'same-time event at 10', 'next event at 10.001']);
  });

  it('completes a chain started by an async event callback (as a message handler is) before the next event', async () => {
    const kernel = makeKernel();
    const log: string[] = [];
    kernel.schedule(5, async () => {
      log.push(`depth ${await viaAll(50, log)} at ${kernel.now()}`);
      await kernel.sleep(1);
      log.push(`after sleep at ${kernel.now()}`);
    });
    kernel.schedule(5, () => log.push('other at 5'));
    kernel.schedule(6.5, () => log.push('other at 6.5'));
    await kernel.runUntilQuiescent();
    expect(log).toEqual(['depth 50 at 5', 'other at 5', 'after sleep at 6', 'other at 6.5']);
  });

  it('resolves deferreds and lets code started before the run schedule its events', async () => {
    const kernel = makeKernel();
    const log: string[] = [];
    const reply = kernel.deferred<string>();
    void (async () => {
      await Promise.resolve(); // the sleep below is only scheduled once this microtask runs
      await kernel.sleep(3);
      reply.resolve('pong');
    })();
    void reply.promise.then((value) => log.push(`${value} at ${kernel.now()}`));
    kernel.schedule(3, () => log.push('event at 3'));
    await kernel.runUntilQuiescent();
    expect(log).toEqual(['event at 3', 'pong at 3']);
  });

  it('runs a fire-and-forget chain late unless the event requests a drain', async () => {
    const run = async (tellKernel: boolean): Promise<string[]> => {
      const kernel = makeKernel();
      const log: string[] = [];
      kernel.schedule(1, () => {
        void (async () => {
          await viaResolved(10, log);
          log.push(`chain ended at ${kernel.now()}`);
        })();
        if (tellKernel) kernel.requestDrain();
      });
      kernel.schedule(2, () => log.push('event at 2'));
      await kernel.runUntilQuiescent();
      return log;
    };
    expect(await run(false)).toEqual(['event at 2', 'chain ended at 2']);
    expect(await run(true)).toEqual(['chain ended at 1', 'event at 2']);
  });

  it('cancels a sleep with CancelledError and removes its event', async () => {
    const kernel = makeKernel();
    const cancel = new CancelSource();
    const sleeping = kernel.sleep(100, cancel.signal);
    kernel.schedule(1, () => cancel.cancel());
    const outcome = sleeping.then(
      () => 'resolved',
      (error: unknown) => (error instanceof CancelledError ? `cancelled at ${kernel.now()}` : 'other'),
    );
    await kernel.runUntilQuiescent();
    expect(await outcome).toBe('cancelled at 1');
    expect(kernel.now()).toBe(1);
    await expect(kernel.sleep(1, cancel.signal)).rejects.toBeInstanceOf(CancelledError);
  });

  it('names the missing yieldToHost port when an event resolves a promise without one', async () => {
    const kernel = new Kernel({ seed: 's' });
    void kernel.sleep(1);
    await expect(kernel.runUntilQuiescent()).rejects.toThrow('KernelOptions.yieldToHost');
    expect(() => new Kernel({ seed: 's', drain: 'always' })).toThrow('yieldToHost');
  });

  it('yields to the host only after events that resolved promises (plus once at the start and end of a run)', async () => {
    let yields = 0;
    const kernel = new Kernel({ seed: 's', yieldToHost: () => ((yields += 1), yieldToHost()) });
    for (let i = 0; i < 10_000; i++) kernel.schedule(i, () => {});
    void (async () => {
      for (let i = 0; i < 5; i++) await kernel.sleep(1000);
    })();
    await kernel.runUntilQuiescent();
    expect(kernel.eventsExecuted).toBe(10_005);
    expect(yields).toBe(1 + 5 + 1);
  });

  it('runs sync-only events without a host port', async () => {
    const kernel = new Kernel({ seed: 's' });
    let count = 0;
    for (let i = 0; i < 1000; i++) kernel.schedule(i / 10, () => count++);
    await kernel.runUntilQuiescent();
    expect(count).toBe(1000);
  });
});
