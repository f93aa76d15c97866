// `lockstep ttl`'s Monte Carlo on the scenarios' World: (1) a holder crashes and a waiter queues for its
// key; the time until the waiter is granted, with and without an etcd leader change at the same moment;
// (2) live holders keep their sessions under a latency and pause profile; every onFence is a false fence.
import { PrefixGrants, namespaceGrant } from '../../core/authz/index.js';
import { ClassRegistry } from '../../core/classes/index.js';
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import type { DistributionSpec } from '../kernel/distribution.js';
import { compileDistribution } from '../kernel/distribution.js';
import { World } from '../world/world.js';
import { PLANNER_NAMESPACE, plannerClass } from './topology-world.js';
import { ln } from '../kernel/portable-math.js';

export interface PauseProfile {
  readonly pausesPerHour: number;
  readonly durationMs: DistributionSpec;
}

/** A JVM-like collector: a pause a minute, mostly tens of ms, a tail into seconds. */
export const GC_PAUSES: PauseProfile = { pausesPerHour: 60, durationMs: { kind: 'lognormal', medianMs: 50, p99Ms: 1_500 } };

export interface TtlWorldOptions {
  readonly ttlSeconds: number;
  readonly seed: string;
  readonly yieldToHost: () => Promise<void>;
  /** One-way client <-> arbiter latency. */
  readonly rpcLatency?: DistributionSpec;
  readonly walFsync?: DistributionSpec;
  readonly clients: number;
}

async function ttlWorld(options: TtlWorldOptions): Promise<World> {
  const identities = Array.from({ length: options.clients }, (_, i) => `spiffe://sim/planner/holder-${i}`);
  const world = new World({
    seed: options.seed,
    yieldToHost: options.yieldToHost,
    classes: new ClassRegistry([plannerClass(options.ttlSeconds)]),
    authorizer: new PrefixGrants(identities.map((id) => namespaceGrant(id, PLANNER_NAMESPACE))),
    ...(options.rpcLatency === undefined ? {} : { rpcLink: { latency: options.rpcLatency, ordered: true } }),
    ...(options.walFsync === undefined ? {} : { cluster: { timing: { walFsync: options.walFsync } } }),
  });
  await world.start();
  return world;
}

const KEY = `${PLANNER_NAMESPACE}/contended`;

export interface ReacquireRun {
  /** Crash to the waiter's grant, ms of true time; undefined if it was not granted within the run. */
  readonly reacquireMs: number | undefined;
  /**
   * Election rounds the new leader took: the raft terms it advanced past the crashed leader's (this world
   * runs without PreVote, so every campaign takes a term). 0 without a leader change; more than 1 when a
   * round failed (a split vote, or a vote ignored under the old leader's lease).
   */
  readonly electionRounds: number;
}

/**
 * One crash: the holder acquires, keeps its session for a random phase of its keepalive period, then
 * crashes (with the etcd leader, if `leaderChange`); the waiter was queued with a long wait. Returns crash
 * to grant, ms of true time, or undefined if the waiter was never granted within `maxMs`.
 */
export async function reacquireAfterCrash(options: Omit<TtlWorldOptions, 'clients'> & { readonly leaderChange: boolean; readonly crashPhase?: number }): Promise<number | undefined> {
  return (await reacquireRun(options)).reacquireMs;
}

