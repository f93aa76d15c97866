// ADR-07/08/09: where a key lives. A versioned map says which region each namespace is homed to
// (ADR-08), which clusters serve each region's coord and entity tiers (ADR-07), manual overrides for
// large tenants, and which ranges are draining during a move. Entity keys are homed by rendezvous
// hashing over namespace and path prefix (the first path segment), so related keys stay together.
import { LockError } from '../lock-error.js';
import { parseLockKey } from '../lock-key.js';
import type { Placement } from '../arbiter/policy.js';
import { rendezvousPick } from './rendezvous.js';

/** Where the versioned map lives on the coord cluster (ARCHITECTURE.md, Keys); the audit records each change of it (ADR-21). */
export const SHARD_MAP_KEY = '/sys/shardmap';

export interface RegionShards {
  /** The coord-tier cluster of the region. */
  readonly coord: string;
  /** The entity-tier shards of the region. */
  readonly entity: readonly string[];
}

export interface ShardMap {
  readonly version: number;
  readonly regions: Readonly<Record<string, RegionShards>>;
  /** Namespace → home region (ADR-08). */
  readonly namespaces: Readonly<Record<string, string>>;
  /** Homing unit (`namespace/segment` or `namespace`) → entity shard, for tenants that want their own. */
  readonly overrides?: Readonly<Record<string, string>>;
  /** Homing units whose range is moving: no new grants until the map flips (ADR-09). */
  readonly draining?: readonly string[];
}

export type Tier = 'coord' | 'entity';

export interface Home {
  readonly region: string;
  readonly cluster: string;
  readonly homingUnit: string;
}

/** `namespace/first-segment`: the unit rendezvous hashing places. */
export function homingUnitOf(keyText: string): string {
  const key = parseLockKey(keyText);
  const segment = key.path.split('/')[0] ?? key.path;
  return `${key.namespace}/${segment}`;
}

export function homeOf(map: ShardMap, keyText: string, tier: Tier): Home {
  const key = parseLockKey(keyText);
  const region = map.namespaces[key.namespace];
  if (region === undefined) {
    throw new LockError('invalid-argument', `namespace ${key.namespace} is not homed to any region in shard map v${map.version}; add it to the map's namespaces`);
  }
  const shards = map.regions[region];
  if (shards === undefined) throw new LockError('invalid-argument', `region ${region} of namespace ${key.namespace} has no clusters in shard map v${map.version}`);
  const homingUnit = homingUnitOf(keyText);
  if (tier === 'coord') return { region, cluster: shards.coord, homingUnit };
  const override = map.overrides?.[homingUnit] ?? map.overrides?.[key.namespace];
  const cluster = override ?? rendezvousPick(shards.entity, homingUnit);
  if (cluster === undefined) throw new LockError('invalid-argument', `region ${region} has no entity shards in shard map v${map.version}`);
  return { region, cluster, homingUnit };
}

/**
 * The arbiter-side check: a key homed to another region is redirected, never forwarded, so
 * cross-region latency is never hidden inside a call (ADR-08); a draining range takes no new grants.
 */
export function placementFor(map: ShardMap, localRegion: string): Placement {
  const draining = new Set(map.draining ?? []);
  return {
    check(keyText, tier) {
      const home = homeOf(map, keyText, tier ?? 'coord'); // the region is the namespace's, whatever the tier
      if (home.region !== localRegion) return { kind: 'redirect', region: home.region };
      // Only entity ranges move between shards (ADR-09); the coord tier is one cluster per region.
      if (tier === 'entity' && draining.has(home.homingUnit)) return { kind: 'draining' };
      return undefined;
    },
  };
}
