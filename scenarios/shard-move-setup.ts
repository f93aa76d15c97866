// The shard-move scenario's fixed setup (scenarios/shard-move.ts): its shards, keys, timings and class,
// its variants' steps, the shared shard map, and what the rebalance controller records (ADR-09).
import type { Placement } from '../core/arbiter/policy.js';
import type { LockClass } from '../core/classes/index.js';
import { type ShardMap, homeOf, placementFor } from '../core/shards/shard-map.js';
import type { ShardMapStore } from '../core/shards/shard-move.js';

export const TTL_SECONDS = 5;
export const REGION = 'eu';
export const OLD_SHARDS = ['shard-a', 'shard-b'] as const;
export const NEW_SHARD = 'shard-c';
export const KEYS = Array.from({ length: 12 }, (_, i) => `orders/c-${i + 1}`); // one homing unit each
export const WORKERS = 8;
export const ADD_SHARD_AT_MS = 2_000;
export const STOP_AT_MS = 13_000;
/** After the run: time for calls still in flight to reach their deadlines (RPC 8 s + a wait). */
export const RUN_FOR_MS = 15_000;
/** The controller's polling of inspect and status; a bound on each wait. */
export const POLL_MS = 100;
export const MAX_DRAIN_WAIT_MS = 3 * TTL_SECONDS * 1_000;


export const CLASS: LockClass = { namespace: 'orders', name: 'order-writes', purpose: 'correctness', enforcement: 'fenced', resource: 'sim://orders-db', ttlSeconds: TTL_SECONDS, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };

/** The two jobs of the no-drain variant (see the header): they hold and ask for one moving key. */
export const LONG_JOB = 'long-job';
export const LATE_JOB = 'late-job';
/** The late job's wait on the destination: a worker holding the key there is an overlap too. */
export const LATE_JOB_WAIT_MS = 1_000;

export type Steps = {
  readonly drain: boolean;
  readonly advance: boolean;
  /** A hold on a moving key across its flip, by construction (the two jobs). */
  readonly straddle: boolean;
  /** The controller crashes right after each step of each range once, and is run again (core resumes it). */
  readonly crashPoints: boolean;
};

export function stepsOf(variant: string): Steps {
  switch (variant) {
    case 'drain-advance-flip':
      return { drain: true, advance: true, straddle: false, crashPoints: false };
    case 'controller-crashes':
      return { drain: true, advance: true, straddle: false, crashPoints: true };
    case 'no-epoch-advance':
      return { drain: true, advance: false, straddle: false, crashPoints: false };
    case 'no-drain':
      return { drain: false, advance: true, straddle: true, crashPoints: false };
    default:
      throw new RangeError(`shard-move: no variant ${variant}`);
  }
}

/** The versioned map every arbiter and client reads (the coord cluster's /sys/shardmap, watched: here, shared). */
export class MapHolder {
  constructor(public current: ShardMap) {}

  update(change: (map: ShardMap) => Omit<ShardMap, 'version'>): void {
    this.current = { ...change(this.current), version: this.current.version + 1 };
  }

  placement(): Placement {
    return { check: (key, tier) => placementFor(this.current, REGION).check(key, tier) };
  }

  shardOf(key: string): string {
    return homeOf(this.current, key, 'entity').cluster;
  }

  /** The map as core's move procedure writes it: compare the version, write the next one. */
  store(): ShardMapStore {
    return {
      read: async () => this.current,
      replace: async (expected, next) => {
        if (expected.version !== this.current.version) return false;
        this.current = { ...next, version: this.current.version + 1 };
        return true;
      },
    };
  }
}

/** One moved range, as the controller saw it (true times). */
export interface MovedRange {
  readonly unit: string;
  readonly from: string;
  drainedAtMs: number;
  holdsEndedAtMs?: number;
  flippedAtMs?: number;
}

export interface ControllerLog {
  readonly ranges: MovedRange[];
  readyAtMs?: number;
  advances: number;
  holdsDeletedByAdvance: number;
  /** Controller crashes at the crash points (each followed by a run that resumed the move). */
  crashes: number;
  /** The range and refusal a move stopped at, if the procedure refused one. */
  stoppedAt?: string;
  sourceEpoch?: number;
  destinationEpoch?: number;
  doneAtMs?: number;
}

export function jobIdentity(job: string): string {
  return `spiffe://sim/${job}`;
}

/** The keys whose home moves when the new shard joins, in the order the controller moves them. */
export function movingKeys(before: ShardMap): string[] {
  const after: ShardMap = { ...before, regions: { [REGION]: { coord: 'coord-eu', entity: [...OLD_SHARDS, NEW_SHARD] } } };
  return KEYS.filter((key) => homeOf(after, key, 'entity').cluster !== homeOf(before, key, 'entity').cluster);
}

