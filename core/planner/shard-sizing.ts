// ADR-07/09: how many entity shards a grant rate needs, how evenly rendezvous hashing spreads the
// keys, how many keys an expansion moves, and how long a moving range is closed to new grants.
// Pure arithmetic over a key sample: the planner's `shards` command prints it, labelled.
import { rendezvousPick } from '../shards/rendezvous.js';

/** A moving range waits for its holds to end: released, or expired TTL + the 500 ms expiry scan (etcd-behaviour §1.7). */
export const EXPIRY_SCAN_MS = 500;
/** ...plus the 1 s a leader change adds to every lease (§1.5), if one happens meanwhile. */
export const PROMOTE_EXTEND_MS = 1000;
/** Bound on the search (TigerStyle: a limit on everything). */
export const MAX_SHARDS = 1024;

export function shardIds(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `entity-${i}`);
}

/** How many sample units each shard homes. */
export function loadByShard(units: readonly string[], shards: readonly string[]): Map<string, number> {
  const load = new Map<string, number>(shards.map((s) => [s, 0]));
  for (const unit of units) {
    const shard = rendezvousPick(shards, unit);
    if (shard !== undefined) load.set(shard, (load.get(shard) ?? 0) + 1);
  }
  return load;
}

/** The hottest shard's share over the mean: 1.0 is a perfect spread. */
export function maxOverMean(units: readonly string[], shardCount: number): number {
  if (units.length === 0 || shardCount <= 0) return 1;
  const load = loadByShard(units, shardIds(shardCount));
  return Math.max(...load.values()) / (units.length / shardCount);
}

/** The fraction of units whose home changes when `added` shards join `shardCount` (about added/(N+added)). */
export function movedFraction(units: readonly string[], shardCount: number, added: number): number {
  if (units.length === 0 || added <= 0) return 0;
  const before = shardIds(shardCount);
  const after = shardIds(shardCount + added);
  let moved = 0;
  for (const unit of units) if (rendezvousPick(before, unit) !== rendezvousPick(after, unit)) moved += 1;
  return moved / units.length;
}

export interface ShardSizing {
  readonly shardsNeeded: number;
  /** The hottest shard's load over the mean, at shardsNeeded. */
  readonly maxOverMean: number;
  /** Grants/s the hottest shard carries at shardsNeeded. */
  readonly hottestShardGrantsPerSecond: number;
}

/**
 * The fewest shards whose hottest shard stays under the ceiling: uniform load per key, spread as
 * rendezvous hashing actually spreads this sample (not the ideal G/N).
 */
export function shardsNeeded(units: readonly string[], grantsPerSecond: number, ceilingPerShard: number): ShardSizing {
  for (let n = Math.max(1, Math.ceil(grantsPerSecond / ceilingPerShard)); n <= MAX_SHARDS; n += 1) {
    const spread = maxOverMean(units, n);
    const hottest = (grantsPerSecond / n) * spread;
    if (hottest <= ceilingPerShard) return { shardsNeeded: n, maxOverMean: spread, hottestShardGrantsPerSecond: hottest };
  }
  throw new RangeError(`no shard count up to ${MAX_SHARDS} keeps ${grantsPerSecond} grants/s under ${ceilingPerShard} per shard; raise the ceiling (measure it: lockstep bench)`);
}

/** The longest a moving range is closed to new grants: its longest TTL, the expiry scan, one leader change. */
export function drainSecondsMax(ttlSeconds: readonly number[]): number {
  const longest = ttlSeconds.length === 0 ? 0 : Math.max(...ttlSeconds);
  return longest + (EXPIRY_SCAN_MS + PROMOTE_EXTEND_MS) / 1000;
}

/** A synthetic sample: `count` homing units spread over a few namespaces, as entity keys are. */
export function syntheticUnits(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `tenant-${i % 97}/entity-${i}`);
}
