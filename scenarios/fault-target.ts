// One fault schedule, two worlds (issue 15, ADR-23): a `Fault` (scenarios/faults.ts) is applied through this
// interface, and the simulated world (scenarios/sim-fault-target.ts) and a real cluster of etcd, arbiter
// and client processes (src/gate) are its two implementations, so a schedule written for a scenario runs
// on both and the gate's history can be set beside the simulator's prediction of the same schedule.
// Everything here is plain: no clock, no timers of its own (determinism law: the simulated target's `after`
// is the kernel's scheduler; the real one's is the gate's).
//
// For an implementer: the rules (role resolution, skips, a pause's `forMs`, heals by id, `cannot`) are not
// yours to write: apply a schedule with `scheduleTargetFaults` (apply-target-fault.ts, whose header says what
// it promises). It calls you synchronously and does not await: report the state a call asked for as soon as
// it is made (`stateOf` is read right after), and let a returned promise's rejection say what failed (it is
// logged). `resolve` returns '' only for a role nobody holds; a name it does not know it returns as given,
// and `stateOf` says undefined. Refuse before a run what you cannot do: `faultsTargetCannot(target, faults)`.

/** What a process of the target is doing now. */
export type TargetProcessState = 'running' | 'paused' | 'crashed';

/** Undoes a partition or a slow link (the `heal` fault names it by id). */
export type HealLink = () => void | Promise<void>;

export interface FaultTarget {
  /** Milliseconds since the workload started, on the target's own clock (simulated, or the gate's monotonic one). */
  now(): number;
  /** Runs `run` `ms` from now on the target's clock. */
  after(ms: number, run: () => void): void;
  /**
   * The process a schedule's target names now: a process name is itself; a role (`@leader`, `@follower`,
   * `@member-N`, `@holder`) is resolved when the fault fires; '' when nobody holds the role.
   */
  resolve(target: string): string;
  /** The state of the process of that name, or undefined when the target has no such process now. */
  stateOf(process: string): TargetProcessState | undefined;
  /** SIGSTOP (real) or freeze (simulated): the process keeps its state and does nothing. */
  pause(process: string): void | Promise<void>;
  /** SIGCONT. */
  resume(process: string): void | Promise<void>;
  /** kill -9; with `powerLoss`, what was written but not synced is lost too (only where the target can). */
  crash(process: string, powerLoss: boolean): void | Promise<void>;
  /** Starts a crashed process again with its data (the same data dir for an etcd member). */
  restart(process: string): void | Promise<void>;
  /** Cuts every link from each of `from` to each of `to` (and back unless `oneWay`). */
  partition(from: readonly string[], to: readonly string[], oneWay: boolean): HealLink;
  /** Adds `extraDelayMs` to every message on those links until healed. */
  slowLink(from: readonly string[], to: readonly string[], extraDelayMs: number, oneWay: boolean): HealLink;
  /** The process's clock runs `ppm` parts per million fast (negative: slow) from now. */
  driftClock(process: string, ppm: number): void | Promise<void>;
  /** The process's wall clock jumps by `deltaMs` (negative: back); its timers do not. 'monotonic': the clock its timers run on jumps. */
  stepClock(process: string, deltaMs: number, clock: 'wall' | 'monotonic'): void | Promise<void>;
  /** The member's disk takes no write for `durationMs`. */
  stallDisk(member: string, durationMs: number): void | Promise<void>;
  /**
   * Why this target cannot inject a fault of this kind (said in the report and refused before a run
   * starts), or undefined when it can.
   */
  cannot(kind: string): string | undefined;
}
