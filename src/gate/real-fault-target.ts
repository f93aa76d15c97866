// The real cluster as a FaultTarget (scenarios/fault-target.ts; issue 15): the same Fault data the
// simulator takes, applied to real processes. pause = SIGSTOP, resume = SIGCONT, crash = kill -9, restart
// = the same data dir (an etcd member) or the same command line and port (an arbiter); partitions and
// slow links through the link mesh; clock drift and steps through libfaketime. What it cannot do on this
// machine it says in cannot(), and the gate refuses such a schedule before anything starts.
import type { FaultTarget, HealLink, TargetProcessState } from '../../scenarios/fault-target.js';
import type { HolderOutage } from '../../core/checkers/run-history.js';
import type { RealCluster } from './real-cluster.js';

/** The kinds the real cluster can inject, and why not for the rest. */
export const REAL_CANNOT: Readonly<Record<string, string>> = {
  'stall-disk': 'no device-mapper or fault-injection block device on this machine (that needs root, dm-flakey/dm-delay and a loop device); a disk stall cannot be injected',
  brownout: 'a brownout (slow links, then a freeze at the next hold) is not built for real processes yet; use slow-link and pause',
  'lossy-watch': 'a watch that delivers nothing needs a proxy that reads etcd\'s gRPC frames; not built for real processes',
  'lose-answers': 'losing committed answers needs a proxy that reads etcd\'s gRPC frames; not built for real processes',
  'stuck-member': 'not built for real processes yet; a one-way partition of the member from the arbiters does the same',
  'advance-epoch': 'an epoch advance needs two operators\' certificates (ADR-03); the gate serves without TLS',
  restore: 'a snapshot restore replaces the cluster; not built for real processes',
};

const LEADER_POLL_MS = 300;

export class RealFaultTarget implements FaultTarget {
  readonly outages: HolderOutage[] = [];
  private readonly leaderCache: { name: string | undefined } = { name: undefined };
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly real: RealCluster,
    private readonly clock: () => number,
    /** `@holder`: whether a client holds a lock as its workload knows it. */
    private readonly holding: (client: string) => boolean,
    /** The history's clock (the recorder's): outages are set beside the history's times, not the schedule's. */
    private readonly historyClock: () => number,
  ) {}

  now(): number {
    return this.clock();
  }

  after(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, Math.max(0, ms));
    this.timers.add(timer);
  }

  /** Cancels everything scheduled (the workload ended). */
  cancelAll(): void {
    clearInterval(this.poller);
    this.poller = undefined;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private poller: NodeJS.Timeout | undefined;
  private polling = false;

  /** Asks the members who leads; resolve() then answers `@leader` and `@follower` from it. */
  async refreshLeader(): Promise<void> {
    const leader = await this.real.leader();
    if (leader !== undefined) this.leaderCache.name = leader;
  }

  /**
   * Keeps the leader known in the background, so resolve() answers at once (a dispatcher calls it
   * synchronously when a fault fires). Stopped by cancelAll().
   */
  watchLeader(everyMs = LEADER_POLL_MS): void {
    this.poller ??= setInterval(() => {
      if (this.polling) return;
      this.polling = true;
      void this.refreshLeader().finally(() => (this.polling = false));
    }, everyMs);
  }

  resolve(target: string): string {
    const members = this.real.names('member');
    if (target === '@holder') return this.real.names('client').find((c) => this.real.processes.get(c)?.state === 'running' && this.holding(c)) ?? '';
    const nth = /^@member-(\d+)$/.exec(target);
    if (nth !== null) return members[Number(nth[1]) - 1] ?? '';
    const leader = this.leaderCache.name;
    if (target === '@leader') return leader ?? '';
    if (target === '@follower') return members.find((m) => m !== leader && this.real.processes.get(m)?.state === 'running') ?? '';
    return target;
  }

  stateOf(process: string): TargetProcessState | undefined {
    return this.real.processes.get(process)?.state;
  }

  pause(process: string): void {
    this.real.signal(process, 'SIGSTOP');
    if (this.real.processes.get(process)?.role === 'client') this.outages.push({ holder: process, kind: 'pause', fromMs: this.historyClock() });
  }

  resume(process: string): void {
    this.real.signal(process, 'SIGCONT');
    this.endOutage(process);
  }

  async crash(process: string, powerLoss: boolean): Promise<void> {
    if (powerLoss) throw new Error('a power loss (losing what was written but not synced) cannot be injected into a real process here; crash without powerLoss');
    await this.real.crash(process);
    if (this.real.processes.get(process)?.role === 'client') this.outages.push({ holder: process, kind: 'crash', fromMs: this.historyClock() });
  }

  async restart(process: string): Promise<void> {
    await this.real.restart(process);
  }

  partition(from: readonly string[], to: readonly string[], oneWay: boolean): HealLink {
    return this.real.mesh.partition(this.linkNames(from), this.linkNames(to), oneWay);
  }

  slowLink(from: readonly string[], to: readonly string[], extraDelayMs: number, oneWay: boolean): HealLink {
    return this.real.mesh.slowLink(this.linkNames(from), this.linkNames(to), extraDelayMs, oneWay);
  }

  /** faketime: a rate takes effect only from a process's start (a rate changed while it runs makes its clock jump). */
  // These three reject rather than throw: a dispatcher that does not await (scenarios/ on branch ftarget)
  // logs a rejection as the fault's failure, where a throw would end the run.
  async driftClock(process: string, ppm: number): Promise<void> {
    const tracked = this.real.processes.get(process);
    if (tracked?.ratePpm !== ppm) throw new Error(`${process} did not start under a drift of ${ppm} ppm; a real process's clock rate is set when it starts (libfaketime), so the gate starts it drifted when the schedule says so`);
  }

  async stepClock(process: string, deltaMs: number, clock: 'wall' | 'monotonic'): Promise<void> {
    if (clock === 'monotonic') throw new Error(`${process}'s monotonic clock cannot be stepped: libfaketime leaves it alone (FAKETIME_DONT_FAKE_MONOTONIC), as every real kernel does; only the simulator models that fault`);
    const steps = this.real.processes.get(process)?.steps;
    if (steps === undefined) throw new Error(`${process} did not start with a steppable clock (libfaketime's control file)`);
    steps.step(deltaMs);
  }

  async stallDisk(): Promise<void> {
    throw new Error(REAL_CANNOT['stall-disk']);
  }

  cannot(kind: string): string | undefined {
    return REAL_CANNOT[kind];
  }

  private endOutage(process: string): void {
    for (let i = this.outages.length - 1; i >= 0; i--) {
      const open = this.outages[i] as HolderOutage;
      if (open.holder !== process || open.toMs !== undefined) continue;
      this.outages[i] = { ...open, toMs: this.historyClock() };
      return;
    }
  }

  /** The mesh names every link by its two processes: members' peer links, arbiters' links to members, clients' to arbiters. */
  private linkNames(names: readonly string[]): string[] {
    return [...names];
  }
}
