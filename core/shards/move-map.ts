// ADR-09: the three changes a range move makes to the shard map, as pure functions of the map. Each is
// idempotent (applied to a map that already has it, it returns an equal map), so a move resumed after a
// crash between writing the map and recording its step can apply its step again (shard-move.ts). The
// version is not touched here: the map store bumps it on every write.
import { LockError } from '../lock-error.js';
import { type ShardMap, homeOf } from './shard-map.js';

export interface RangeMove {
  /** The homing unit that moves (`namespace/segment`, or a namespace: shard-map.ts homingUnitOf). */
  readonly range: string;
  readonly from: string;
  readonly to: string;
}

/** A key of the range, for homeOf: a homing unit is itself a key of its own range. */
function homeOfRange(map: ShardMap, range: string): string {
  return homeOf(map, range, 'entity').cluster;
}

/** What a move may start from: the range is homed on `from`, and `to` is another entity shard of the same region. */
export function checkMovable(map: ShardMap, move: RangeMove): void {
  const home = homeOf(map, move.range, 'entity');
  const shards = map.regions[home.region]?.entity ?? [];
  if (home.homingUnit !== move.range) {
    throw new LockError('invalid-argument', `--range ${move.range} is not a homing unit; give namespace/first-segment (its unit is ${home.homingUnit}) (ADR-09)`);
  }
  if (!shards.includes(move.to)) {
    throw new LockError('invalid-argument', `--to ${move.to} is not an entity shard of region ${home.region} in shard map v${map.version} (shards: ${shards.join(', ')}); add it to the map first, its ranges pinned (ADR-09)`);
  }
  if (move.to === move.from) throw new LockError('invalid-argument', `--from and --to are both ${move.from}; a move needs two different shards`);
  checkHomedOn(map, move);
}

function checkHomedOn(map: ShardMap, move: RangeMove): void {
  const home = homeOfRange(map, move.range);
  if (home !== move.from) {
    throw new LockError('invalid-argument', `range ${move.range} is homed on ${home} in shard map v${map.version}, not on --from ${move.from}; check the map (lockstep shards) and move it from where it is`);
  }
}

/** Step 1: the range stays on `from` by an override, whatever else changes in the map while it moves. */
export function pinRange(map: ShardMap, move: RangeMove): ShardMap {
  checkHomedOn(map, move);
  return { ...map, overrides: { ...map.overrides, [move.range]: move.from } };
}

/** Step 2: the range takes no new grants (placementFor answers `draining`). */
export function drainRange(map: ShardMap, move: RangeMove): ShardMap {
  const draining = map.draining ?? [];
  return draining.includes(move.range) ? map : { ...map, draining: [...draining, move.range] };
}

/**
 * The last step: the range is homed on `to` and takes grants again. The override stays only when the
 * map's hashing would not home the range on `to` by itself (a manual assignment, ADR-09's table).
 */
export function flipRange(map: ShardMap, move: RangeMove): ShardMap {
  const overrides = Object.fromEntries(Object.entries(map.overrides ?? {}).filter(([unit]) => unit !== move.range));
  const hashed = homeOfRange({ ...map, overrides }, move.range);
  const draining = (map.draining ?? []).filter((unit) => unit !== move.range);
  const { overrides: _old, draining: _drained, ...rest } = map;
  return {
    ...rest,
    ...(hashed === move.to ? (Object.keys(overrides).length === 0 ? {} : { overrides }) : { overrides: { ...overrides, [move.range]: move.to } }),
    ...(draining.length === 0 ? {} : { draining }),
  };
}

/** Equal maps but for the version: a step whose change is already in the stored map writes nothing. */
export function sameMap(a: ShardMap, b: ShardMap): boolean {
  return JSON.stringify({ ...a, version: 0 }) === JSON.stringify({ ...b, version: 0 });
}
