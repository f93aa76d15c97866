// The explorer's runs spread over worker threads (node:worker_threads), each running one exploration run
// at a time from a shared queue in seed order. With `stopAtFirstFailure`, no run after the first failing
// one (in seed order) is started, but every run before it finishes: the first failure, and so
// runs-to-first-failure, is the same whatever the number of workers. One worker (or none) runs inline.
import { Worker } from 'node:worker_threads';
import { type RunVerdict, exploreRun } from '../../scenarios/explore.js';
import { toJson } from '../../scenarios/history.js';
import { type ProfileSpec, profileOf, watchdog } from './profile.js';
import { yieldToHost } from '../host-yield.js';
import { entryUrl } from '../repo-root.js';
import type { FromWorker, ToWorker } from './protocol.js';

export interface PoolOptions {
  readonly spec: ProfileSpec;
  readonly baseSeed: number;
  /** Run numbers in the order to run them (a shard's share). */
  readonly runs: readonly number[];
  readonly workers: number;
  readonly stopAtFirstFailure: boolean;
  /** After each run, with how many are done. */
  readonly onVerdict?: (verdict: RunVerdict, done: number) => void;
}

export interface PoolFailure {
  readonly verdict: RunVerdict;
  /** The failed run's artifact (absent for a crash). */
  readonly artifactJson?: string;
}

export interface PoolResult {
  /** Every completed run, in the order of `runs`. */
  readonly verdicts: readonly RunVerdict[];
  /** Failures in the order of `runs`. */
  readonly failures: readonly PoolFailure[];
  /** 1-based position in `runs` of the first failure. */
  readonly runsToFirstFailure: number | undefined;
}

export async function runPool(options: PoolOptions): Promise<PoolResult> {
  const results = new Map<number, PoolFailure>();
  const positionOf = new Map(options.runs.map((run, position) => [run, position]));
  let firstFailure = Number.POSITIVE_INFINITY;
  const record = (verdict: RunVerdict, artifactJson: string | undefined): void => {
    results.set(verdict.run, { verdict, ...(artifactJson === undefined ? {} : { artifactJson }) });
    if (!verdict.ok) firstFailure = Math.min(firstFailure, positionOf.get(verdict.run) ?? Number.POSITIVE_INFINITY);
    options.onVerdict?.(verdict, results.size);
  };
  let next = 0;
  const take = (): number | undefined => {
    if (next >= options.runs.length || (options.stopAtFirstFailure && next > firstFailure)) return undefined;
    return options.runs[next++];
  };
  if (options.workers <= 1) await runInline(options, take, record);
  else await runThreads(options, take, record);
  const completed = options.runs.flatMap((run) => {
    const result = results.get(run);
    return result === undefined ? [] : [result];
  });
  return {
    verdicts: completed.map((r) => r.verdict),
    failures: completed.filter((r) => !r.verdict.ok),
    runsToFirstFailure: Number.isFinite(firstFailure) ? firstFailure + 1 : undefined,
  };
}

async function runInline(options: PoolOptions, take: () => number | undefined, record: (verdict: RunVerdict, artifactJson: string | undefined) => void): Promise<void> {
  const profile = profileOf(options.spec);
  for (let run = take(); run !== undefined; run = take()) {
    const result = await exploreRun(profile, options.spec.variant, options.baseSeed, run, yieldToHost, watchdog);
    record(result.verdict, result.verdict.ok || result.artifact === undefined ? undefined : toJson(result.artifact));
  }
}

function runThreads(options: PoolOptions, take: () => number | undefined, record: (verdict: RunVerdict, artifactJson: string | undefined) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const count = Math.min(options.workers, Math.max(1, options.runs.length));
    const workers: Worker[] = [];
    let busy = 0;
    let failed = false;
    const fail = (error: Error): void => {
      if (failed) return;
      failed = true;
      for (const worker of workers) void worker.terminate();
      reject(error);
    };
    const feed = (worker: Worker): void => {
      const run = take();
      if (run === undefined) {
        worker.postMessage({ type: 'stop' } satisfies ToWorker);
        void worker.terminate();
        if (busy === 0 && !failed) resolve();
        return;
      }
      busy += 1;
      worker.postMessage({ type: 'run', run } satisfies ToWorker);
    };
    for (let i = 0; i < count; i += 1) {
      const worker = new Worker(entryUrl('src/explore/worker.ts', new URL('./worker-entry.mjs', import.meta.url)), { workerData: { spec: options.spec, baseSeed: options.baseSeed } });
      workers.push(worker);
      worker.on('error', (error) => fail(error));
      worker.on('message', (message: FromWorker) => {
        if (failed) return;
        if (message.type === 'error') return fail(new Error(`explore worker, run ${message.run}: ${message.message}`));
        if (message.type === 'verdict') {
          busy -= 1;
          record(message.verdict, message.artifactJson);
        }
        feed(worker);
      });
    }
  });
}
