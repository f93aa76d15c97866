// The one place the rules of a fault schedule live for the fault kinds both worlds can inject (issue 15,
// ADR-23): the simulated world (sim-fault-target.ts) and the gate's real cluster (src/gate) both schedule
// through `scheduleTargetFaults`, so "a schedule written for a scenario runs on both" is one rule, not two.
//
// What a user of this module needs to know:
// - `scheduleTargetFaults(target, faults, options)` schedules every fault with `target.after(atMs)`, relative
//   to the call, in `atMs` order (equal times in the schedule's order), and returns the log it appends to as
//   faults fire: `"<atMs>: <description>"`, and for what a fault does later (a pause's `forMs` resume)
//   `"<atMs>: <description> (at <now>)"`. `options.onLog` sees each bare description as it is written (the
//   simulator records it in its trace: the descriptions are part of the trace hash, so their wording is law).
// - Kinds outside TARGET_FAULT_KINDS (the simulator's brownout, lossy-watch, lose-answers, stuck-member,
//   advance-epoch, restore) go to `options.applyOther`; without it they are skipped with the reason. A real
//   target should refuse such a schedule before it starts: `faultsTargetCannot` lists them, with
//   `target.cannot(kind)`'s reasons, each naming the fault's index.
// - A fault that does not apply when it fires is skipped and logged (`skip: pause alice (it is paused)`), so
//   any subset of a schedule is a valid schedule. Roles are resolved through `target.resolve` when the fault
//   fires, once: a pause with `forMs` resumes the very process it stopped, even if the role moved.
// - `stateOf` is read synchronously right after a call that changes it: a real target must report the state
//   it was asked for as soon as the call is made (`paused` once `pause` was called), even if the signal is
//   still on its way. A call that returns a promise is not awaited (the simulator's calls stay synchronous:
//   a promise hop would change its event order); a rejection is logged as `<description> failed: <why>`.
// - `heal` names a partition or slow link by id; the HealLink its fault returned is called once and dropped.
// - `runTargetFaults` is the same schedule for a real target, with what a gate needs besides: each fault that
//   acted with its target as resolved when it fired (measureFaultEffects' input, core/checkers/fault-effects),
//   a promise of every asynchronous call made so far, and a heal of every link still cut at the end.
import type { AppliedFault } from '../core/checkers/fault-effects.js';
import { formatMs } from '../core/numbers.js';
import type { FaultTarget, HealLink, TargetProcessState } from './fault-target.js';
import type { Fault } from './faults.js';

/** The kinds both worlds can inject: the rules below are theirs. */
export const TARGET_FAULT_KINDS = ['pause', 'resume', 'crash', 'restart', 'partition', 'heal', 'slow-link', 'clock-drift', 'clock-step', 'stall-disk'] as const;
export type TargetFaultKind = (typeof TARGET_FAULT_KINDS)[number];
export type TargetFault = Extract<Fault, { readonly kind: TargetFaultKind }>;
export type OtherFault = Exclude<Fault, { readonly kind: TargetFaultKind }>;

/** Writes a line to the fault log (scheduleTargetFaults adds the fault's time and the time now). */
export type FaultLog = (what: string) => void;

export function isTargetFault(fault: Fault): fault is TargetFault {
  return (TARGET_FAULT_KINDS as readonly string[]).includes(fault.kind);
}

/** A schedule's process target resolved to a process the target has now, or the skip line saying why not. */
export type ResolvedProcess = { readonly name: string; readonly state: TargetProcessState } | { readonly skip: string };

/** Resolves a fault's `target` (a name or a role) to a process of the target, as every kind with a target does. */
export function resolveProcess(target: FaultTarget, kind: string, named: string): ResolvedProcess {
  const name = target.resolve(named);
  if (name === '') return { skip: `skip: ${kind} ${named} (nobody holds that role now)` };
  // The schedule was checked against every process of the run (fault-schedule.ts); one may not exist yet (a new shard's clients).
  const state = target.stateOf(name);
  if (state === undefined) return { skip: `skip: ${kind} ${name} (no such process at this time)` };
  return { name, state };
}

/**
 * Applies one fault of a shared kind to `target` now; returns what it did (or why it skipped). `heals` holds
 * the open partitions and slow links by id; `later` logs what the fault does afterwards.
 */
