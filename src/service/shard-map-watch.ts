// ADR-09: "The shard map is a versioned document in /sys on the coord cluster, watched by every arbiter."
// The map this arbiter routes and places by: read once at start, then kept by a watch of /sys/shardmap,
// so a finished move (its flip) takes effect without a restart. A broken or compacted watch reads the map
// again and watches from there; a map that does not parse is refused and the last good one keeps serving
// (as with classes and grants, ADR-24). A version below the one held is ignored: maps only go forward.
import { parseShardMap } from '../../core/shards/coord-move-store.js';
import { SHARD_MAP_KEY, type ShardMap } from '../../core/shards/shard-map.js';
import type { LockLog, Watch } from '../../core/ports/lock-log.js';
import { isLockError } from '../../core/lock-error.js';
import { revision } from '../../core/units.js';

const REWATCH_MS = 1000;

export interface ShardMapWatch {
  current(): ShardMap;
  stop(): Promise<void>;
}

export async function watchShardMap(coord: LockLog, onChange: (event: { readonly map: ShardMap } | { readonly refused: string }) => void = () => undefined): Promise<ShardMapWatch> {
  const first = await coord.range({ key: SHARD_MAP_KEY });
  let map = parseShardMap(first.kvs[0]?.value);
  let watch: Watch | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const take = (text: string | undefined): void => {
    try {
      const next = parseShardMap(text);
      if (next.version <= map.version) return;
      map = next;
      onChange({ map });
    } catch (error) {
      if (!isLockError(error)) throw error;
      onChange({ refused: error.message });
    }
  };
  const start = async (from: bigint): Promise<void> => {
    watch = await coord.watch({ key: SHARD_MAP_KEY, startRevision: revision(from) }, {
      onEvents: (batch) => {
        for (const event of batch.events) if (event.type === 'put') take(event.kv.value);
      },
      onError: () => again(),
    });
  };
  const again = (): void => {
    if (stopped) return;
    timer = setTimeout(() => {
      void coord.range({ key: SHARD_MAP_KEY }).then(async (read) => {
        take(read.kvs[0]?.value);
        await start(read.header.revision + 1n);
      }).catch(() => again());
    }, REWATCH_MS);
  };
  await start(first.header.revision + 1n);
  return {
    current: () => map,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await watch?.cancel();
    },
  };
}
