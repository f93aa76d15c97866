// The simulator's prediction of a `lockstep gate` run (issue 15, "the simulator held against reality"): the
// gate's workload, in the simulated world, under the same fault schedule, recorded as the gate records the
// real one (the lock model's events, docs/history-format.md, and the library's fences), so
// core/checkers/fault-effects.ts measures both histories by one rule and `--compare-sim` sets them side by side.
//
// The shape mirrors the gate's (src/gate/real-cluster.ts, src/gate/client/client-worker.ts): members named
// etcd-0.., arbiters arbiter-1.., clients client-1.. each on every arbiter, keys payments/gate-0..; a fenced
// class with the 5 s TTL; each client loops acquire (wait 4 s) -> up to 3 units of canStart(), 100-500 ms of
// work, a write through the fence (at-or-above, as the gate's FileRegister) -> release, 20-200 ms between
// holds, and stops at the duration. Outcomes are classified by core/checkers/operation-outcomes.ts, the
// gate's rule. The timing can be calibrated from this machine's bench profile (`lockstep bench --profile`):
// its fsync distribution becomes the members' WAL fsync, half its loopback round trip each link's latency,
// its CPU costs the members' request and apply costs. Deterministic by seed (same seed, same history).
import type { HistoryEvent } from '../core/checkers/history.js';
import { LOG_PROCESS } from '../core/checkers/history.js';
import type { AppliedFault } from '../core/checkers/fault-effects.js';
import { acquireOutcome, releaseOutcome, writeOutcome } from '../core/checkers/operation-outcomes.js';
import type { FenceRecord } from '../core/checkers/run-history.js';
import { ClassRegistry } from '../core/classes/index.js';
import type { LockClass } from '../core/classes/index.js';
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import type { LockHandle } from '../core/client/lock-client.js';
import { randomInt } from '../core/ports/random.js';
import { formatToken } from '../core/token.js';
import type { DistributionSpec } from '../sim/kernel/distribution.js';
import type { ClientNode } from '../sim/world/world.js';
import { World } from '../sim/world/world.js';
import type { SimResource } from '../sim/world/resource.js';
import { runTargetFaults } from './apply-target-fault.js';
import type { Fault } from './faults.js';
import { ReleasedHandleFences } from './gate-fences.js';
import { rendezvousFailover } from './rendezvous-failover.js';
import { SimFaultTarget } from './sim-fault-target.js';
import { type StartUpsMs, withStartUps } from './start-up-target.js';

/** The gate's own settings (src/gate/real-cluster.ts, client-worker.ts): keep them equal, or the prediction is of another workload. */
export const GATE_WORKLOAD = {
  namespace: 'payments',
  className: 'gate',
  ttlSeconds: 5,
  waitMs: 4_000,
  unitsPerHold: 3,
  workMs: [100, 500],
  betweenHoldsMs: [20, 200],
} as const;

export interface GateShape {
  readonly members: 3 | 5;
  readonly arbiters: number;
  readonly clients: number;
  readonly keys: number;
  /** How long the clients loop; the run goes on two TTLs more for the last holds to end. */
  readonly durationMs: number;
  readonly seed: string;
  readonly resource?: 'fenced' | 'unfenced';
}

/** Timing measured on this machine; absent fields keep the simulator's defaults. */
export interface GateCalibration {
  readonly walFsync?: DistributionSpec;
  /** One-way latency of every link (client-arbiter, arbiter-member, member-member): half the loopback round trip. */
  readonly linkLatency?: DistributionSpec;
  readonly requestCostMs?: number;
  readonly applyCostMs?: number;
  /** Where the figures come from, for the report. */
  readonly source: string;
}

/** `lockstep bench --profile`'s file (bench/profile.ts HardwareProfile), read structurally: scenarios do not import bench/. */
export interface BenchProfileShape {
  readonly kind: 'lockstep-hardware-profile';
  readonly walFsync: { readonly kind: 'empirical'; readonly samplesMs: readonly number[] };
  readonly loopbackRtt: { readonly kind: 'empirical'; readonly samplesMs: readonly number[] };
  readonly cpuByConcurrency?: ReadonlyArray<{ readonly requestCostMs?: number; readonly applyCostMs?: number }>;
  readonly measuredAt?: string;
}

/** The calibration a bench profile gives: its fsync, half its round trip, its CPU costs at the highest concurrency measured. */
export function calibrationOfProfile(profile: BenchProfileShape): GateCalibration {
  const cpu = profile.cpuByConcurrency?.[profile.cpuByConcurrency.length - 1];
  return {
    ...(profile.walFsync.samplesMs.length === 0 ? {} : { walFsync: { kind: 'empirical', samplesMs: profile.walFsync.samplesMs } }),
    ...(profile.loopbackRtt.samplesMs.length === 0 ? {} : { linkLatency: { kind: 'empirical', samplesMs: profile.loopbackRtt.samplesMs.map((ms) => ms / 2) } }),
    ...(cpu?.requestCostMs === undefined ? {} : { requestCostMs: cpu.requestCostMs }),
    ...(cpu?.applyCostMs === undefined ? {} : { applyCostMs: cpu.applyCostMs }),
    source: `lockstep bench --profile${profile.measuredAt === undefined ? '' : ` of ${profile.measuredAt}`}`,
  };
}