/** reacquireAfterCrash with the election it took. */
export async function reacquireRun(options: Omit<TtlWorldOptions, 'clients'> & { readonly leaderChange: boolean; readonly crashPhase?: number }): Promise<ReacquireRun> {
  const world = await ttlWorld({ ...options, clients: 2 });
  // The holder's keepalive answers are watched (wrapApi), so the crash can be placed at a phase of the
  // keepalive period counted from the last renewal: phase 0 is just after one, the worst case.
  let renewedAtMs = -1;
  const holder = world.addClient('holder-0', {
    identity: 'spiffe://sim/planner/holder-0',
    wrapApi: (api) => ({ ...bindAll(api), keepAlive: (request) => api.keepAlive(request).then((answer) => ((renewedAtMs = world.kernel.now()), answer)) }),
  });
  const waiter = world.addClient('holder-1', { identity: 'spiffe://sim/planner/holder-1' });
  const acquire = { key: KEY, className: 'acquire', ttlSeconds: options.ttlSeconds, onFence: () => {} };
  const held = holder.client.acquire(acquire);
  await world.runUntil(world.kernel.now() + 2_000);
  await held;
  let grantedAtMs: number | undefined;
  void waiter.client.acquire({ ...acquire, waitMs: 600_000 }).then(() => (grantedAtMs = world.kernel.now()), () => undefined);
  const periodMs = (options.ttlSeconds * 1_000) / 3;
  const phase = options.crashPhase ?? world.kernel.rng.stream('planner/crash-phase').next();
  const fromMs = world.kernel.now();
  await world.kernel.runUntilCondition(() => renewedAtMs > fromMs, { untilMs: fromMs + 2 * periodMs });
  await world.runUntil(world.kernel.now() + phase * periodMs);
  const crashAtMs = world.kernel.now();
  const termAtCrash = world.cluster.leader()?.raftStatus()?.term ?? 0;
  holder.process.crash();
  if (options.leaderChange) {
    const leader = world.cluster.leader();
    if (leader !== undefined) world.cluster.crash(leader.name);
  }
  const maxMs = 4 * options.ttlSeconds * 1_000 + 30_000;
  await world.kernel.runUntilCondition(() => grantedAtMs !== undefined, { untilMs: crashAtMs + maxMs });
  const termAtGrant = world.cluster.leader()?.raftStatus()?.term ?? termAtCrash;
  return { reacquireMs: grantedAtMs === undefined ? undefined : grantedAtMs - crashAtMs, electionRounds: termAtGrant - termAtCrash };
}

function bindAll(api: ArbiterApi): ArbiterApi {
  return {
    openSession: (r) => api.openSession(r),
    keepAlive: (r) => api.keepAlive(r),
    closeSession: (r) => api.closeSession(r),
    acquire: (r) => api.acquire(r),
    release: (r) => api.release(r),
    validate: (r) => api.validate(r),
    inspect: (r) => api.inspect(r),
    describeKey: (r) => api.describeKey(r),
    requestForceRelease: (r) => api.requestForceRelease(r),
    approveForceRelease: (r) => api.approveForceRelease(r),
    requestEpochAdvance: (r) => api.requestEpochAdvance(r),
    approveEpochAdvance: (r) => api.approveEpochAdvance(r),
    status: () => api.status(),
  };
}

export interface FalseFenceRun {
  readonly fences: number;
  readonly sessionHours: number;
}

/** Live holders, each with one hold, for `durationMs` of true time under the pause profile. */
export async function falseFences(options: TtlWorldOptions & { readonly durationMs: number; readonly pauses?: PauseProfile }): Promise<FalseFenceRun> {
  const world = await ttlWorld(options);
  let fences = 0;
  const nodes = Array.from({ length: options.clients }, (_, i) => world.addClient(`holder-${i}`, { identity: `spiffe://sim/planner/holder-${i}` }));
  for (const [i, node] of nodes.entries()) void node.client.acquire({ key: `${PLANNER_NAMESPACE}/k-${i}`, className: 'acquire', ttlSeconds: options.ttlSeconds, onFence: () => (fences += 1) }).catch(() => undefined);
  const startMs = world.kernel.now();
  if (options.pauses !== undefined && options.pauses.pausesPerHour > 0) {
    const duration = compileDistribution(options.pauses.durationMs, 'pauses.durationMs');
    const meanGapMs = 3_600_000 / options.pauses.pausesPerHour;
    for (const node of nodes) {
      const stream = world.kernel.rng.stream(`planner/pauses/${node.process.name}`);
      const next = (): void => {
        const gapMs = -ln(1 - stream.next()) * meanGapMs;
        world.kernel.scheduleAfter(gapMs, () => {
          if (world.kernel.now() > startMs + options.durationMs) return;
          node.process.pause();
          world.kernel.scheduleAfter(duration(stream.next()), () => {
            node.process.resume();
            next();
          });
        });
      };
      next();
    }
  }
  await world.runUntil(startMs + options.durationMs);
  return { fences, sessionHours: (options.clients * options.durationMs) / 3_600_000 };
}
