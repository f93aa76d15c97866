// The move's state on a coord cluster: the simulated etcd cluster of a World stands in for it.
import { describe, expect, it } from 'vitest';
import { World } from '../../sim/world/world.js';
import { PrefixGrants } from '../authz/index.js';
import { ClassRegistry } from '../classes/index.js';
import { isLockError } from '../lock-error.js';
import type { LockLog } from '../ports/lock-log.js';
import { logMoveJournal, logShardMapStore, moveKey, parseShardMap } from './coord-move-store.js';
import { SHARD_MAP_KEY, type ShardMap } from './shard-map.js';
import type { MoveRecord } from './shard-move.js';

const yieldToHost = (): Promise<void> => new Promise((done) => setImmediate(done));
const MAP: ShardMap = { version: 3, regions: { eu: { coord: 'coord-eu', entity: ['shard-a', 'shard-b'] } }, namespaces: { orders: 'eu' } };

/** A started world's cluster, and a way to run a call on it to its end in virtual time. */
async function coordLog(): Promise<{ log: LockLog; run: <T>(call: Promise<T>) => Promise<T> }> {
  const world = new World({ seed: 'coord-move-store', yieldToHost, classes: new ClassRegistry([]), authorizer: new PrefixGrants([]) });
  await world.start();
  const node = world.arbiters[0];
  if (node === undefined) throw new Error('the world has no arbiter');
  const run = async <T>(call: Promise<T>): Promise<T> => {
    let done = false;
    const settled = call.finally(() => (done = true));
    await world.kernel.runUntilCondition(() => done, { untilMs: world.kernel.now() + 10_000 });
    return settled;
  };
  return { log: node.log, run };
}

describe('the shard map and move journal on the coord cluster (ADR-09)', () => {
  it('replaces the map only from the version it was read at, bumping the version', async () => {
    const { log, run } = await coordLog();
    await run(log.txn({ compare: [], success: [{ type: 'put', key: SHARD_MAP_KEY, value: JSON.stringify(MAP) }], failure: [] }));
    const store = logShardMapStore(log);
    const read = await run(store.read());
    expect(read).toEqual(MAP);
    const next: ShardMap = { ...read, draining: ['orders/c-1'] };
    expect(await run(store.replace(read, next))).toBe(true);
    expect(await run(store.read())).toEqual({ ...next, version: 4 });
    // A controller that read version 3 lost the race: its write is refused, nothing changes.
    expect(await run(store.replace(read, { ...read, draining: ['orders/c-2'] }))).toBe(false);
    expect((await run(store.read())).draining).toEqual(['orders/c-1']);
  });

  it('round-trips a move record, and refuses an unreadable one', async () => {
    const { log, run } = await coordLog();
    const journal = logMoveJournal(log);
    const record: MoveRecord = { range: 'orders/c-1', from: 'shard-a', to: 'shard-b', step: 'drained', reason: 'rebalance (test)', requester: 'spiffe://ops/ana', approver: 'spiffe://ops/ben' };
    expect(await run(journal.load('orders/c-1'))).toBeUndefined();
    await run(journal.save(record));
    expect(await run(journal.load('orders/c-1'))).toEqual(record);
    await run(log.txn({ compare: [], success: [{ type: 'put', key: moveKey('orders/c-2'), value: '{"step":"sideways"}' }], failure: [] }));
    const refused = await run(journal.load('orders/c-2').then(() => 'read', (error: unknown) => (isLockError(error) ? error.code : String(error))));
    expect(refused).toBe('invalid-argument');
  });

  it('names what is wrong with a missing or malformed map', () => {
    expect(() => parseShardMap(undefined)).toThrow(/no shard map at \/sys\/shardmap/);
    expect(() => parseShardMap('{')).toThrow(/not JSON/);
    expect(() => parseShardMap('{"version":"3","regions":{},"namespaces":{}}')).toThrow(/whole-number version/);
  });
});