export interface GatePrediction {
  /** The lock model's events: client operations and the log's expiries, times in ms after the workload started. */
  readonly events: HistoryEvent[];
  /** The library's fences (holder: the client's name), on the same clock. */
  readonly fences: FenceRecord[];
  /** The faults that acted (skipped ones left out), their targets resolved when they fired: measureFaultEffects' input. */
  readonly applied: AppliedFault[];
  /** The fault log (scheduleTargetFaults). */
  readonly faultLog: string[];
  readonly traceHash: string;
}

export const memberNamesOf = (count: number): string[] => Array.from({ length: count }, (_, i) => `etcd-${i}`);
export const clientNamesOf = (count: number): string[] => Array.from({ length: count }, (_, i) => `client-${i + 1}`);
export const keyNamesOf = (count: number): string[] => Array.from({ length: count }, (_, i) => `${GATE_WORKLOAD.namespace}/gate-${i}`);

const TAIL_TTLS = 2;

export interface PredictOptions {
  readonly calibration?: GateCalibration;
  /** The real run's arbiter start-ups (start-up-target.ts, issue 32): its restarts serve that late here too. Default: at once. */
  readonly startUpsMs?: StartUpsMs;
  readonly yieldToHost: () => Promise<void>;
}

/** Runs the gate's workload in the simulator under `faults` (ms after the workload starts) and records it. */
export async function predictGate(shape: GateShape, faults: readonly Fault[], options: PredictOptions): Promise<GatePrediction> {
  const calibration = options.calibration;
  const gateClass: LockClass = { namespace: GATE_WORKLOAD.namespace, name: GATE_WORKLOAD.className, purpose: 'correctness', enforcement: 'fenced', resource: 'sim://gate', ttlSeconds: GATE_WORKLOAD.ttlSeconds, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };
  const clients = clientNamesOf(shape.clients);
  const link = calibration?.linkLatency === undefined ? undefined : { latency: calibration.linkLatency, ordered: true };
  const timing = {
    ...(calibration?.walFsync === undefined ? {} : { walFsync: calibration.walFsync }),
    ...(calibration?.requestCostMs === undefined ? {} : { requestCostMs: calibration.requestCostMs }),
    ...(calibration?.applyCostMs === undefined ? {} : { applyCostMs: calibration.applyCostMs }),
  };
  const world = new World({
    seed: `gate-prediction/${shape.seed}`,
    yieldToHost: options.yieldToHost,
    classes: new ClassRegistry([gateClass]),
    authorizer: new PrefixGrants(clients.map((name) => namespaceGrant(`spiffe://sim/${name}`, GATE_WORKLOAD.namespace))),
    arbiters: shape.arbiters,
    cluster: { members: memberNamesOf(shape.members), timing, ...(link === undefined ? {} : { peerLink: link }) },
    ...(link === undefined ? {} : { rpcLink: link }),
  });
  await world.start();
  const resource = world.addResource('register', { fenced: shape.resource !== 'unfenced', fenceMode: 'at-or-above', writeMs: 1 });
  const replicas = Array.from({ length: shape.arbiters }, (_, i) => i);
  const startMs = world.kernel.now();
  const recorder = new Recorder(() => world.kernel.now() - startMs);
  const nodes = clients.map((name) => {
    // Routed as the gate's clients route (network-arbiter.ts): by key, failing over on a refusal (issue 32).
    const routing = rendezvousFailover(world.arbiters.map((a) => a.process), (p) => p.name);
    return world.addClient(name, { arbiters: replicas, route: routing.route, wrapApi: (api) => routing.wrap(api), onSessionFenced: () => recorder.releasesOf(name).sessionFenced() });
  });
  const target = withStartUps(new SimFaultTarget(world, { holding: (client) => recorder.holds.has(client) }), options.startUpsMs ?? new Map());
  const { log: faultLog, applied } = runTargetFaults(target, faults, {
    onLog: (fault, description) => world.kernel.trace.record('fault', { kind: fault.kind, description }),
  });
  const stopAtMs = startMs + shape.durationMs;
  const keys = keyNamesOf(shape.keys);
  for (const node of nodes) void loop(node, { keys, resource, stopAtMs, recorder });
  await world.runUntil(stopAtMs + TAIL_TTLS * GATE_WORKLOAD.ttlSeconds * 1_000);
  const grants = world.log.grants;
  const expiries = grants.filter((g) => g.endReason !== undefined && g.endReason !== 'release' && g.endedAtMs !== undefined).map((g): HistoryEvent => ({ process: LOG_PROCESS, type: 'ok', f: 'expire', key: g.key, value: { token: g.token.toString(10) }, time: (g.endedAtMs as number) - startMs }));
  const events = [...recorder.events, ...expiries].sort((a, b) => a.time - b.time);
  return { events, fences: recorder.fences, applied, faultLog, traceHash: world.kernel.trace.hash() };
}