export function applyTargetFault(target: FaultTarget, fault: TargetFault, heals: Map<string, HealLink>, later: FaultLog): string {
  const reason = target.cannot(fault.kind);
  if (reason !== undefined) return `skip: ${fault.kind} (${reason})`;
  switch (fault.kind) {
    case 'partition': {
      const from = fault.from.map((t) => target.resolve(t));
      const to = fault.to.map((t) => target.resolve(t));
      heals.set(fault.id, target.partition(from, to, fault.oneWay === true));
      return `partition ${fault.id}: ${from.join(',')} ${arrow(fault.oneWay)} ${to.join(',')}`;
    }
    case 'heal': {
      const heal = heals.get(fault.id);
      heals.delete(fault.id);
      if (heal !== undefined) settle(heal(), `heal ${fault.id}`, later);
      return `heal ${fault.id}`;
    }
    case 'slow-link': {
      const from = fault.from.map((t) => target.resolve(t));
      const to = fault.to.map((t) => target.resolve(t));
      heals.set(fault.id, target.slowLink(from, to, fault.extraDelayMs, fault.oneWay === true));
      return `slow link ${fault.id}: ${from.join(',')} ${arrow(fault.oneWay)} ${to.join(',')} +${formatMs(fault.extraDelayMs)}`;
    }
    default:
      return applyToProcess(target, fault, later);
  }
}

function applyToProcess(target: FaultTarget, fault: Extract<TargetFault, { readonly target: string }>, later: FaultLog): string {
  const resolved = resolveProcess(target, fault.kind, fault.target);
  if ('skip' in resolved) return resolved.skip;
  const { name, state } = resolved;
  switch (fault.kind) {
    case 'pause': {
      if (state !== 'running') return `skip: pause ${name} (it is ${state})`;
      settle(target.pause(name), `pause ${name}`, later);
      // The very process it stopped, not whoever holds the role when the pause ends.
      if (fault.forMs !== undefined) target.after(fault.forMs, () => later(resumeIfPaused(target, name, later)));
      return `pause ${name}${fault.target === name ? '' : ` (${fault.target})`}${fault.forMs === undefined ? '' : ` for ${formatMs(fault.forMs)}`}`;
    }
    case 'resume':
      if (state !== 'paused') return `skip: resume ${name} (it is ${state})`;
      settle(target.resume(name), `resume ${name}`, later);
      return `resume ${name}`;
    case 'crash':
      if (state === 'crashed') return `skip: crash ${name} (it is already down)`;
      settle(target.crash(name, fault.powerLoss === true), `crash ${name}`, later);
      return `crash ${name}${fault.powerLoss === true ? ' (power loss)' : ''}`;
    case 'restart':
      if (state !== 'crashed') return `skip: restart ${name} (it is ${state})`;
      settle(target.restart(name), `restart ${name}`, later);
      return `restart ${name}`;
    case 'stall-disk':
      settle(target.stallDisk(name, fault.durationMs), `stall the disk of ${name}`, later);
      return `stall the disk of ${name} for ${formatMs(fault.durationMs)}`;
    case 'clock-drift':
      settle(target.driftClock(name, fault.ppm), `${name}'s clock drift`, later);
      return `${name}'s clock drifts ${fault.ppm} ppm`;
    case 'clock-step':
      settle(target.stepClock(name, fault.deltaMs, fault.clock ?? 'wall'), `${name}'s clock step`, later);
      return `${name}'s ${fault.clock === 'monotonic' ? 'monotonic clock' : 'clock'} steps ${formatMs(fault.deltaMs)}`;
  }
}

/** The end of a pause with `forMs`: resumes the process if it is still paused (not crashed, not resumed by another fault). */
function resumeIfPaused(target: FaultTarget, name: string, later: FaultLog): string {
  const state = target.stateOf(name);
  if (state !== 'paused') return `skip: resume ${name} (it is ${state ?? 'gone'})`;
  settle(target.resume(name), `resume ${name}`, later);
  return `resume ${name}`;
}

function arrow(oneWay: boolean | undefined): string {
  return oneWay === true ? '->' : '<->';
}

/** A real target's call may be asynchronous: not awaited (see the header), its failure logged. */
function settle(result: void | Promise<void>, what: string, later: FaultLog): void {
  if (!(result instanceof Promise)) return;
  result.then(undefined, (error: unknown) => later(`${what} failed: ${error instanceof Error ? error.message : String(error)}`));
}

export interface TargetScheduleOptions {
  /** Applies a kind outside TARGET_FAULT_KINDS (the simulator's own); without it such a fault is skipped. */
  readonly applyOther?: (fault: OtherFault, heals: Map<string, HealLink>, later: FaultLog) => string;
  /** Sees each description (without times) as it is logged. */
  readonly onLog?: (fault: Fault, description: string) => void;
}

/** Schedules `faults` on the target, relative to now; returns the log of what each resolved to (filled as they fire). */
export function scheduleTargetFaults(target: FaultTarget, faults: readonly Fault[], options: TargetScheduleOptions = {}): string[] {
  const applied: string[] = [];
  const heals = new Map<string, HealLink>();
  for (const fault of [...faults].sort((a, b) => a.atMs - b.atMs)) {
    target.after(fault.atMs, () => {
      const later: FaultLog = (what) => {
        applied.push(`${formatMs(fault.atMs)}: ${what} (at ${formatMs(Math.round(target.now()))})`);
        options.onLog?.(fault, what);
      };
      const description = isTargetFault(fault) ? applyTargetFault(target, fault, heals, later) : applyOther(target, fault, heals, later, options);
      applied.push(`${formatMs(fault.atMs)}: ${description}`);
      options.onLog?.(fault, description);
    });
  }
  return applied;
}

