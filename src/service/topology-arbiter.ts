// `lockstep serve --topology` (issue 19, ADR-07/09): the arbiters of one region's clusters in one
// process. One log client and one Arbiter per cluster: the coord cluster serves coord-tier keys with its
// own /sys/epoch (ADR-03's seal applies to it as to any log), each entity shard takes its epoch from its
// record on the coord cluster (coord-epochs.ts). core's RoutedArbiter sends each key where its class's
// tier and the watched shard map home it; core's ShardMoveDesk runs two-person range moves.
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { LockError } from '../../core/lock-error.js';
import { CoordEpochSource } from '../../core/arbiter/coord-epochs.js';
import type { Authorizer, ClassLookup, Placement } from '../../core/arbiter/policy.js';
import type { Clock } from '../../core/ports/clock.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import type { Random } from '../../core/ports/random.js';
import { logMoveJournal, logShardMapStore } from '../../core/shards/coord-move-store.js';
import { ShardMoveDesk } from '../../core/shards/move-desk.js';
import { holdsInRange } from '../../core/shards/range-holds.js';
import { RoutedArbiter } from '../../core/shards/routed-arbiter.js';
import { placementFor } from '../../core/shards/shard-map.js';
import type { ShardMoveOptions } from '../../core/shards/shard-move.js';
import { type ShardMapWatch, watchShardMap } from './shard-map-watch.js';
import type { Topology } from './topology-file.js';

export interface TopologyServing {
  readonly router: RoutedArbiter;
  readonly moves: ShardMoveDesk;
  readonly maps: ShardMapWatch;
  /** Each cluster's arbiter, by name (status at start, close at drain). */
  readonly arbiters: ReadonlyMap<string, Arbiter>;
  /** Ends every wait in line (a drain's last step before connections close). */
  endWaits(): void;
  close(): Promise<void>;
}

export interface TopologyParts {
  readonly topology: Topology;
  /** A log client of one cluster, and how to close it. */
  readonly openLog: (endpoints: readonly string[], cluster: string) => { readonly log: LockLog; close(): Promise<void> };
  readonly clock: Clock;
  readonly random: Random;
  readonly classes: ClassLookup;
  readonly authorizer: Authorizer;
  readonly approvalIdPrefix: string;
  readonly onMapChange?: Parameters<typeof watchShardMap>[1];
  readonly moveOptions?: ShardMoveOptions;
}

export async function startTopologyServing(parts: TopologyParts): Promise<TopologyServing> {
  const { topology } = parts;
  const clients = [topology.coord, ...topology.entity].map((cluster) => ({ name: cluster.name, ...parts.openLog(cluster.endpoints, cluster.name) }));
  const logs = new Map<string, LockLog>(clients.map((client) => [client.name, client.log]));
  const coordLog = logs.get(topology.coord.name) as LockLog;
  const closeLogs = async (): Promise<void> => {
    await Promise.all(clients.map((client) => client.close()));
  };
  let maps: ShardMapWatch;
  try {
    maps = await watchShardMap(coordLog, parts.onMapChange);
  } catch (error) {
    await closeLogs();
    throw error;
  }
  // Placement reads the map at every check, so the watch's latest map applies to waiters already in line.
  const placement: Placement = { check: (key, tier) => placementFor(maps.current(), topology.region).check(key, tier) };
  const arbiters = new Map<string, Arbiter>();
  for (const [name, log] of logs) {
    const epochSource = name === topology.coord.name ? undefined : new CoordEpochSource(coordLog, name);
    arbiters.set(name, new Arbiter({ log, clock: parts.clock, random: parts.random, classes: parts.classes, authorizer: parts.authorizer, placement, approvalIdPrefix: `${parts.approvalIdPrefix}${name}-`, ...(epochSource === undefined ? {} : { epochSource }) }));
  }
  const router = new RoutedArbiter({ coordName: topology.coord.name, coordLog, clusters: arbiters, classes: parts.classes, region: topology.region, map: () => maps.current() });
  const moves = new ShardMoveDesk(
    {
      clock: parts.clock,
      maps: logShardMapStore(coordLog),
      journal: logMoveJournal(coordLog),
      arbiterOf: (shard) => {
        const arbiter = arbiters.get(shard);
        if (arbiter === undefined) throw new LockError('invalid-argument', `shard ${shard} is in the shard map but not in this arbiter's topology file; add it (name and endpoints) and serve again`);
        return arbiter;
      },
      holdsIn: async (shard, range) => {
        const log = logs.get(shard);
        return log === undefined ? 'unknown' : holdsInRange(log, range);
      },
    },
    parts.authorizer,
    parts.clock,
    parts.approvalIdPrefix,
    parts.moveOptions,
  );
  return {
    router, moves, maps, arbiters,
    endWaits() {
      for (const arbiter of arbiters.values()) arbiter.close();
    },
    async close() {
      for (const arbiter of arbiters.values()) arbiter.close();
      await maps.stop();
      await closeLogs();
    },
  };
}
