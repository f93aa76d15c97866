import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import { rendezvousPick } from './rendezvous.js';
import { type ShardMap, homeOf, homingUnitOf, placementFor } from './shard-map.js';

const shards = (n: number): string[] => Array.from({ length: n }, (_, i) => `entity-${i}`);
const keys = Array.from({ length: 20_000 }, (_, i) => `orders/customer-${i}/invoice`);

describe('rendezvous homing (ADR-09)', () => {
  it.each([2, 5, 11])('moves keys only to the new shard, going from %i shards to one more', (n) => {
    const before = shards(n);
    const after = shards(n + 1);
    for (const key of keys) {
      const to = rendezvousPick(after, key);
      if (rendezvousPick(before, key) !== to) expect(to).toBe(`entity-${n}`); // no key moves between two old shards
    }
  });

  it('spreads keys evenly: the fullest of 10 shards holds under 1.15x the mean', () => {
    const counts = new Map<string, number>();
    for (const key of keys) {
      const shard = rendezvousPick(shards(10), key) ?? 'none';
      counts.set(shard, (counts.get(shard) ?? 0) + 1);
    }
    expect(counts.size).toBe(10);
    expect(Math.max(...counts.values()) / (keys.length / 10)).toBeLessThan(1.15);
  });
});

describe('shard map', () => {
  const map: ShardMap = {
    version: 3,
    regions: { eu: { coord: 'eu-coord', entity: ['eu-e1', 'eu-e2', 'eu-e3'] }, us: { coord: 'us-coord', entity: ['us-e1'] } },
    namespaces: { payments: 'eu', search: 'us' },
    overrides: { 'payments/ledger': 'eu-e3' },
    draining: ['payments/moving'],
  };

  it('homes keys with the same first path segment together', () => {
    expect(homingUnitOf('payments/invoice/42/lines')).toBe('payments/invoice');
    expect(homeOf(map, 'payments/invoice/1', 'entity').cluster).toBe(homeOf(map, 'payments/invoice/2', 'entity').cluster);
  });

  it('sends coord-tier keys to the region coord cluster, and honours overrides', () => {
    expect(homeOf(map, 'payments/leader', 'coord')).toEqual({ region: 'eu', cluster: 'eu-coord', homingUnit: 'payments/leader' });
    expect(homeOf(map, 'payments/ledger/7', 'entity').cluster).toBe('eu-e3');
  });

  it('redirects keys homed to another region, naming it, and refuses draining ranges', () => {
    const placement = placementFor(map, 'eu');
    expect(placement.check('search/index-1', 'entity')).toEqual({ kind: 'redirect', region: 'us' });
    expect(placement.check('search/index-1')).toEqual({ kind: 'redirect', region: 'us' });
    expect(placement.check('payments/moving/1', 'entity')).toEqual({ kind: 'draining' });
    expect(placement.check('payments/moving/1', 'coord')).toBeUndefined(); // coord keys do not move between shards
    expect(placement.check('payments/invoice/1', 'entity')).toBeUndefined();
  });

  it('refuses a namespace the map does not home, naming it', () => {
    let caught: unknown;
    try {
      homeOf(map, 'unknown/x', 'entity');
    } catch (error) {
      caught = error;
    }
    expect(isLockError(caught, 'invalid-argument') && caught.message).toMatch(/namespace unknown is not homed/);
  });
});
