// Drives a FaultTarget through a fault schedule (issue 15). A stand-in, kept small on purpose, until the
// shared dispatcher (scenarios/ applyTargetFault, being written on branch `ftarget`) lands on main: then
// this file goes, and the gate calls that. Same rules as the simulator's scheduleFaults: roles resolve
// when the fault fires, a fault that does not apply then (resume a process that is not paused, no
// holder) is skipped and logged, a pause with forMs resumes the process it stopped.
import { formatMs } from '../../core/numbers.js';
import type { Fault } from '../../scenarios/faults.js';
import type { FaultTarget, HealLink } from '../../scenarios/fault-target.js';

export interface FaultLogLine {
  readonly atMs: number;
  readonly kind: Fault['kind'] | 'resume';
  readonly outcome: 'injected' | 'skipped' | 'failed';
  readonly what: string;
}

export interface FaultRun {
  readonly lines: FaultLogLine[];
  /** Resolves when every fault (and every pause's own resume) has been applied. */
  readonly done: Promise<void>;
  /** Heals every partition and slow link still in force (the workload's end). */
  healAll(): Promise<void>;
}

export function runFaults(target: FaultTarget & { refreshLeader?: () => Promise<void> }, faults: readonly Fault[]): FaultRun {
  const lines: FaultLogLine[] = [];
  const heals = new Map<string, HealLink>();
  const pending = new Set<Promise<void>>();
  const log = (kind: FaultLogLine['kind'], outcome: FaultLogLine['outcome'], what: string): void => void lines.push({ atMs: Math.round(target.now()), kind, outcome, what });
  const attempt = (kind: FaultLogLine['kind'], what: string, act: () => void | Promise<void>): Promise<void> =>
    Promise.resolve()
      .then(act)
      .then(
        () => log(kind, 'injected', what),
        (error: unknown) => log(kind, 'failed', `${what}: ${error instanceof Error ? error.message : String(error)}`),
      );
  const track = (work: Promise<void>): void => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };

  const apply = async (fault: Fault): Promise<void> => {
    await target.refreshLeader?.();
    const resolve = (name: string): string => target.resolve(name);
    switch (fault.kind) {
      case 'partition':
      case 'slow-link': {
        const from = fault.from.map(resolve).filter((n) => n !== '');
        const to = fault.to.map(resolve).filter((n) => n !== '');
        if (from.length === 0 || to.length === 0) return log(fault.kind, 'skipped', `${fault.kind} ${fault.id}: nobody holds a role it names`);
        const arrow = fault.oneWay === true ? '->' : '<->';
        const what = fault.kind === 'partition' ? `partition ${fault.id}: ${from.join(',')} ${arrow} ${to.join(',')}` : `slow link ${fault.id}: ${from.join(',')} ${arrow} ${to.join(',')} +${formatMs(fault.extraDelayMs)}`;
        return attempt(fault.kind, what, () => {
          heals.set(fault.id, fault.kind === 'partition' ? target.partition(from, to, fault.oneWay === true) : target.slowLink(from, to, fault.extraDelayMs, fault.oneWay === true));
        });
      }
      case 'heal': {
        const heal = heals.get(fault.id);
        if (heal === undefined) return log('heal', 'skipped', `heal ${fault.id}: it is not in force`);
        heals.delete(fault.id);
        return attempt('heal', `heal ${fault.id}`, heal);
      }
      case 'advance-epoch':
      case 'restore':
        return log(fault.kind, 'failed', `${fault.kind}: ${target.cannot(fault.kind) ?? 'not supported by this target'}`);
      default:
        break;
    }
    const name = resolve(fault.target);
    if (name === '') return log(fault.kind, 'skipped', `${fault.kind} ${fault.target}: nobody holds that role now`);
    const state = target.stateOf(name);
    if (state === undefined) return log(fault.kind, 'skipped', `${fault.kind} ${name}: no such process`);
    const named = fault.target === name ? name : `${name} (${fault.target})`;
    switch (fault.kind) {
      case 'pause':
        if (state !== 'running') return log('pause', 'skipped', `pause ${named}: it is ${state}`);
        await attempt('pause', `pause ${named}${fault.forMs === undefined ? '' : ` for ${formatMs(fault.forMs)}`}`, () => target.pause(name));
        if (fault.forMs !== undefined) {
          target.after(fault.forMs, () =>
            track(target.stateOf(name) === 'paused' ? attempt('resume', `resume ${name}`, () => target.resume(name)) : Promise.resolve(log('resume', 'skipped', `resume ${name}: it is ${target.stateOf(name)}`))),
          );
        }
        return;
      case 'resume':
        if (state !== 'paused') return log('resume', 'skipped', `resume ${named}: it is ${state}`);
        return attempt('resume', `resume ${named}`, () => target.resume(name));
      case 'crash':
        if (state === 'crashed') return log('crash', 'skipped', `crash ${named}: it is down already`);
        return attempt('crash', `kill -9 ${named}`, () => target.crash(name, fault.powerLoss === true));
      case 'restart':
        if (state !== 'crashed') return log('restart', 'skipped', `restart ${named}: it is ${state}`);
        return attempt('restart', `restart ${named}`, () => target.restart(name));
      case 'clock-drift':
        return attempt('clock-drift', `${named}'s clock drifts ${fault.ppm} ppm (from its start)`, () => target.driftClock(name, fault.ppm));
      case 'clock-step':
        return attempt('clock-step', `${named}'s wall clock steps ${formatMs(fault.deltaMs)}`, () => target.stepClock(name, fault.deltaMs));
      case 'stall-disk':
        return attempt('stall-disk', `stall the disk of ${named} for ${formatMs(fault.durationMs)}`, () => target.stallDisk(name, fault.durationMs));
      default:
        return log(fault.kind, 'failed', `${fault.kind} ${named}: ${target.cannot(fault.kind) ?? 'not supported by this target'}`);
    }
  };

  const startMs = target.now();
  for (const fault of [...faults].sort((a, b) => a.atMs - b.atMs)) target.after(fault.atMs - (target.now() - startMs), () => track(apply(fault)));
  const last = faults.reduce((latest, f) => Math.max(latest, f.atMs + (f.kind === 'pause' ? (f.forMs ?? 0) : 0)), 0);
  const done = new Promise<void>((resolve) => target.after(last - (target.now() - startMs) + 1, () => void Promise.all([...pending]).then(() => resolve())));
  const healAll = async (): Promise<void> => {
    for (const [id, heal] of [...heals]) {
      heals.delete(id);
      await attempt('heal', `heal ${id} (the workload ended)`, heal);
    }
  };
  return { lines, done, healAll };
}

/** How many faults of each kind were injected, skipped and failed. */
export function countFaults(lines: readonly FaultLogLine[]): Record<string, { injected: number; skipped: number; failed: number }> {
  const counts: Record<string, { injected: number; skipped: number; failed: number }> = {};
  for (const line of lines) {
    const count = (counts[line.kind] ??= { injected: 0, skipped: 0, failed: 0 });
    count[line.outcome] += 1;
  }
  return counts;
}
