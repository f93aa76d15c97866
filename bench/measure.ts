// The measured part of a run: raw etcd, lockstep in-process, lockstep through `lockstep serve` (plaintext
// and mTLS, issue 30) and the etcd3 Lock interleaved at each concurrency, the capacity of one mTLS serve,
// then keepalive cost, with the CPU each one spent (client, serve, etcd).
import { formatNumber } from '../core/numbers.js';
import { randomBytes } from 'node:crypto';
import { LoopTally, runSlice } from './closed-loop.js';
import { type CpuMeter, CpuTally, processCpuUs } from './cpu-meter.js';
import type { MeasuredRun } from './report.js';
import { grantWorkload } from './workloads/grant.js';
import { keepaliveWorkload } from './workloads/keepalive.js';
import { peerLockWorkload } from './workloads/peer-lock.js';
import { rawTxnWorkload } from './workloads/raw-txn.js';
import { serviceWorkload } from './workloads/service.js';
import { type FitTarget, measureFitTarget } from './fit-target.js';
import { type ServeCapacity, measureServeCapacity } from './serve-capacity.js';
import type { Workload, WorkloadName } from './workloads/workload.js';

export interface MeasureOptions {
  /** The leader's endpoint (every workload talks to it), then the others. */
  readonly endpoints: readonly string[];
  readonly durationMs: number;
  readonly concurrency: readonly number[];
  readonly keepaliveSessions: number;
  readonly cpu: CpuMeter;
  /** Measure the quorum model's fit target too (fit-target.ts): `--profile`. */
  readonly fitTarget?: boolean;
  readonly signal?: AbortSignal;
}

export type Say = (line: string, final?: boolean) => void;

export type MeasuredRuns = Record<WorkloadName, MeasuredRun[]> & { serveCapacity?: ServeCapacity; fitTarget?: FitTarget };

/** Workloads at one concurrency take turns in slices this long. */
export const SLICE_MS = 1_000;
/** Unrecorded ramp at the start of every slice after a workload's first (connections are warm by then). */
const SLICE_RAMP_MS = 100;

export class BenchInterrupted extends Error {
  constructor() {
    super('the bench was interrupted; nothing it started is left running');
  }
}

/** Warm-up before a workload's first slice at each concurrency: a tenth of the run, between 200 ms and 2 s. */
export function warmupFor(durationMs: number): number {
  return Math.min(2_000, Math.max(200, Math.round(durationMs / 10)));
}

export function checkAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted === true) throw new BenchInterrupted();
}

export async function measureWorkloads(options: MeasureOptions, say: Say): Promise<MeasuredRuns> {
  const runId = randomBytes(3).toString('hex');
  const [leader = ''] = options.endpoints;
  const maxConcurrency = Math.max(...options.concurrency);
  const onRenewalError = (message: string) => say(message);
  const results: MeasuredRuns = { rawTxn: [], grant: [], service: [], serviceTls: [], peerLock: [], keepalive: [] };
  const opened: Workload[] = [];
  try {
    say(`opening ${maxConcurrency} raw leases, ${maxConcurrency} lockstep sessions in-process and ${maxConcurrency} through each of two lockstep serve processes (plaintext, mTLS)`);
    opened.push(await rawTxnWorkload(leader, maxConcurrency, runId));
    opened.push(await grantWorkload(options.endpoints, maxConcurrency, runId, onRenewalError));
    const service = await serviceWorkload(options.endpoints, maxConcurrency, runId, onRenewalError);
    opened.push(service);
    const serviceTls = await serviceWorkload(options.endpoints, maxConcurrency, runId, onRenewalError, { tls: true });
    opened.push(serviceTls);
    opened.push(peerLockWorkload(leader, runId));
    for (const concurrency of options.concurrency) {
      for (const [name, run] of await measureInterleaved(opened, concurrency, options, say)) results[name].push(run);
    }
    if (options.fitTarget === true) results.fitTarget = await measureFitTarget(service, say, options.signal);
    checkAborted(options.signal);
    results.serveCapacity = await measureServeCapacity(serviceTls, maxConcurrency, say, options.signal);
    await Promise.all(opened.splice(0).map((w) => w.close()));
    say(`opening ${options.keepaliveSessions} sessions for the keepalive cost (ADR-10)`);
    const keepalive = await keepaliveWorkload(options.endpoints, options.keepaliveSessions, runId, onRenewalError);
    opened.push(keepalive);
    for (const concurrency of options.concurrency) {
      for (const [, run] of await measureInterleaved([keepalive], concurrency, options, say)) results.keepalive.push(run);
    }
    return results;
  } finally {
    await Promise.all(opened.map((w) => w.close().catch(() => undefined)));
  }
}

