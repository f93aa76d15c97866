// `lockstep ttl --measure`'s workload on real processes (issue 32): holders (holder-worker.ts, each a
// process of its own) keep one hold each on a `lockstep serve` arbiter; each in turn is frozen (SIGSTOP)
// for a fixed pause at a random phase of its keepalive period, then resumed and watched: a fence within
// the watch is a false fence (the holder did not crash; ADR-12's deadline passed while it was frozen).
// The share of pauses that fenced is measured with a Wilson interval; `lockstep ttl`'s model predicts it
// (core/planner/liveness.ts falseFencesPerSessionHourFromPauses: fences per pause at one pause an hour).
import { type ChildProcess, fork } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { falseFencesPerSessionHourFromPauses } from '../../core/planner/liveness.js';
import { roundTo } from '../../core/numbers.js';
import { type ProportionInterval, wilsonInterval, withinInterval } from '../../core/planner/wilson-interval.js';
import { sleepMs } from '../clock/index.js';
import { entryUrl } from '../repo-root.js';
import { reapOnExit } from '../testing/process-reaper.js';
import type { FromHolder, HolderConfig, ToHolder } from './holder-protocol.js';
import { MeasureInterrupted, type MeasureContext } from './measure-run.js';
import { clientName, identityOf, MEASURE_NAMESPACE, type RealTopology } from './real-topology.js';

const HOLDER_ENTRY = entryUrl('src/planner-measure/holder-worker.ts', new URL('./holder-entry.mjs', import.meta.url));
/** After a resume, how long a fence still counts as the pause's: the deadline check and one keepalive round trip. */
export const WATCH_AFTER_RESUME_MS = 2_500;
const HELD_WAIT_MS = 90_000;
/** The least wait between a hold and its next pause: the holder's first keepalives are under way. */
const SETTLE_MS = 500;

export const ttlClassName = (ttlSeconds: number): string => `ttl-${ttlSeconds}`;

/** The pause the measurement injects by default: the model's fence share is one half (slack 2T/3 - 1 s, plus half a period). */
export function defaultPauseMs(ttlSeconds: number): number {
  return Math.round((ttlSeconds * 1_000 * 5) / 6 - 1_000);
}

/** `lockstep ttl`'s predicted share of pauses of `pauseMs` that fence a holder of this TTL (uniform phase). */
export function predictedFenceShare(ttlSeconds: number, pauseMs: number): number {
  return falseFencesPerSessionHourFromPauses(ttlSeconds, 1, () => pauseMs);
}

export interface FenceRequest {
  readonly ttlSeconds: number;
  readonly pauseMs: number;
  /** Pauses in all, shared out among the holders. */
  readonly pauses: number;
  readonly holders: number;
}

export interface FenceMeasurement {
  readonly ttlSeconds: number;
  /** The pause asked for, and as injected: SIGSTOP to SIGCONT, which a loaded host lengthens. */
  readonly pauseMs: number;
  readonly meanPauseMs: number;
  readonly maxPauseMs: number;
  readonly holders: number;
  /** The model's chance of a fence for each pause as injected, averaged (uniform phase). */
  readonly predictedShare: number;
  /** Fenced pauses of all pauses, with its 95% Wilson interval. */
  readonly measured: ProportionInterval;
  readonly predictedWithinInterval: boolean;
  /** Fences outside every pause's watch: should be none (no crash, no partition). */
  readonly unprovokedFences: number;
  /** Every fence by the library's reason (core/client FenceReason): 'deadline' is ADR-12's local deadline. */
  readonly fenceReasons: Readonly<Record<string, number>>;
}

/** One holder process and what it said. */
class Holder {
  fences = 0;
  readonly reasons = new Map<string, number>();
  held = false;
  private wake: (() => void) | undefined;
  problem: string | undefined;

  constructor(readonly child: ChildProcess) {
    child.on('message', (message: FromHolder) => {
      if (message.t === 'held') this.held = true;
      else if (message.t === 'fenced') {
        this.fences += 1;
        this.held = false;
        this.reasons.set(message.reason, (this.reasons.get(message.reason) ?? 0) + 1);
      }
      else this.problem = message.message;
      this.wake?.();
    });
    child.once('exit', (code, signal) => {
      this.problem ??= `exited: ${signal ?? `exit code ${code}`}`;
      this.wake?.();
    });
  }

