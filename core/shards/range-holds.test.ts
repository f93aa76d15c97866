// On the simulated etcd cluster of a World.
import { describe, expect, it } from 'vitest';
import { World } from '../../sim/world/world.js';
import { PrefixGrants } from '../authz/index.js';
import { ClassRegistry } from '../classes/index.js';
import { holdsInRange } from './range-holds.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));

describe('holdsInRange (ADR-09)', () => {
  it('sees a hold on the unit or under it, and not on a unit whose name only starts the same', async () => {
    const world = new World({ seed: 'range-holds', yieldToHost, classes: new ClassRegistry([]), authorizer: new PrefixGrants([]) });
    await world.start();
    const log = world.arbiters[0]?.log;
    if (log === undefined) throw new Error('the world has no arbiter');
    const run = async <T>(call: Promise<T>): Promise<T> => {
      let done = false;
      const settled = call.finally(() => (done = true));
      await world.kernel.runUntilCondition(() => done, { untilMs: world.kernel.now() + 10_000 });
      return settled;
    };
    const put = (key: string) => run(log.txn({ compare: [], success: [{ type: 'put', key, value: '{}' }], failure: [] }));
    expect(await run(holdsInRange(log, 'orders/c-1'))).toBe('none');
    await put('/l/orders/c-10'); // another unit
    expect(await run(holdsInRange(log, 'orders/c-1'))).toBe('none');
    await put('/l/orders/c-1/line-7');
    expect(await run(holdsInRange(log, 'orders/c-1'))).toBe('held');
    expect(await run(holdsInRange(log, 'orders/c-2'))).toBe('none');
    await put('/l/orders/c-2');
    expect(await run(holdsInRange(log, 'orders/c-2'))).toBe('held');
  });
});
