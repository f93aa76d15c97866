// The simulated world as a FaultTarget (issue 15): the shared fault rules (apply-target-fault.ts) act on it
// through this, as they act on the gate's real processes through src/gate's. Everything is synchronous and
// goes through the world's kernel (determinism law: `after` is the kernel's scheduler, `now` its true time),
// so a schedule applied through here gives the trace it gave when faults.ts acted on the world directly.
import type { SimProcess } from '../sim/process/process.js';
import type { World } from '../sim/world/world.js';
import type { FaultTarget, HealLink, TargetProcessState } from './fault-target.js';

export interface SimFaultTargetOptions {
  /** Whether a client holds a lock (for `@holder`); default: an open hold in the world's lock log. */
  readonly holding?: (client: string) => boolean;
}

export class SimFaultTarget implements FaultTarget {
  /** True time the workload started: `now()` counts from here. */
  readonly startMs: number;
  private readonly holding: (client: string) => boolean;

  constructor(readonly world: World, options: SimFaultTargetOptions = {}) {
    this.startMs = world.kernel.now();
    this.holding = options.holding ?? ((client) => holdsInLog(world, client));
  }

  now(): number {
    return this.world.kernel.now() - this.startMs;
  }

  after(ms: number, run: () => void): void {
    this.world.kernel.scheduleAfter(ms, run);
  }

  resolve(target: string): string {
    return resolveTarget(this.world, target, this.holding);
  }

  stateOf(process: string): TargetProcessState | undefined {
    return this.processNamed(process)?.state;
  }

  pause(process: string): void {
    this.processOf(process).pause();
  }

  resume(process: string): void {
    this.processOf(process).resume();
  }

  crash(process: string, powerLoss: boolean): void {
    this.processOf(process).crash({ powerLoss });
  }

  restart(process: string): void {
    this.processOf(process).restart();
  }

  partition(from: readonly string[], to: readonly string[], oneWay: boolean): HealLink {
    return this.world.partition({ from, to, direction: oneWay ? 'one-way' : 'both' });
  }

  /** Every network (etcd, lock.v1, resources); between etcd members the cluster's own peer-link setting stays. */
  slowLink(from: readonly string[], to: readonly string[], extraDelayMs: number, oneWay: boolean): HealLink {
    return slowLinks(this.world, from, to, extraDelayMs, oneWay);
  }

  driftClock(process: string, ppm: number): void {
    this.processOf(process).setDriftPpm(ppm);
  }

  stepClock(process: string, deltaMs: number, clock: 'wall' | 'monotonic'): void {
    this.processOf(process).stepClock(deltaMs, clock);
  }

  stallDisk(member: string, durationMs: number): void {
    this.world.cluster.stallDisk(member, this.world.kernel.now() + durationMs);
  }

  /** The simulator injects every kind. */
  cannot(_kind: string): string | undefined {
    return undefined;
  }

  /** The world's process of that name, if it has one now. */
  processNamed(name: string): SimProcess | undefined {
    const world = this.world;
    const processes = [...world.clients.map((c) => c.process), ...world.arbiters.map((a) => a.process), ...world.clusters.flatMap((c) => c.cluster.members.map((m) => m.process)), ...world.resources.map((r) => r.process)];
    return processes.find((p) => p.name === name);
  }

  private processOf(name: string): SimProcess {
    const process = this.processNamed(name);
    if (process === undefined) throw new Error(`sim fault target: no process named ${name}`);
    return process;
  }
}

/** Slows every link from each of `from` to each of `to` (and back) on all three networks; returns the heal. */
export function slowLinks(world: World, from: readonly string[], to: readonly string[], extraDelayMs: number, oneWay: boolean): () => void {
  const pairs = from.flatMap((a) => to.flatMap((b): [string, string][] => (oneWay ? [[a, b]] : [[a, b], [b, a]])));
  const networks = [world.clusterNetwork, world.rpcNetwork, world.resourceNetwork] as const;
  for (const network of networks) for (const [a, b] of pairs) network.setLink(a, b, { extraDelayMs });
  return () => {
    for (const network of networks) for (const [a, b] of pairs) network.setLink(a, b, undefined);
  };
}

/** The process a role names now (faults.ts's header lists the roles); '' for `@holder` with no running holder. */
export function resolveTarget(world: World, target: string, holding: (client: string) => boolean): string {
  if (target === '@holder') return world.clients.find((c) => c.process.state === 'running' && holding(c.process.name))?.process.name ?? '';
  const nth = /^@member-(\d+)$/.exec(target);
  if (nth !== null) return world.cluster.members[Number(nth[1]) - 1]?.name ?? target;
  if (target === '@leader') return world.cluster.leader()?.name ?? world.cluster.members[0]?.name ?? target;
  if (target === '@follower') {
    const leader = world.cluster.leader()?.name;
    return world.cluster.members.find((m) => m.name !== leader)?.name ?? target;
  }
  return target;
}

/** Whether a client's identity has an open hold in the world's lock log (a grant not yet ended). */
export function holdsInLog(world: World, client: string): boolean {
  const identity = world.clients.find((c) => c.process.name === client)?.identity;
  return identity !== undefined && world.grants.some((g) => g.holder === identity && g.endedAtRevision === undefined);
}
