// ADR-04's fail-open, in quorum-loss's outage: beside the ledger's correctness class (which fails closed,
// as in the other variants), an efficiency class that declared `onQuorumLoss: open`, whose two holders
// take turns on one cache key all through the run. While no majority answers, the arbiter grants the
// cache key from memory (token 0, unprotected), spools each grant and end, and ships them to the audit
// store when the quorum is back. The arbiter crashes during the outage (its memory grants are lost; a
// restart ships them, ended) and again the moment its first shipment has been stored, before the spool's
// truncation is durable (a power loss): the restart ships the same records again, which the store keeps
// once. The `unprotected` check (core/checkers/unprotected.ts) holds the run to ADR-04's rules; the other
// checkers judge the etcd grants as always.
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import { MemoryUnprotectedStore } from '../core/audit/memory-unprotected-store.js';
import { type BeliefInterval, checkUnprotected, isUnprotected } from '../core/checkers/index.js';
import { ClassRegistry, type LockClass } from '../core/classes/index.js';
import type { UnprotectedRecord, UnprotectedStore } from '../core/ports/spool.js';
import { replaySpool } from '../sim/disk/sim-spool.js';
import type { ClientNode, World } from '../sim/world/world.js';
import { NAMESPACE, ledgerClass } from './cluster-fault-kit.js';
import type { Fault } from './faults.js';

export const CACHE_NAMESPACE = 'cache';
export const CACHE_KEY = 'cache/warm-7';
const CACHE_CLASS = 'warm-entries';
/** The arbiter crash inside the outage (2 s .. 14 s): after both cache holders have held from memory. */
export const ARBITER_CRASH_AT_MS = 8_000;
const ARBITER_DOWN_MS = 500;
/** How long a cache holder waits in line, works per unit, and rests between holds. */
const CACHE_WAIT_MS = 3_000;
const CACHE_UNIT_MS = 200;
const CACHE_UNITS = 3;
const CACHE_REST_MS = 300;

/** An efficiency class that fails open (ADR-04): advisory, so it names a risk owner and a waiver (ADR-01). */
export function cacheClass(ttlSeconds: number): LockClass {
  return { namespace: CACHE_NAMESPACE, name: CACHE_CLASS, purpose: 'efficiency', enforcement: 'advisory', riskOwner: 'team-cache', waiverExpires: '2027-06-30', ttlSeconds, tier: 'entity', onQuorumLoss: 'open', fairness: 'memory' };
}

/** The ledger's clients lock the ledger namespace, the cache holders the cache namespace. */
export function failOpenPolicy(ttlSeconds: number, ledgerClients: readonly string[], cacheClients: readonly string[]): { readonly classes: ClassRegistry; readonly authorizer: PrefixGrants } {
  const grants = [...ledgerClients.map((name) => namespaceGrant(`spiffe://sim/${name}`, NAMESPACE)), ...cacheClients.map((name) => namespaceGrant(`spiffe://sim/${name}`, CACHE_NAMESPACE))];
  return { classes: new ClassRegistry([ledgerClass(ttlSeconds), cacheClass(ttlSeconds)]), authorizer: new PrefixGrants(grants) };
}

/** The arbiter's crash and restart inside the outage. */
export function arbiterCrashFaults(arbiter: string): Fault[] {
  return [
    { atMs: ARBITER_CRASH_AT_MS, kind: 'crash', target: arbiter },
    { atMs: ARBITER_CRASH_AT_MS + ARBITER_DOWN_MS, kind: 'restart', target: arbiter },
  ];
}

/**
 * The audit store, which crashes `arbiter` (a power loss: the spool's unsynced truncation is lost) the
 * moment its first shipment is stored, and restarts it; `dedupe: false` is the negative control's store,
 * which keeps every record it is offered.
 */
export class CrashingStore implements UnprotectedStore {
  readonly inner = new MemoryUnprotectedStore();
  readonly kept: UnprotectedRecord[] = [];
  crashedMidShip = false;

  constructor(private readonly world: () => World, private readonly arbiter: string, private readonly dedupe: boolean) {}

  async shipUnprotected(records: readonly UnprotectedRecord[]): Promise<void> {
    await this.inner.shipUnprotected(records);
    if (!this.dedupe) this.kept.push(...records);
    if (this.crashedMidShip) return;
    this.crashedMidShip = true;
    const world = this.world();
    world.kernel.scheduleAfter(0, () => {
      world.process(this.arbiter).crash({ powerLoss: true });
      world.kernel.scheduleAfter(ARBITER_DOWN_MS, () => world.process(this.arbiter).restart());
    });
  }

  unprotected(sinceMs: number): Promise<readonly UnprotectedRecord[]> {
    return this.inner.unprotected(sinceMs);
  }

  /** What the store holds, as stored. */
  get stored(): readonly UnprotectedRecord[] {
    return this.dedupe ? this.inner.records : this.kept;
  }
}

/** A cache holder: acquires, works a few short units while canStart() (each a belief span), releases, rests; until `untilMs`. */
export async function runCacheHolder(node: ClientNode, ttlSeconds: number, beliefs: BeliefInterval[], untilMs: number): Promise<void> {
  const clock = node.process.clock();
  const kernel = node.process.kernel;
  while (kernel.now() < untilMs) {
    const handle = await node.client.acquire({ key: CACHE_KEY, className: CACHE_CLASS, ttlSeconds, waitMs: CACHE_WAIT_MS, onFence: () => undefined }).catch(() => undefined);
    if (handle !== undefined) {
      for (let unit = 0; unit < CACHE_UNITS && handle.canStart(); unit += 1) {
        const fromMs = kernel.now();
        await clock.sleep(CACHE_UNIT_MS);
        beliefs.push({ holder: node.identity, key: CACHE_KEY, token: handle.token, fromMs, toMs: kernel.now() });
      }
      await handle.release().catch(() => false);
    }
    await clock.sleep(CACHE_REST_MS);
  }
}

/** The ADR-04 check over the run, and its figures. */
export function failOpenChecks(world: World, store: CrashingStore, beliefs: readonly BeliefInterval[], ledgerBeliefs: readonly BeliefInterval[]) {
  const spooled = world.arbiters.flatMap((a) => (a.spool === undefined ? [] : replaySpool(a.spool.entries.filter((e) => 'record' in e))));
  const check = checkUnprotected([...beliefs, ...ledgerBeliefs], { spooled, stored: store.stored, closed: (key) => !key.startsWith(`${CACHE_NAMESPACE}/`) });
  const grants = spooled.filter((r) => r.kind === 'grant');
  const metrics = {
    unprotectedGrantsSpooled: grants.length,
    unprotectedGrantsStored: store.inner.records.filter((r) => r.kind === 'grant').length,
    unprotectedHolders: new Set(grants.map((g) => g.identity)).size,
    unprotectedBeliefSpans: beliefs.filter(isUnprotected).length,
    unprotectedEndedByRecovery: store.inner.records.filter((r) => r.endReason === 'recovery').length,
    unprotectedRecordsOffered: store.inner.offered,
    unprotectedShipments: store.inner.shipments,
    cacheEtcdGrants: world.log.grants.filter((g) => g.key === CACHE_KEY).length,
  };
  return { check, metrics };
}
