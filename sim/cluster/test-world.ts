// Shared helpers for this folder's tests (not exported from index.ts): a kernel, a cluster network, a
// 3-member cluster, a client process and a driver, from one seed. `yieldToHost` comes from the test file:
// host scheduling is wired by tests, never by sim/ code.
import { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { createClusterNetwork, createSimCluster, type SimCluster, type SimClusterOptions } from './cluster.js';
import { SimDriver } from './driver.js';
import { DEFAULT_SIM_REQUEST_TIMEOUT_MS, createSimLockLog, type SimLockLog, type SimLockLogOptions } from './lock-log.js';
import type { ClusterNetwork } from './ports.js';

export interface ClusterWorld {
  readonly kernel: Kernel;
  readonly network: ClusterNetwork;
  readonly cluster: SimCluster;
  readonly driver: SimDriver;
  /** A client process and a LockLog on it, made on demand. */
  client(name: string, options?: Partial<Omit<SimLockLogOptions, 'kernel' | 'network' | 'client'>>): { readonly process: SimProcess; readonly log: SimLockLog };
}

export function clusterWorld(yieldToHost: () => Promise<void>, seed: string, options: SimClusterOptions = {}, keepRecords = false): ClusterWorld {
  const kernel = new Kernel({ seed, yieldToHost, trace: { keepRecords } });
  const network = createClusterNetwork(kernel);
  const cluster = createSimCluster(kernel, network, options);
  const driver = new SimDriver(kernel);
  const processes = new Map<string, SimProcess>();
  return {
    kernel,
    network,
    cluster,
    driver,
    client: (name, logOptions = {}) => {
      let process = processes.get(name);
      if (process === undefined) processes.set(name, (process = new SimProcess(kernel, { name })));
      const log = createSimLockLog({ kernel, network, client: process, endpoints: cluster.members, ...logOptions });
      return { process, log };
    },
  };
}

/**
 * Client options for tests of what a member answers to a keepalive (its forwarding, its own timeouts):
 * the client waits for the member as long as any call, on that member alone, instead of hedging.
 */
export const UNHEDGED_KEEPALIVE = { keepAliveTimeoutMs: DEFAULT_SIM_REQUEST_TIMEOUT_MS, hedgeAfterMs: Number.POSITIVE_INFINITY } as const;

/** Runs until a leader is elected and has applied its term's entry (so it serves and leases expire). */
export async function settledLeader(world: ClusterWorld, withinMs = 5_000): Promise<string> {
  const ok = await world.driver.runUntil(() => {
    const leader = world.cluster.leader();
    return leader !== undefined && leader.state?.lessor.isPrimary() === true;
  }, withinMs);
  if (!ok) throw new Error(`no promoted leader within ${withinMs} ms`);
  return world.cluster.leader()!.name;
}

/** The rejection of `promise` (which must reject). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}
