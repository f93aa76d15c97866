// One bench run, start to finish: a cluster (a throwaway local one, or the operator's), the disk floor and
// loopback probes, the measured workloads (measure.ts), then, if asked, the simulator's prediction of the
// same workload from the measured costs. Always stops what it started, also when `signal` aborts (Ctrl-C).
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { runCapacity } from './capacity.js';
import { type EtcdCluster, startEtcdCluster } from '../src/testing/etcd-cluster.js';
import { initEtcdLog } from '../src/etcd/index.js';
import { CpuMeter } from './cpu-meter.js';
import { type BenchEnvironment, describeDisk, describeMachine, probeCluster } from './environment.js';
import { FSYNC_BLOCK_BYTES, probeFsync } from './fsync-probe.js';
import { checkAborted, type MeasuredRuns, measureWorkloads, type Say, warmupFor } from './measure.js';
import { hopReport } from './hop-report.js';
import { buildProfile, type HardwareProfile, servedHopCosts } from './profile.js';
import { type BenchReport, type WorkloadReport, computeRatios, judgeGoals, workloadReport } from './report.js';
import { probeLoopbackRtt } from './rtt-probe.js';
import { calibrate } from './sim-compare/calibration.js';
import { type SimComparison, compareWithSimulator } from './sim-compare/compare.js';

export { BenchInterrupted } from './measure.js';

export type BenchTarget = { readonly kind: 'local'; readonly members: 1 | 3 } | { readonly kind: 'endpoints'; readonly endpoints: readonly string[] };

export interface BenchOptions {
  readonly target: BenchTarget;
  /** Measured time per workload and concurrency. */
  readonly durationMs: number;
  /** Ascending, distinct. */
  readonly concurrency: readonly number[];
  /** Sessions the keepalive workload renews; default max(64, 4 x the highest concurrency), at most 1024. */
  readonly keepaliveSessions?: number;
  readonly compareSim?: boolean;
  /** Measure the quorum model's fit target (bench/fit-target.ts); `--profile` asks for it. */
  readonly fitTarget?: boolean;
  /** Seed of the simulated worlds (--compare-sim). */
  readonly simSeed?: string;
  /** The sessions/holds capacity run through a lockstep serve process (capacity.ts); default none. */
  readonly capacity?: CapacitySettings;
  readonly signal?: AbortSignal;
  /** A progress line; `final` when it ends a step (a terminal keeps it, a live line is overwritten). */
  readonly progress?: (line: string, final: boolean) => void;
}

export interface CapacitySettings {
  readonly sessions: number;
  readonly holdsPerSession: number;
  readonly renewForMs: number;
}

export interface BenchOutcome {
  readonly report: BenchReport;
  readonly profile: HardwareProfile;
}

const MAX_KEEPALIVE_SESSIONS = 1024;
export const DEFAULT_SIM_SEED = 'lockstep-bench';

export async function runBench(options: BenchOptions): Promise<BenchOutcome> {
  const say: Say = (line, final = true) => options.progress?.(`bench: ${line}`, final);
  const startedMs = performance.now();
  const startedAt = new Date().toISOString();
  let cluster: EtcdCluster | undefined;
  try {
    if (options.target.kind === 'local') {
      say(`starting a ${options.target.members}-member etcd on loopback (data dirs under ${tmpdir()})`);
      cluster = await startEtcdCluster({ members: options.target.members });
      await initEtcdLog(cluster.endpoints); // lockstep init: an operator's cluster (--endpoints) is initialised by its operator
    }
    const endpoints = cluster?.endpoints ?? (options.target.kind === 'endpoints' ? options.target.endpoints : []);
    checkAborted(options.signal);
    const clusterInfo = await probeCluster(endpoints);
    // The disk under test is the data dir's: the first member's when local; this machine's temp dir
    // otherwise (the remote members' disks cannot be probed from here: the report says which dir).
    const fsyncDir = cluster?.members[0]?.dataDir ?? tmpdir();
    const env: BenchEnvironment = { ...clusterInfo, local: cluster !== undefined, ...describeMachine(), disk: describeDisk(fsyncDir), startedAt };
    say(`etcd ${env.etcdVersion}, ${env.members} member(s), talking to ${env.endpoint}${env.endpointIsLeader ? ' (the leader)' : ''}; ${env.cores} cores`);
    const floors = await probeFloors(fsyncDir, options, say);
    const leaderIndex = cluster?.members.findIndex((m) => sameEndpoint(m.clientUrl, clusterInfo.endpoint));
    const cpu = new CpuMeter(() => cluster?.members.map((m) => m.pid) ?? endpoints.map(() => undefined), leaderIndex === undefined || leaderIndex < 0 ? undefined : leaderIndex);
    const keepaliveSessions = options.keepaliveSessions ?? Math.min(MAX_KEEPALIVE_SESSIONS, Math.max(64, 4 * Math.max(...options.concurrency)));
    // The leader first, so every workload pays the same hops (a follower would forward each write).
    const ordered = [clusterInfo.endpoint, ...endpoints.filter((e) => !sameEndpoint(e, clusterInfo.endpoint))];
    const measured = await measureWorkloads({ endpoints: ordered, durationMs: options.durationMs, concurrency: options.concurrency, keepaliveSessions, cpu, fitTarget: options.fitTarget === true, ...(options.signal === undefined ? {} : { signal: options.signal }) }, say);
    return await assemble({ options, env, floors, measured, keepaliveSessions, endpoints, startedMs, say });
  } finally {
    if (cluster !== undefined) {
      say('stopping the local etcd cluster');
      await cluster.stop();
    }
  }
}

