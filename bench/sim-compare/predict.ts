// The simulator's prediction of the bench's grant workload (--compare-sim): the same Arbiter, the same
// closed loop of acquire (waitMs 0, a fresh key each time) and release per worker, but on a simulated
// etcd cluster whose disks, links and CPUs carry the costs measured on this machine (calibration.ts).
// This is the one place bench/ imports sim/ (ARCHITECTURE.md, Layers: "except to compare a prediction").
import { authenticated } from '../../core/ports/caller.js';
import { initLog } from '../../core/arbiter/init-log.js';
import { Arbiter } from '../../core/arbiter/arbiter.js';
import type { Session } from '../../core/ports/arbiter-api.js';
import { Kernel } from '../../sim/kernel/kernel.js';
import { yieldToHost } from '../../src/host-yield.js';
import { SimProcess } from '../../sim/process/process.js';
import { chargeCpuPerCall } from '../../sim/world/cpu-charged-log.js';
import { createClusterNetwork, createSimCluster, type SimCluster } from '../../sim/cluster/cluster.js';
import { SimDriver } from '../../sim/cluster/driver.js';
import { createSimLockLog } from '../../sim/cluster/lock-log.js';
import { LatencyHistogram, type LatencySummary, round3 } from '../histogram.js';
import { BENCH_CLASS, BENCH_NAMESPACE, benchClasses, benchGrants, workerIdentity } from '../workloads/bench-world.js';
import type { SimCalibration } from './calibration.js';

export interface SimPrediction {
  readonly concurrency: number;
  readonly acquire: LatencySummary;
  readonly cycle: LatencySummary;
  readonly throughputPerS: number;
  /** Simulated time measured, and what simulating it cost. */
  readonly virtualMs: number;
  readonly wallMs: number;
  readonly events: number;
}

export interface PredictOptions {
  readonly calibration: SimCalibration;
  readonly concurrency: number;
  /** Virtual time measured after the warm-up. */
  readonly durationMs: number;
  readonly warmupMs: number;
  readonly seed: string;
  readonly signal?: AbortSignal;
}

const LEADER_WITHIN_MS = 10_000;

/** One fresh simulated world per concurrency, so each prediction stands alone and replays from its seed. */
export async function predictGrant(options: PredictOptions): Promise<SimPrediction> {
  const wallStartMs = performance.now();
  const { calibration: cal } = options;
  const kernel = new Kernel({ seed: `${options.seed}/c${options.concurrency}`, yieldToHost });
  const link = { latency: cal.oneWayLink, ordered: true } as const;
  const network = createClusterNetwork(kernel, link);
  const cluster = createSimCluster(kernel, network, {
    members: cal.members,
    peerLink: link,
    timing: { walFsync: cal.walFsync, requestCostMs: cal.requestCostMs, applyCostMs: cal.applyCostMs },
  });
  const driver = new SimDriver(kernel);
  try {
    await settleLeader(driver, cluster);
    const client = new SimProcess(kernel, { name: 'bench-client' });
    const leader = cluster.leader();
    const endpoints = leader === undefined ? cluster.members : [leader, ...cluster.members.filter((m) => m !== leader)];
    const log = chargeCpuPerCall(createSimLockLog({ kernel, network, client, endpoints }), client, cal.clientCostMsPerCall);
    const clock = client.clock();
    const arbiter = new Arbiter({ log, clock, random: client.random('arbiter'), classes: benchClasses(), authorizer: benchGrants(options.concurrency) });
    await driver.wait(initLog(log)); // the operator's first step on the new simulated log
    const sessions: Session[] = [];
    for (let i = 0; i < options.concurrency; i++) {
      sessions.push(await driver.wait(arbiter.openSession(authenticated(workerIdentity(i)), { ttlSeconds: BENCH_CLASS.ttlSeconds })));
    }
    const acquire = new LatencyHistogram();
    const cycle = new LatencyHistogram();
    const measureFromMs = clock.now() + options.warmupMs;
    const endMs = measureFromMs + options.durationMs;
    let operations = 0;
    let failure: unknown;
    const worker = async (index: number): Promise<void> => {
      const session = sessions[index] as Session;
      for (let iteration = 0; clock.now() < endMs && failure === undefined; iteration++) {
        const key = `${BENCH_NAMESPACE}/sim/w${index}-${iteration}`;
        const startMs = clock.now();
        const grant = await arbiter.acquire(authenticated(session.identity), { sessionId: session.sessionId, key, className: BENCH_CLASS.name, waitMs: 0 });
        const acquiredMs = clock.now() - startMs;
        await arbiter.release(authenticated(session.identity), { sessionId: session.sessionId, key, token: grant.token });
        const endedMs = clock.now();
        if (endedMs < measureFromMs || endedMs > endMs) continue;
        operations += 1;
        acquire.record(acquiredMs);
        cycle.record(endedMs - startMs);
      }
    };
    const workers = Array.from({ length: options.concurrency }, (_, i) =>
      worker(i).catch((error: unknown) => {
        failure ??= error;
      }),
    );
    // Virtual time runs exactly while the workers wait on the world; the run ends at the window's end.
    await driver.wait(Promise.all(workers));
    if (failure !== undefined) throw failure;
    arbiter.close();
    return {
      concurrency: options.concurrency,
      acquire: acquire.summary(),
      cycle: cycle.summary(),
      throughputPerS: round3((operations * 1000) / options.durationMs),
      virtualMs: options.warmupMs + options.durationMs,
      wallMs: Math.round(performance.now() - wallStartMs),
      events: kernel.eventsExecuted,
    };
  } finally {
    driver.stop();
  }
}

async function settleLeader(driver: SimDriver, cluster: SimCluster): Promise<void> {
  const ok = await driver.runUntil(() => cluster.leader()?.state?.lessor.isPrimary() === true, LEADER_WITHIN_MS);
  if (!ok) throw new Error(`the simulated cluster elected no leader within ${LEADER_WITHIN_MS} ms of virtual time`);
}
