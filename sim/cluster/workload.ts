// A plain client workload on a simulated cluster, for the determinism check and the speed measurement:
// lease sessions that keep alive on a fixed period (as the client library's sessions do, ADR-10) and an
// open-loop stream of writes (puts on leased keys) at a fixed rate, spread over a few client processes.
// Everything runs inside the simulation: the loops sleep on their process's clock and await SimLockLog.
import { isLockLogError } from '../../core/ports/lock-log-error.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import type { LeaseId } from '../../core/units.js';
import { SimProcess } from '../process/process.js';
import type { SimCluster } from './cluster.js';
import { createSimLockLog } from './lock-log.js';

export interface SessionWorkloadOptions {
  readonly cluster: SimCluster;
  /** Lease sessions, spread round-robin over the client processes. */
  readonly sessions: number;
  readonly keepaliveIntervalMs: number;
  readonly ttlSeconds: number;
  /** Writes per second over all clients (open loop: a slow answer does not slow the offered rate). */
  readonly writesPerSecond: number;
  /** Client processes (each with one SimLockLog whose endpoints start at a different member). Default 4. */
  readonly clients?: number;
  /** Name prefix of the client processes. Default 'client-'. */
  readonly clientPrefix?: string;
}

export interface WorkloadStats {
  keepalivesOk: number;
  /** Keepalives that failed or found the lease gone (TTL 0). */
  keepalivesFailed: number;
  writesOk: number;
  writesFailed: number;
  grantsFailed: number;
  /** Per error code, over every failed call. */
  readonly errors: Record<string, number>;
}

export interface SessionWorkload {
  readonly stats: WorkloadStats;
  /** Stops every loop after its current call. */
  stop(): void;
}

/** What the workload's loops share: the options, the counters, the leases granted so far, and whether to stop. */
interface WorkloadRun {
  readonly options: SessionWorkloadOptions;
  readonly stats: WorkloadStats;
  readonly leases: LeaseId[];
  readonly clientCount: number;
  stopped: boolean;
}

/** Starts the workload's loops; run the kernel to make them go. */
export function startSessionWorkload(options: SessionWorkloadOptions): SessionWorkload {
  const { cluster } = options;
  const stats: WorkloadStats = { keepalivesOk: 0, keepalivesFailed: 0, writesOk: 0, writesFailed: 0, grantsFailed: 0, errors: {} };
  const clientCount = Math.max(1, options.clients ?? 4);
  const clients = Array.from({ length: clientCount }, (_, i) => {
    const process = new SimProcess(cluster.kernel, { name: `${options.clientPrefix ?? 'client-'}${i + 1}` });
    const members = cluster.members;
    const endpoints = members.map((_, j) => members[(i + j) % members.length]!);
    return { process, log: createSimLockLog({ kernel: cluster.kernel, network: cluster.network, client: process, endpoints }) };
  });
  const run: WorkloadRun = { options, stats, leases: [], clientCount, stopped: false };
  for (let i = 0; i < options.sessions; i++) {
    const client = clients[i % clientCount]!;
    void session(run, client.process, client.log, i);
  }
  if (options.writesPerSecond > 0) clients.forEach((client, i) => void writer(run, client.process, client.log, i));
  return {
    stats,
    stop: () => {
      run.stopped = true;
    },
  };
}

function noteError(stats: WorkloadStats, error: unknown): void {
  const code = isLockLogError(error) ? error.code : 'thrown';
  stats.errors[code] = (stats.errors[code] ?? 0) + 1;
}

/** One lease session: grant, then keep alive every interval; a lease the cluster lost is replaced. */
async function session(run: WorkloadRun, process: SimProcess, log: LockLog, index: number): Promise<void> {
  const { options, stats } = run;
  const clock = process.clock();
  // Sessions open at spread-out times, as real clients would.
  await clock.sleep((index * options.keepaliveIntervalMs) / options.sessions);
  let lease: LeaseId | undefined;
  while (!run.stopped) {
    if (lease === undefined) {
      lease = await log.leaseGrant(options.ttlSeconds).then(
        (granted) => granted.id,
        (error: unknown) => {
          stats.grantsFailed++;
          noteError(stats, error);
          return undefined;
        },
      );
      if (lease !== undefined) run.leases.push(lease);
    } else {
      const answer = await log.leaseKeepAlive(lease).then(
        (response) => (response.ttlSeconds > 0 ? 'alive' : 'gone'),
        (error: unknown) => {
          noteError(stats, error);
          return 'failed';
        },
      );
      if (answer === 'alive') stats.keepalivesOk++;
      else stats.keepalivesFailed++;
      // A lease the cluster no longer has is replaced by a new one (the client library opens a new session).
      if (answer === 'gone') lease = undefined;
    }
    await clock.sleep(options.keepaliveIntervalMs);
  }
}

/** One client's share of the open-loop writes: a put every period, never waiting for the answer. */
async function writer(run: WorkloadRun, process: SimProcess, log: LockLog, writerIndex: number): Promise<void> {
  const { options, stats, leases, clientCount } = run;
  const clock = process.clock();
  const periodMs = (1_000 * clientCount) / options.writesPerSecond;
  await clock.sleep((writerIndex * periodMs) / clientCount);
  for (let n = 0; !run.stopped; n++) {
    const lease = leases.length > 0 ? leases[n % leases.length] : undefined;
    const key = `/l/workload/${writerIndex}/${n % 64}`;
    void log.txn({ compare: [], success: [{ type: 'put', key, value: `v${n}`, ...(lease === undefined ? {} : { lease }) }], failure: [] }).then(
      () => void stats.writesOk++,
      (error: unknown) => {
        stats.writesFailed++;
        noteError(stats, error);
      },
    );
    await clock.sleep(periodMs);
  }
}
