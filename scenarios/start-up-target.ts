// A restart that serves only after its start-up (issue 32). The simulator's arbiter restart is instant; a
// real `lockstep serve` is a node start and an etcd connect, seconds on a loaded machine, and its link
// proxies refuse connects until it serves (src/gate/real-cluster.ts). Under `--focus crash-arbiter` at load
// 20-23 (5 m, seed 1) 31 of 51 restarts had not served when the schedule crashed that arbiter again, and
// 27 of 51 crashes of one arbiter came while the other was still starting: both down, every call refused,
// the next grant 6.1 s (median) where the simulator, with the other up, predicted 0.45 s.
//
// The gate measures each restart's start-up (start to serving, or none when it was crashed first) and the
// prediction replays them: the nth restart of an arbiter comes back that long after the fault, and a crash
// before then ends the start (the process is "running" meanwhile, as the real target reports a starting
// serve). The start-up is the host's, not the protocol's: replayed as measured, not modelled.
import { formatMs } from '../core/numbers.js';
import { percentile } from '../core/planner/percentiles.js';
import type { FaultTarget } from './fault-target.js';

/** Per process, the start-up of each restart in order: ms from the restart to serving, or null when it never served. */
export type StartUpsMs = ReadonlyMap<string, readonly (number | null)[]>;

/** `inner`, with each listed restart delayed by its start-up; a process or restart not listed comes back at once. */
export function withStartUps(inner: FaultTarget, startUpsMs: StartUpsMs): FaultTarget {
  const restartsSoFar = new Map<string, number>();
  /** Processes whose start is under way: each one's start, cancelled by a crash. */
  const starting = new Map<string, { cancelled: boolean }>();
  const restart = (process: string): void | Promise<void> => {
    const n = restartsSoFar.get(process) ?? 0;
    restartsSoFar.set(process, n + 1);
    const startUpMs = startUpsMs.get(process)?.[n];
    if (startUpMs === undefined) return inner.restart(process);
    const start = { cancelled: false };
    starting.set(process, start);
    if (startUpMs === null) return; // never served: the next crash (or the run's end) comes first
    inner.after(startUpMs, () => {
      if (start.cancelled) return;
      starting.delete(process);
      void inner.restart(process);
    });
  };
  const crash = (process: string, powerLoss: boolean): void | Promise<void> => {
    const start = starting.get(process);
    if (start === undefined) return inner.crash(process, powerLoss);
    start.cancelled = true; // kill -9 of a serve still starting: it stays down
    starting.delete(process);
  };
  return {
    now: () => inner.now(),
    after: (ms, run) => inner.after(ms, run),
    resolve: (target) => inner.resolve(target),
    stateOf: (process) => (starting.has(process) ? 'running' : inner.stateOf(process)),
    pause: (process) => inner.pause(process),
    resume: (process) => inner.resume(process),
    crash,
    restart,
    partition: (from, to, oneWay) => inner.partition(from, to, oneWay),
    slowLink: (from, to, extraDelayMs, oneWay) => inner.slowLink(from, to, extraDelayMs, oneWay),
    driftClock: (process, ppm) => inner.driftClock(process, ppm),
    stepClock: (process, deltaMs, clock) => inner.stepClock(process, deltaMs, clock),
    stallDisk: (member, durationMs) => inner.stallDisk(member, durationMs),
    cannot: (kind) => inner.cannot(kind),
  };
}

/** One line for the gate's progress: how many restarts are replayed, their median and longest start-up, how many never served. */
export function describeStartUps(startUpsMs: StartUpsMs): string {
  const all = [...startUpsMs.values()].flat();
  const served = all.filter((ms): ms is number => ms !== null).sort((a, b) => a - b);
  if (all.length === 0) return 'no arbiter restart to replay';
  const times = served.length === 0 ? '' : `, served after ${formatMs(percentile(served, 0.5), 0)} (median, longest ${formatMs(served[served.length - 1] as number, 0)})`;
  return `${all.length} arbiter restarts replayed with their measured start-ups${times}, ${all.length - served.length} never served (crashed again first)`;
}
