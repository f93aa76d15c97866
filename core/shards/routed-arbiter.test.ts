import { describe, expect, it } from 'vitest';
import type { ArbiterService } from '../ports/caller.js';
import type { LockLog } from '../ports/lock-log.js';
import { RoutedArbiter } from './routed-arbiter.js';
import { rendezvousPick } from './rendezvous.js';
import { type ShardMap, placementFor } from './shard-map.js';

const SHARDS = ['shard-a', 'shard-b'];
const map: ShardMap = { version: 3, regions: { eu: { coord: 'coord-eu', entity: SHARDS }, us: { coord: 'coord-us', entity: ['shard-u'] } }, namespaces: { orders: 'eu', billing: 'us' }, overrides: { 'orders/big': 'shard-b' } };
const stub = {} as ArbiterService; // routing alone is asked here: no call reaches an arbiter
const router = (current: ShardMap = map) =>
  new RoutedArbiter({ coordName: 'coord-eu', coordLog: {} as LockLog, clusters: new Map([['coord-eu', stub], ['shard-a', stub], ['shard-b', stub]]), classes: { get: () => undefined, inNamespace: () => [] }, region: 'eu', map: () => current });

describe('RoutedArbiter.clusterFor (ADR-07/08/09)', () => {
  it('sends an entity key to its rendezvous shard (or its override), a coord-tier key to the coord cluster', () => {
    const unit = 'orders/c-7';
    expect(router().clusterFor(`${unit}/x`, 'entity')).toBe(rendezvousPick(SHARDS, unit));
    expect(router().clusterFor('orders/big/1', 'entity')).toBe('shard-b');
    expect(router().clusterFor('orders/c-7/x', 'coord')).toBe('coord-eu');
  });

  it('sends a key of another region to the coord arbiter, whose placement answers the redirect naming the region', () => {
    expect(router().clusterFor('billing/inv-1', 'entity')).toBe('coord-eu');
    expect(placementFor(map, 'eu').check('billing/inv-1', 'entity')).toEqual({ kind: 'redirect', region: 'us' });
    // Negative control: the same key in a map homing billing here is served by a shard, not redirected.
    const local: ShardMap = { ...map, namespaces: { ...map.namespaces, billing: 'eu' } };
    expect(SHARDS).toContain(router(local).clusterFor('billing/inv-1', 'entity'));
    expect(placementFor(local, 'eu').check('billing/inv-1', 'entity')).toBeUndefined();
  });

  it('follows the map it is given at each call: a flipped range goes to its new shard without a new router', () => {
    let current = map;
    const routing = new RoutedArbiter({ coordName: 'coord-eu', coordLog: {} as LockLog, clusters: new Map([['coord-eu', stub], ['shard-a', stub], ['shard-b', stub]]), classes: { get: () => undefined, inNamespace: () => [] }, region: 'eu', map: () => current });
    const unit = Array.from({ length: 64 }, (_, i) => `orders/r-${i}`).find((u) => rendezvousPick(SHARDS, u) === 'shard-a') ?? '';
    expect(routing.clusterFor(`${unit}/k`, 'entity')).toBe('shard-a');
    current = { ...map, version: 4, overrides: { ...map.overrides, [unit]: 'shard-b' } };
    expect(routing.clusterFor(`${unit}/k`, 'entity')).toBe('shard-b');
  });
});
