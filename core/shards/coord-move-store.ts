// Where a shard move keeps its state on the coord cluster (ADR-07/09), over the LockLog port: the
// versioned shard map at /sys/shardmap (every arbiter watches it) and each move's journal at
// /sys/moves/<range> (shard-move.ts). src/ gives it the real coord cluster; the tests give it the
// simulated one. A map write is a compare on the stored map's mod revision, so of two controllers
// racing one map change, one writes and the other reads again (shard-move.ts retries).
import { LockError } from '../lock-error.js';
import type { LockLog } from '../ports/lock-log.js';
import { SHARD_MAP_KEY, type ShardMap } from './shard-map.js';
import { MOVE_STEPS, type MoveJournal, type MoveRecord, type ShardMapStore } from './shard-move.js';

export const MOVES_PREFIX = '/sys/moves/';

export function moveKey(range: string): string {
  return `${MOVES_PREFIX}${range}`;
}

/** The stored map, or a LockError naming what is wrong with it (no map: the operator writes one first). */
export function parseShardMap(text: string | undefined): ShardMap {
  if (text === undefined) throw new LockError('invalid-argument', `the coord cluster has no shard map at ${SHARD_MAP_KEY}; write the map (ADR-09) before moving ranges`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new LockError('invalid-argument', `the shard map at ${SHARD_MAP_KEY} is not JSON; restore it from the audit trail (ADR-21) before moving ranges`);
  }
  const map = value as Partial<ShardMap> | null;
  if (map === null || typeof map !== 'object' || typeof map.version !== 'number' || !Number.isInteger(map.version) || typeof map.regions !== 'object' || typeof map.namespaces !== 'object') {
    throw new LockError('invalid-argument', `the shard map at ${SHARD_MAP_KEY} lacks a whole-number version, regions or namespaces; fix it before moving ranges`);
  }
  return map as ShardMap;
}

export function logShardMapStore(coord: LockLog): ShardMapStore {
  return {
    read: async () => parseShardMap((await coord.range({ key: SHARD_MAP_KEY })).kvs[0]?.value),
    async replace(expected, next) {
      const kv = (await coord.range({ key: SHARD_MAP_KEY })).kvs[0];
      if (kv === undefined || parseShardMap(kv.value).version !== expected.version) return false;
      const written = await coord.txn({
        compare: [{ key: SHARD_MAP_KEY, target: 'mod', op: '=', value: kv.modRevision }],
        success: [{ type: 'put', key: SHARD_MAP_KEY, value: JSON.stringify({ ...next, version: expected.version + 1 }) }],
        failure: [],
      });
      return written.succeeded;
    },
  };
}

export function parseMoveRecord(text: string): MoveRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = value as Partial<MoveRecord> | null;
  if (record === null || typeof record !== 'object') return undefined;
  const strings = [record.range, record.from, record.to, record.reason, record.requester, record.approver];
  if (!strings.every((s) => typeof s === 'string') || !MOVE_STEPS.some((step) => step === record.step)) return undefined;
  return record as MoveRecord;
}

export function logMoveJournal(coord: LockLog): MoveJournal {
  return {
    async load(range) {
      const kv = (await coord.range({ key: moveKey(range) })).kvs[0];
      if (kv === undefined) return undefined;
      const record = parseMoveRecord(kv.value);
      if (record === undefined) throw new LockError('invalid-argument', `the move journal ${moveKey(range)} is unreadable; inspect it and the shard map before running the move again`);
      return record;
    },
    async save(record) {
      await coord.txn({ compare: [], success: [{ type: 'put', key: moveKey(record.range), value: JSON.stringify(record) }], failure: [] });
    },
  };
}
