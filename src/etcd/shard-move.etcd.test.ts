// ADR-09's range move on real etcd (issue 19): core's procedure (core/shards/shard-move.ts) with its map
// and journal on a real coord cluster (core/shards/coord-move-store.ts), moving a range between two real
// entity shards with an in-process arbiter each, a hold in the range outliving the drain's start, and a
// controller crash after the advance. Arbiters would watch the map on the coord cluster (not built yet):
// here each arbiter's placement reads the map the controller last wrote.
import { describe, expect, it } from 'vitest';
import type { Arbiter } from '../../core/arbiter/arbiter.js';
import { logMoveJournal, logShardMapStore } from '../../core/shards/coord-move-store.js';
import { holdsInRange } from '../../core/shards/range-holds.js';
import { rendezvousPick } from '../../core/shards/rendezvous.js';
import { SHARD_MAP_KEY, type ShardMap, homeOf, placementFor } from '../../core/shards/shard-map.js';
import { type MoveStep, type ShardMovePorts, runShardMove } from '../../core/shards/shard-move.js';
import { authenticated } from '../../core/ports/caller.js';
import { isLockError } from '../../core/lock-error.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import { ALICE, FENCED, OPERATORS, useArbiterWorld } from '../testing/arbiter-fixture.js';

const world = useArbiterWorld();
const SHARDS = ['shard-a', 'shard-b'] as const;
const RANGE = Array.from({ length: 40 }, (_, i) => `orders/r-${i}`).find((unit) => rendezvousPick([...SHARDS], unit) === 'shard-a') ?? '';

/** The move on fresh clusters; `skipSteps` is the procedure's test seam (the negative control leaves out the advance). */
async function moveOnRealEtcd(skipSteps: readonly MoveStep[] = []) {
  const coordCluster = await world.startCluster({ init: false });
  const coord = world.openLog(coordCluster.endpoints);
  const logs = new Map<string, LockLog>();
  for (const shard of SHARDS) logs.set(shard, world.openLog((await world.startCluster()).endpoints));
  const initial: ShardMap = { version: 1, regions: { eu: { coord: 'coord-eu', entity: [...SHARDS] } }, namespaces: { orders: 'eu' } };
  await coord.txn({ compare: [], success: [{ type: 'put', key: SHARD_MAP_KEY, value: JSON.stringify(initial) }], failure: [] });
  let seen = initial; // what the arbiters' watch of the map would deliver
  const stored = logShardMapStore(coord);
  const maps = { read: async () => (seen = await stored.read()), replace: async (expected: ShardMap, next: ShardMap) => (await stored.replace(expected, next)) && ((seen = await stored.read()), true) };
  const arbiters = new Map<string, Arbiter>(SHARDS.map((shard) => [shard, world.arbiter({ log: logs.get(shard) as LockLog, placement: { check: (key, tier) => placementFor(seen, 'eu').check(key, tier) } })]));
  const source = arbiters.get('shard-a') as Arbiter;

  // Tokens handed out on the source, and a hold in the range kept past the drain's start.
  const session = await world.session(source, ALICE, FENCED.ttlSeconds);
  const acquire = (arbiter: Arbiter, key: string) => arbiter.acquire(authenticated(ALICE), { sessionId: session.sessionId, key, className: FENCED.name, waitMs: 0 });
  const earlier = await acquire(source, `${RANGE}/a`);
  await source.release(authenticated(ALICE), { sessionId: session.sessionId, key: earlier.key, token: earlier.token });
  const held = await acquire(source, `${RANGE}/b`);

  let refusedWhileDraining: string | undefined;
  let polls = 0;
  let advances = 0;
  let crashed = false;
  const ports: ShardMovePorts = {
    clock: { now: () => performance.now(), sleep: (ms) => new Promise((done) => setTimeout(done, ms)) },
    maps,
    journal: logMoveJournal(coord),
    arbiterOf: (shard) => {
      const arbiter = arbiters.get(shard) as Arbiter;
      return { status: (caller) => arbiter.status(caller), requestEpochAdvance: (caller, request) => arbiter.requestEpochAdvance(caller, request), approveEpochAdvance: async (caller, request) => ((advances += 1), arbiter.approveEpochAdvance(caller, request)) };
    },
    holdsIn: async (shard, range) => {
      polls += 1;
      const holds = await holdsInRange(logs.get(shard) as LockLog, range);
      if (polls === 1) {
        // The range is draining and still held: a new grant is refused, then the holder finishes.
        refusedWhileDraining = await acquire(source, `${RANGE}/c`).then(() => 'granted', (error: unknown) => (isLockError(error) ? error.code : String(error)));
        await source.release(authenticated(ALICE), { sessionId: session.sessionId, key: held.key, token: held.token });
      }
      return holds;
    },
    afterStep: (step: MoveStep) => {
      if (step === 'advanced' && !crashed) {
        crashed = true;
        throw new Error('the controller crashed after recording the advance (test)');
      }
    },
  };
  const request = { range: RANGE, from: 'shard-a', to: 'shard-b', reason: 'move a range onto shard-b (real etcd test)', operators: OPERATORS } as const;
  const crash = await runShardMove(ports, request, { skipSteps }).then(() => 'no crash', (error: unknown) => String(error));
  expect(crash).toMatch(/crashed after recording the advance/);
  const done = await runShardMove(ports, request, { skipSteps });

  const map = await stored.read();
  const [from, to] = [await source.status(), await (arbiters.get('shard-b') as Arbiter).status()];
  const destinationSession = await world.session(arbiters.get('shard-b') as Arbiter, ALICE, FENCED.ttlSeconds);
  const moved = await (arbiters.get('shard-b') as Arbiter).acquire(authenticated(ALICE), { sessionId: destinationSession.sessionId, key: `${RANGE}/a`, className: FENCED.name, waitMs: 0 });
  return { done, map, refusedWhileDraining, polls, advances, fromEpoch: from.epoch ?? -1, toEpoch: to.epoch ?? -1, sourceTokens: [earlier.token, held.token], moved: moved.token };
}

describe('a range moved between two real entity shards by core\'s procedure, its state on a real coord cluster', () => {
  it('drains (refusing new grants), waits for the hold, advances the destination above the source, flips; a crash after the advance resumes with no second advance', async () => {
    const run = await moveOnRealEtcd();
    expect(run.done.step).toBe('flipped');
    expect(run.refusedWhileDraining).toBe('draining');
    expect(run.polls).toBeGreaterThanOrEqual(2); // the first poll found the hold: it waited for it to end
    expect(run.advances).toBe(1); // the resumed run found the destination above the source already
    expect(homeOf(run.map, RANGE, 'entity').cluster).toBe('shard-b');
    expect(run.map.draining ?? []).toEqual([]);
    expect(run.toEpoch).toBeGreaterThan(run.fromEpoch);
    // The destination's first token of the range is above every token the source issued in it.
    for (const token of run.sourceTokens) expect(run.moved).toBeGreaterThan(token);
  });

  it('its negative control: without the advance, the destination\'s first token of the range is below the source\'s', async () => {
    const run = await moveOnRealEtcd(['advanced']);
    expect([run.done.step, run.advances, run.toEpoch]).toEqual(['flipped', 0, run.fromEpoch]);
    expect(run.moved).toBeLessThan(run.sourceTokens[1] ?? 0n);
  });
});