interface Floors {
  readonly fsync: ReturnType<typeof probeFsync>;
  readonly rtt: Awaited<ReturnType<typeof probeLoopbackRtt>>;
}

async function probeFloors(fsyncDir: string, options: BenchOptions, say: Say): Promise<Floors> {
  say(`disk floor: write ${FSYNC_BLOCK_BYTES} B + fdatasync in ${fsyncDir}`);
  const signal = options.signal === undefined ? {} : { signal: options.signal };
  const fsync = probeFsync({ dir: fsyncDir, maxSamples: 5_000, maxDurationMs: Math.min(10_000, Math.max(1_000, options.durationMs / 2)), ...signal });
  const rtt = await probeLoopbackRtt({ maxSamples: 2_000, maxDurationMs: 1_000, ...signal });
  say(`disk floor: fdatasync p50 ${fsync.result.p50Ms} ms, p99 ${fsync.result.p99Ms} ms (${fsync.result.count} samples); loopback RTT p50 ${rtt.result.p50Ms} ms`);
  checkAborted(options.signal);
  return { fsync, rtt };
}

interface Assembly {
  readonly options: BenchOptions;
  readonly env: BenchEnvironment;
  readonly floors: Floors;
  readonly measured: MeasuredRuns;
  readonly keepaliveSessions: number;
  readonly endpoints: readonly string[];
  readonly startedMs: number;
  readonly say: Say;
}

/** The report from what was measured: the calibrated profile, the simulation and the capacity run when asked. */
async function assemble(a: Assembly): Promise<BenchOutcome> {
  const { options, env, floors, measured } = a;
  const [rawTxn, grant, service, serviceTls, peerLock, keepaliveBase] = (['rawTxn', 'grant', 'service', 'serviceTls', 'peerLock', 'keepalive'] as const).map((name) => workloadReport(name, measured[name])) as [WorkloadReport, WorkloadReport, WorkloadReport, WorkloadReport, WorkloadReport, WorkloadReport];
  const bestKeepalivesPerS = Math.max(0, ...keepaliveBase.runs.map((r) => r.throughputPerS));
  const bareProfile = buildProfile(env, floors.fsync.samplesMs, floors.rtt.samplesMs);
  const cpuByConcurrency = grant.runs.map((run) => {
    const { requestCostMs, applyCostMs, clientCostMsPerCall, fromConcurrency } = calibrate(bareProfile, run, env.members).calibration;
    return { requestCostMs, applyCostMs, clientCostMsPerCall, fromConcurrency, ...servedHopCosts(run, service.runs.find((r) => r.concurrency === run.concurrency), measured.fitTarget) };
  });
  const profile: HardwareProfile = { ...bareProfile, cpuByConcurrency };
  const compareSim = await simulate(options, profile, grant, env, a.say);
  checkAborted(options.signal);
  const capacity = options.capacity === undefined ? undefined : await runCapacity({ ...options.capacity, endpoints: a.endpoints, runId: randomBytes(3).toString('hex'), say: a.say });
  const ratios = computeRatios(rawTxn, grant, peerLock, service);
  const report: BenchReport = {
    env: { ...env, durationMsPerRun: options.durationMs, warmupMsPerRun: warmupFor(options.durationMs), concurrency: options.concurrency, elapsedS: Math.round((performance.now() - a.startedMs) / 100) / 10 },
    fsync: floors.fsync.result,
    loopbackRtt: floors.rtt.result,
    rawTxn,
    grant,
    service,
    serviceTls,
    peerLock,
    keepalive: { ...keepaliveBase, throughputPerS: bestKeepalivesPerS, sessions: a.keepaliveSessions, sessionsSustainedAt5sRenewal: Math.floor(bestKeepalivesPerS * 5) },
    ratios,
    goals: judgeGoals(ratios, compareSim, env),
    hop: hopReport({ floor: rawTxn, inProcess: grant, service, serviceTls }, measured.serveCapacity),
    compareSim,
    ...(capacity === undefined ? {} : { capacity }),
  };
  return { report, profile };
}

async function simulate(options: BenchOptions, profile: HardwareProfile, grant: BenchReport['grant'], env: BenchEnvironment, say: Say): Promise<SimComparison> {
  if (options.compareSim !== true) return { status: 'not-requested' };
  checkAborted(options.signal);
  say('compare-sim: simulating the grant workload with the measured disk, network and CPU costs');
  try {
    const comparison = await compareWithSimulator({
      profile,
      grant,
      members: env.members,
      durationMs: options.durationMs,
      seed: options.simSeed ?? DEFAULT_SIM_SEED,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      onRow: (row) => say(`compare-sim c=${row.concurrency}: acquire p50 predicted ${row.predicted.p50Ms} ms vs measured ${row.measured.p50Ms} ms, p99 ${row.predicted.p99Ms} vs ${row.measured.p99Ms} ms (${row.simulated.wallMs} ms to simulate ${row.simulated.virtualMs} ms)`),
    });
    checkAborted(options.signal);
    return comparison;
  } catch (error) {
    checkAborted(options.signal);
    return { status: 'failed', note: `the simulation failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

function sameEndpoint(a: string, b: string): boolean {
  const strip = (e: string) => e.trim().replace(/^http:\/\//, '');
  return strip(a) === strip(b);
}
