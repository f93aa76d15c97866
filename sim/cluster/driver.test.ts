import { describe, expect, it } from 'vitest';
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { SimDriver } from './driver.js';
import { rejectionOf } from './test-world.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const hostTurns = async (n: number): Promise<void> => {
  for (let i = 0; i < n; i++) await yieldToHost();
};

function ticking(seed: string): { kernel: Kernel; process: SimProcess } {
  const kernel = new Kernel({ seed, yieldToHost });
  const process = new SimProcess(kernel, { name: 'p' });
  // A world that always has something to do, like a cluster with its raft ticks.
  const tick = (): void => void process.setTimer(100, tick);
  tick();
  return { kernel, process };
}

describe('SimDriver', () => {
  it('moves virtual time only while the caller waits on the world, and stops exactly where the wait ended', async () => {
    const { kernel, process } = ticking('driver-1');
    const driver = new SimDriver(kernel);
    await hostTurns(20);
    expect(kernel.now()).toBe(0);
    await driver.runFor(1_000);
    expect(kernel.now()).toBe(1_000);
    await hostTurns(20);
    expect(kernel.now()).toBe(1_000);
    const clock = driver.clock(process.clock());
    await clock.sleep(250);
    expect(kernel.now()).toBe(1_250);
    // Two waits at once: time runs until both are done, and the continuations see their own instants.
    const seen: number[] = [];
    await Promise.all([clock.sleep(10).then(() => seen.push(kernel.now())), clock.sleep(40).then(() => seen.push(kernel.now()))]);
    expect(seen).toEqual([1_260, 1_290]);
    expect(kernel.now()).toBe(1_290);
  });

  it('fails a wait the world never settles after maxWaitMs of virtual time, or when the world runs dry', async () => {
    const { kernel } = ticking('driver-2');
    const driver = new SimDriver(kernel, { maxWaitMs: 5_000 });
    const never = new Promise<void>(() => {});
    const error = await rejectionOf(driver.wait(never));
    expect(String(error)).toContain('nothing settled within 5000 ms');
    expect(kernel.now()).toBe(5_000);
    const empty = new SimDriver(new Kernel({ seed: 'driver-3', yieldToHost }));
    expect(String(await rejectionOf(empty.wait(never)))).toContain('ran out of events');
  });

  it('fails waits in progress when stopped, and refuses new ones', async () => {
    const { kernel } = ticking('driver-4');
    const driver = new SimDriver(kernel);
    const pending = rejectionOf(driver.wait(new Promise<void>(() => {})));
    driver.stop();
    expect(String(await pending)).toContain('stopped');
    expect(String(await rejectionOf(driver.wait(Promise.resolve())))).toContain('stopped');
  });
});