  /** Resolves when `ready()` holds, or throws after `limitMs` or when the holder failed. */
  async until(ready: () => boolean, limitMs: number): Promise<boolean> {
    const deadline = performance.now() + limitMs;
    while (!ready() && this.problem === undefined && performance.now() < deadline) {
      await Promise.race([new Promise<void>((resolve) => (this.wake = resolve)), sleepMs(Math.max(0, deadline - performance.now()))]);
    }
    if (this.problem !== undefined) throw new Error(`a measured holder failed: ${this.problem}`);
    return ready();
  }

  signal(signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): void {
    try {
      this.child.kill(signal);
    } catch {
      // gone already
    }
  }
}

function startHolder(real: RealTopology, index: number, ttlSeconds: number): Holder {
  const child = fork(HOLDER_ENTRY, [], { execArgv: [], stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });
  reapOnExit(child);
  const name = clientName(index);
  const config: HolderConfig = { identity: identityOf(name), arbiter: real.arbiterAddress, dial: real.dialFor(index), className: ttlClassName(ttlSeconds), ttlSeconds, key: `${MEASURE_NAMESPACE}/ttl-${ttlSeconds}-${index}` };
  child.send({ t: 'start', config } satisfies ToHolder);
  return new Holder(child);
}

/** Pauses holders of one TTL `request.pauses` times and counts the fences. */
export async function measureFalseFences(real: RealTopology, request: FenceRequest, context: MeasureContext): Promise<FenceMeasurement> {
  const holders = Array.from({ length: request.holders }, (_, i) => startHolder(real, i, request.ttlSeconds));
  let fenced = 0;
  let done = 0;
  const actualMs: number[] = [];
  try {
    const periodMs = (request.ttlSeconds * 1_000) / 3;
    const ticker = setInterval(() => context.progress(`ttl ${request.ttlSeconds} s: ${done}/${request.pauses} pauses of ${request.pauseMs} ms, ${fenced} fenced`), 5_000);
    try {
      await Promise.all(
        holders.map(async (holder, i) => {
          const mine = Math.floor(request.pauses / request.holders) + (i < request.pauses % request.holders ? 1 : 0);
          for (let k = 0; k < mine; k++) {
            if (context.signal.aborted) throw new MeasureInterrupted();
            if (!(await holder.until(() => holder.held, HELD_WAIT_MS))) throw new Error(`a measured holder did not hold its key within ${HELD_WAIT_MS / 1000} s`);
            await sleepMs(SETTLE_MS + Math.random() * periodMs); // a uniform phase of the keepalive period
            const before = holder.fences;
            const stoppedAtMs = performance.now();
            holder.signal('SIGSTOP');
            await sleepMs(request.pauseMs);
            holder.signal('SIGCONT');
            actualMs.push(performance.now() - stoppedAtMs); // a loaded host wakes this timer late: the pause is longer
            if (await holder.until(() => holder.fences > before, WATCH_AFTER_RESUME_MS)) fenced += 1;
            done += 1;
          }
        }),
      );
    } finally {
      clearInterval(ticker);
    }
  } finally {
    for (const holder of holders) {
      holder.signal('SIGCONT');
      holder.signal('SIGKILL');
    }
  }
  const measured = wilsonInterval(fenced, done);
  // The model asked about the pauses as they were: each one's chance of a fence, averaged.
  const predictedShare = roundTo(actualMs.reduce((sum, ms) => sum + predictedFenceShare(request.ttlSeconds, ms), 0) / Math.max(1, actualMs.length), 4);
  const meanPauseMs = roundTo(actualMs.reduce((a, b) => a + b, 0) / Math.max(1, actualMs.length), 0);
  return { ttlSeconds: request.ttlSeconds, pauseMs: request.pauseMs, meanPauseMs, maxPauseMs: roundTo(Math.max(0, ...actualMs), 0), holders: request.holders, predictedShare, measured, predictedWithinInterval: withinInterval(measured, predictedShare), unprovokedFences: holders.reduce((n, h) => n + h.fences, 0) - fenced, fenceReasons: reasonsOf(holders) };
}

function reasonsOf(holders: readonly Holder[]): Record<string, number> {
  const all: Record<string, number> = {};
  for (const holder of holders) for (const [reason, n] of holder.reasons) all[reason] = (all[reason] ?? 0) + n;
  return all;
}
