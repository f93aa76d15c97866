// A lock workload on a simulated world: client sessions that keep alive through the client library
// (ADR-10) and an open-loop stream of grants (acquire, hold, release) over a key space. Used by the
// simulator's speed benchmark (the standard workload) and by the planner.
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { ClassRegistry, type LockClass } from '../../core/classes/index.js';
import { isLockError } from '../../core/lock-error.js';
import { ln } from '../kernel/portable-math.js';
import type { World, ClientNode } from './world.js';

export const WORKLOAD_NAMESPACE = 'bench';

export function workloadClass(ttlSeconds: number): LockClass {
  return { namespace: WORKLOAD_NAMESPACE, name: 'bench-writes', purpose: 'correctness', enforcement: 'fenced', resource: 'sim://bench', ttlSeconds, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };
}

export function workloadPolicy(ttlSeconds: number, clients: number): { classes: ClassRegistry; authorizer: PrefixGrants } {
  return {
    classes: new ClassRegistry([workloadClass(ttlSeconds)]),
    authorizer: new PrefixGrants(Array.from({ length: clients }, (_, i) => namespaceGrant(clientIdentity(i), WORKLOAD_NAMESPACE))),
  };
}

export function clientIdentity(index: number): string {
  return `spiffe://sim/bench/client-${index}`;
}

export interface LockWorkloadOptions {
  readonly world: World;
  readonly clients: number;
  readonly ttlSeconds: number;
  readonly grantsPerSecond: number;
  readonly keys: number;
  readonly holdMs: number;
  /** How long a grant may wait in line. */
  readonly waitMs: number;
}

export interface LockWorkloadStats {
  granted: number;
  contended: number;
  failed: number;
  readonly errors: Record<string, number>;
}

/** Starts the workload (run the world's kernel to make it go); returns live counters and a stop. */
export function startLockWorkload(options: LockWorkloadOptions): { stats: LockWorkloadStats; stop(): void } {
  const { world } = options;
  const stats: LockWorkloadStats = { granted: 0, contended: 0, failed: 0, errors: {} };
  const nodes: ClientNode[] = Array.from({ length: options.clients }, (_, i) => world.addClient(`client-${i}`, { identity: clientIdentity(i) }));
  const driver = world.kernel.rng.stream('workload/arrivals');
  let stopped = false;
  const grantOnce = async (node: ClientNode, key: string): Promise<void> => {
    try {
      const handle = await node.client.acquire({ key, className: 'bench-writes', ttlSeconds: options.ttlSeconds, waitMs: options.waitMs, onFence: () => {} });
      stats.granted += 1;
      await node.process.clock().sleep(options.holdMs);
      await handle.release();
    } catch (error) {
      const code = isLockError(error) ? error.code : 'thrown';
      if (code === 'contended' || code === 'wait-timeout') stats.contended += 1;
      else stats.failed += 1;
      stats.errors[code] = (stats.errors[code] ?? 0) + 1;
    }
  };
  // Every client opens its session up front (a session per (identity, TTL), ADR-10) and keeps it alive.
  for (const node of nodes) void node.client.acquire({ key: `${WORKLOAD_NAMESPACE}/warmup-${node.process.name}`, className: 'bench-writes', ttlSeconds: options.ttlSeconds, onFence: () => {} }).then((h) => h.release()).catch(() => undefined);
  const arrive = (): void => {
    if (stopped) return;
    const node = nodes[Math.floor(driver.next() * nodes.length)];
    const key = `${WORKLOAD_NAMESPACE}/key-${Math.floor(driver.next() * options.keys)}`;
    if (node !== undefined && node.process.state === 'running') world.kernel.adopt(grantOnce(node, key));
    const gapMs = -ln(1 - driver.next()) * (1000 / options.grantsPerSecond); // Poisson arrivals
    world.kernel.scheduleAfter(gapMs, arrive);
  };
  world.kernel.scheduleAfter(0, arrive);
  return {
    stats,
    stop: () => {
      stopped = true;
    },
  };
}