/** The gate's recorder's rule (src/gate/history/recorder.ts), on the simulator's clock. */
class Recorder {
  readonly events: HistoryEvent[] = [];
  /** The library's fences as the gate's client worker reports them (gate-fences.ts): per hold, not per session. */
  readonly fences: FenceRecord[] = [];
  /** client -> the hold it knows it has (ok acquire, no release invoked, not fenced): the `@holder` role. */
  readonly holds = new Map<string, string>();
  private readonly releases = new Map<string, ReleasedHandleFences<LockHandle>>();

  constructor(private readonly now: () => number) {}

  record(process: string, type: HistoryEvent['type'], f: string, key: string, value: unknown): void {
    this.events.push({ process, type, f, key, value: value ?? null, time: this.now() });
  }

  fence(process: string, key: string, token: bigint): void {
    this.fences.push({ holder: process, key, token, atMs: this.now() });
  }

  /** The client's released handles whose release is not answered yet (the client worker's `unconfirmed`). */
  releasesOf(process: string): ReleasedHandleFences<LockHandle> {
    let releases = this.releases.get(process);
    if (releases === undefined) this.releases.set(process, (releases = new ReleasedHandleFences()));
    return releases;
  }
}

interface LoopContext {
  readonly keys: readonly string[];
  readonly resource: SimResource;
  readonly stopAtMs: number;
  readonly recorder: Recorder;
}

/** One client of the gate (src/gate/client/client-worker.ts's loop), recorded. Never awaited: a crashed client's work never settles. */
async function loop(node: ClientNode, context: LoopContext): Promise<void> {
  const { keys, resource, stopAtMs, recorder } = context;
  const name = node.process.name;
  const clock = node.process.clock();
  const random = node.process.random('gate-client');
  const kernel = node.process.kernel;
  const between = (range: readonly [number, number]): number => randomInt(random, range[0], range[1]);
  while (kernel.now() < stopAtMs) {
    const key = keys[Math.floor(random.next() * keys.length)] as string;
    recorder.record(name, 'invoke', 'acquire', key, null);
    let handle: LockHandle;
    try {
      handle = await node.client.acquire({ key, className: GATE_WORKLOAD.className, ttlSeconds: GATE_WORKLOAD.ttlSeconds, waitMs: GATE_WORKLOAD.waitMs, onFence: () => {
        recorder.holds.delete(name);
        recorder.fence(name, key, handle.token);
      } });
    } catch (error) {
      const outcome = acquireOutcome(error);
      recorder.record(name, outcome.type, 'acquire', key, outcome.value);
      await clock.sleep(between(GATE_WORKLOAD.betweenHoldsMs));
      continue;
    }
    const token = formatToken(handle.token);
    recorder.record(name, 'ok', 'acquire', key, { token });
    recorder.holds.set(name, key);
    for (let unit = 0; unit < GATE_WORKLOAD.unitsPerHold && kernel.now() < stopAtMs; unit += 1) {
      if (!handle.canStart()) break; // ADR-12
      await clock.sleep(between(GATE_WORKLOAD.workMs)); // a pause here makes a stale writer
      recorder.record(name, 'invoke', 'write', key, { token });
      try {
        const accepted = await node.resources.write(resource, key, handle.token);
        recorder.record(name, accepted ? 'ok' : 'fail', 'write', key, accepted ? null : { refused: 'fence' });
      } catch (error) {
        const outcome = writeOutcome(error);
        recorder.record(name, outcome.type, 'write', key, outcome.value);
      }
    }
    if (handle.fenced) {
      recorder.holds.delete(name);
      await handle.release().catch(() => false); // sends nothing: no operation of the history
      continue;
    }
    recorder.record(name, 'invoke', 'release', key, { token });
    recorder.holds.delete(name);
    const releases = recorder.releasesOf(name);
    releases.watch(handle, () => recorder.fence(name, key, handle.token));
    try {
      const released = await handle.release();
      if (released) releases.confirmed(handle);
      if (!released && handle.fenced) recorder.record(name, 'fail', 'release', key, { error: 'fenced' });
      else recorder.record(name, 'ok', 'release', key, { released });
    } catch (error) {
      const outcome = releaseOutcome(error);
      recorder.record(name, outcome.type, 'release', key, outcome.value);
    }
    await clock.sleep(between(GATE_WORKLOAD.betweenHoldsMs));
  }
}