function applyOther(target: FaultTarget, fault: OtherFault, heals: Map<string, HealLink>, later: FaultLog, options: TargetScheduleOptions): string {
  const reason = target.cannot(fault.kind);
  if (reason !== undefined) return `skip: ${fault.kind} (${reason})`;
  if (options.applyOther === undefined) return `skip: ${fault.kind} (this target has no way to inject it)`;
  return options.applyOther(fault, heals, later);
}

/** Every fault of a schedule the target cannot inject, naming its index and the reason: refuse these before a run starts. */
export function faultsTargetCannot(target: FaultTarget, faults: readonly Fault[], canApplyOther = false): string[] {
  return faults.flatMap((fault, index) => {
    const reason = target.cannot(fault.kind) ?? (isTargetFault(fault) || canApplyOther ? undefined : 'this target has no way to inject it');
    return reason === undefined ? [] : [`faults[${index}].kind ${fault.kind}: ${reason}`];
  });
}

/** A schedule running on a target (runTargetFaults). */
export interface TargetFaultRun {
  /** The fault log, as scheduleTargetFaults returns it. */
  readonly log: string[];
  /**
   * Each fault that acted (skips left out), in firing order, `target` as resolved when it fired and `named` as
   * the schedule gave it. A call that failed later (its promise rejected) is still listed; the log says it failed.
   */
  readonly applied: AppliedFault[];
  /** Resolves when every asynchronous call the schedule has made so far has settled (rejections are in the log). */
  settled(): Promise<void>;
  /** Heals every partition and slow link still in force (the workload's end). */
  healAll(): Promise<void>;
}

/** scheduleTargetFaults, plus what a real run needs (TargetFaultRun). The target's calls are passed straight through. */
export function runTargetFaults(target: FaultTarget, faults: readonly Fault[], options: TargetScheduleOptions = {}): TargetFaultRun {
  const applied: AppliedFault[] = [];
  const resolved = new Map<string, string>();
  const seen = new Set<Fault>();
  const pending = new Set<Promise<void>>();
  const open = new Set<HealLink>();
  const track = (result: void | Promise<void>): void | Promise<void> => {
    if (result instanceof Promise) {
      pending.add(result);
      result.then(() => pending.delete(result), () => pending.delete(result));
    }
    return result;
  };
  const healing = (heal: HealLink): HealLink => {
    const once: HealLink = () => {
      open.delete(once);
      return track(heal());
    };
    open.add(once);
    return once;
  };
  const recording: FaultTarget = {
    now: () => target.now(),
    after: (ms, run) => target.after(ms, run),
    resolve: (named) => {
      const name = target.resolve(named);
      resolved.set(named, name);
      return name;
    },
    stateOf: (p) => target.stateOf(p),
    pause: (p) => track(target.pause(p)),
    resume: (p) => track(target.resume(p)),
    crash: (p, powerLoss) => track(target.crash(p, powerLoss)),
    restart: (p) => track(target.restart(p)),
    partition: (from, to, oneWay) => healing(target.partition(from, to, oneWay)),
    slowLink: (from, to, extraDelayMs, oneWay) => healing(target.slowLink(from, to, extraDelayMs, oneWay)),
    driftClock: (p, ppm) => track(target.driftClock(p, ppm)),
    stepClock: (p, deltaMs, clock) => track(target.stepClock(p, deltaMs, clock)),
    stallDisk: (member, durationMs) => track(target.stallDisk(member, durationMs)),
    cannot: (kind) => target.cannot(kind),
  };
  const log = scheduleTargetFaults(recording, faults, {
    ...options,
    onLog: (fault, description) => {
      options.onLog?.(fault, description);
      if (seen.has(fault)) return; // a later line of the fault (a pause's own resume)
      seen.add(fault);
      const named = 'target' in fault ? fault.target : undefined;
      // When it fired, not when it was due: a real timer fires late (100-200 ms on a loaded host), and a fault
      // measured from its due time misses what it hit (a @holder whose hold began in between; issue 32).
      if (!description.startsWith('skip:')) applied.push({ atMs: target.now(), kind: fault.kind, ...(named === undefined ? {} : { target: resolved.get(named) ?? named, named }) });
      resolved.clear();
    },
  });
  return {
    log,
    applied,
    settled: async () => {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    healAll: async () => {
      await Promise.allSettled([...open].map((heal) => heal()));
    },
  };
}