/**
 * Measures `workloads` at one concurrency in interleaved slices (round r starts with workload r mod n),
 * so a change in the machine's load during the run (the machine may be shared) falls on all of them
 * alike instead of on whichever happened to run then: the ratios are the point of the bench.
 */
async function measureInterleaved(workloads: readonly Workload[], concurrency: number, options: MeasureOptions, say: Say): Promise<Array<[WorkloadName, MeasuredRun]>> {
  const tallies = workloads.map((w) => ({ loop: new LoopTally(concurrency, w.phases), cpu: new CpuTally() }));
  const rounds = Math.max(1, Math.ceil(options.durationMs / SLICE_MS));
  const totalS = formatNumber(options.durationMs / 1000, 1);
  for (let round = 0; round < rounds; round++) {
    const sliceMs = Math.min(SLICE_MS, options.durationMs - round * SLICE_MS);
    for (let k = 0; k < workloads.length; k++) {
      const index = (round + k) % workloads.length;
      const workload = workloads[index] as Workload;
      const tally = tallies[index] as (typeof tallies)[number];
      checkAborted(options.signal);
      if (tally.loop.failing) continue;
      const label = `${workload.name} c=${concurrency}`;
      const servePid = (workload as { servePid?: number }).servePid;
      const serveBeforeUs = servePid === undefined ? undefined : processCpuUs(servePid);
      const before = options.cpu.sample();
      const completed = await runSlice({
        tally: tally.loop,
        warmupMs: round === 0 ? warmupFor(options.durationMs) : SLICE_RAMP_MS,
        durationMs: sliceMs,
        operation: workload.operation,
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        onProgress: (measuredMs, operations) => {
          if (measuredMs < 0) say(`${label} warming up`, false);
          else say(`${label} ${formatNumber(measuredMs / 1000, 1)}s/${totalS}s ${operations} ops ${Math.round((operations * 1000) / Math.max(1, measuredMs))}/s`, false);
        },
      });
      const serveAfterUs = servePid === undefined ? undefined : processCpuUs(servePid);
      tally.cpu.add(before, options.cpu.sample(), completed, serveBeforeUs === undefined || serveAfterUs === undefined ? undefined : [serveBeforeUs, serveAfterUs]);
    }
  }
  checkAborted(options.signal);
  return workloads.map((workload, i) => {
    const tally = tallies[i] as (typeof tallies)[number];
    const result = tally.loop.result();
    const cpu = tally.cpu.perOperation(options.cpu.leaderIndex);
    const primary = result.phases[workload.phases[0] ?? ''];
    const errors = result.errors > 0 ? `, ${result.errors} error(s), first: ${result.firstError ?? ''}` : '';
    const cpuText = cpu === undefined ? '' : `; CPU/op client ${cpu.clientUs} us${cpu.serveUs === undefined ? '' : `, serve ${cpu.serveUs} us`}${cpu.leaderUs === undefined ? '' : `, etcd leader ${cpu.leaderUs} us`}`;
    say(`${workload.name} c=${concurrency} ${Math.round(result.throughputPerS)}/s, ${workload.phases[0]} p50 ${primary?.p50Ms ?? 0} ms p99 ${primary?.p99Ms ?? 0} ms${cpuText}${errors}`);
    return [workload.name, { ...result, ...(cpu === undefined ? {} : { cpu }) }];
  });
}
