// ADR-04 in the explorer's swarm: on some seeds (drawn from a stream of its own, so every other draw of a
// seed stays what it was) the world has an efficiency class that fails open beside the fenced ledger,
// every arbiter a spool and the world an audit store for unprotected grants, and two cache holders, one
// per arbiter, take turns on one cache key all through the run. A quorum loss in the schedule then grants
// them from memory (two arbiters may grant the key at once: the overlap the class declared). Their beliefs
// and the cache key's etcd grants are the `unprotected` check's (core/checkers/unprotected.ts), which also
// holds the ledger's beliefs: a ledger grant from memory is a correctness class failing open.
import { namespaceGrant } from '../core/authz/index.js';
import { MemoryUnprotectedStore } from '../core/audit/memory-unprotected-store.js';
import { type BeliefInterval, type CheckResult, checkUnprotected } from '../core/checkers/index.js';
import type { LockClass, LockGrant } from '../core/classes/index.js';
import { Rng } from '../sim/kernel/rng.js';
import { replaySpool } from '../sim/disk/sim-spool.js';
import type { ClientOptions, World } from '../sim/world/world.js';
import { CACHE_KEY, CACHE_NAMESPACE, cacheClass, runCacheHolder } from './quorum-loss-open.js';

export const CACHE_HOLDERS = ['cache-1', 'cache-2'] as const;

/** Whether the seed's world has the open class (a quarter of seeds). */
export function drawsOpenClass(seed: string): boolean {
  return new Rng(seed).stream('swarm/parameters/open-class').chance(0.25);
}

export interface SwarmOpenClass {
  readonly store: MemoryUnprotectedStore;
  readonly beliefs: BeliefInterval[];
}

/** What the world adds for the open class: the class, its holders' grants, the store (WorldOptions.unprotected). */
export function openClassWorld(ttlSeconds: number): { readonly open: SwarmOpenClass; readonly classes: LockClass[]; readonly grants: LockGrant[] } {
  const open = { store: new MemoryUnprotectedStore(), beliefs: [] };
  return { open, classes: [cacheClass(ttlSeconds)], grants: CACHE_HOLDERS.map((name) => namespaceGrant(`spiffe://sim/${name}`, CACHE_NAMESPACE)) };
}

/** Starts the cache holders, one per arbiter, probed as the swarm's clients are (never awaited, as its workers). */
export function startCacheHolders(world: World, open: SwarmOpenClass, options: { readonly ttlSeconds: number; readonly stopAtMs: number; readonly wrapApi: ClientOptions['wrapApi'] }): void {
  CACHE_HOLDERS.forEach((name, i) => {
    const node = world.addClient(name, { arbiter: i % world.arbiters.length, ...(options.wrapApi === undefined ? {} : { wrapApi: options.wrapApi }) });
    void runCacheHolder(node, options.ttlSeconds, open.beliefs, options.stopAtMs);
  });
}

export function checkSwarmUnprotected(world: World, open: SwarmOpenClass, ledgerBeliefs: readonly BeliefInterval[]): CheckResult {
  const spooled = world.arbiters.flatMap((a) => (a.spool === undefined ? [] : replaySpool(a.spool.entries.filter((e) => 'record' in e))));
  return checkUnprotected([...open.beliefs, ...ledgerBeliefs], { spooled, stored: open.store.records, closed: (key) => key !== CACHE_KEY });
}
