import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import { checkMovable, drainRange, flipRange, pinRange, sameMap } from './move-map.js';
import { type ShardMap, homeOf, placementFor } from './shard-map.js';
import { rendezvousPick } from './rendezvous.js';

const SHARDS = ['shard-a', 'shard-b', 'shard-c'];
const MAP: ShardMap = { version: 4, regions: { eu: { coord: 'coord-eu', entity: SHARDS } }, namespaces: { orders: 'eu' } };
/** A range rendezvous homes on shard-c, and one it homes elsewhere. */
const units = Array.from({ length: 40 }, (_, i) => `orders/u-${i}`);
const toC = units.find((u) => rendezvousPick(SHARDS, u) === 'shard-c') ?? '';
const notC = units.find((u) => rendezvousPick(SHARDS, u) !== 'shard-c') ?? '';

describe('the shard map changes of a range move (ADR-09)', () => {
  it('each change is idempotent: applied twice, the map is the same', () => {
    const move = { range: notC, from: homeOf(MAP, notC, 'entity').cluster, to: 'shard-c' };
    for (const change of [pinRange, drainRange, flipRange]) {
      const once = change(MAP, move);
      expect(sameMap(change(once, move), once)).toBe(true);
    }
  });

  it('drains only the moving range, and the flip homes it on the destination with an override only where hashing would not', () => {
    const manual = { range: notC, from: homeOf(MAP, notC, 'entity').cluster, to: 'shard-c' };
    const drained = drainRange(pinRange(MAP, manual), manual);
    expect(placementFor(drained, 'eu').check(`${notC}/x`, 'entity')).toEqual({ kind: 'draining' });
    expect(placementFor(drained, 'eu').check(`${toC}/x`, 'entity')).toBeUndefined();
    const flipped = flipRange(drained, manual);
    expect(homeOf(flipped, notC, 'entity').cluster).toBe('shard-c');
    expect(flipped.overrides).toEqual({ [notC]: 'shard-c' });
    expect(flipped.draining).toBeUndefined();
    // A range pinned to its old shard while the new one joined: the flip drops the pin, hashing homes it there.
    const pinned: ShardMap = { ...MAP, overrides: { [toC]: 'shard-a' } };
    const hashed = flipRange(drainRange(pinned, { range: toC, from: 'shard-a', to: 'shard-c' }), { range: toC, from: 'shard-a', to: 'shard-c' });
    expect(hashed.overrides).toBeUndefined();
    expect(homeOf(hashed, toC, 'entity').cluster).toBe('shard-c');
  });

  it('refuses a destination outside the region, a range not on its source, and a key that is not a homing unit', () => {
    const codeOf = (f: () => unknown): string => {
      try {
        f();
        return 'ok';
      } catch (error) {
        return isLockError(error) ? error.code : String(error);
      }
    };
    const from = homeOf(MAP, notC, 'entity').cluster;
    expect(codeOf(() => checkMovable(MAP, { range: notC, from, to: 'shard-c' }))).toBe('ok');
    expect(codeOf(() => checkMovable(MAP, { range: notC, from, to: 'shard-z' }))).toBe('invalid-argument');
    expect(codeOf(() => checkMovable(MAP, { range: notC, from: 'shard-c', to: from }))).toBe('invalid-argument');
    expect(codeOf(() => checkMovable(MAP, { range: `${notC}/deeper`, from, to: 'shard-c' }))).toBe('invalid-argument');
  });
});
