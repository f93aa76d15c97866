// Where the CPU goes: this process's CPU time (the client side: lockstep, the etcd3 package, gRPC) and,
// for a local cluster, each etcd member's (from /proc/<pid>/stat), read around every measured slice.
// Per operation, it says whether a workload's extra latency is client work or etcd work, and it is
// what calibrates the simulator's CPU costs (--compare-sim).
import { readFileSync } from 'node:fs';

export interface CpuSample {
  readonly clientUs: number;
  /** Per member, in member order; empty when the members are not processes on this machine. */
  readonly membersUs: readonly number[];
}

export interface CpuPerOperation {
  /** This process (the client side), microseconds per operation. */
  readonly clientUs: number;
  /** The leader's and the followers' mean, microseconds per operation; absent without a local cluster. */
  readonly leaderUs?: number;
  readonly followerUs?: number;
  /** Every member together. */
  readonly etcdUs?: number;
  /** The `lockstep serve` process the workload goes through, when it has one (issue 30). */
  readonly serveUs?: number;
}

/** Linux's USER_HZ: /proc times are in 1/100 s on every mainstream architecture. */
const CLOCK_TICKS_PER_S = 100;

/** A process's user + system CPU so far, from /proc/<pid>/stat; undefined when it cannot be read. */
export function processCpuUs(pid: number): number | undefined {
  return statCpuUs(`/proc/${pid}/stat`);
}

/** User + system CPU from a /proc stat file (a process's, or one thread's under /proc/<pid>/task); undefined when it cannot be read. */
export function statCpuUs(path: string): number | undefined {
  try {
    const stat = readFileSync(path, 'utf8');
    // Fields after the command (which may hold spaces) start after the last ')'; utime and stime are
    // fields 14 and 15, i.e. 12th and 13th after it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1_000_000) / CLOCK_TICKS_PER_S : undefined;
  } catch {
    return undefined;
  }
}

export class CpuMeter {
  /** `memberPids()` gives the members' current pids (undefined for remote members); `leaderIndex` the leader's position. */
  constructor(
    private readonly memberPids: () => ReadonlyArray<number | undefined>,
    readonly leaderIndex: number | undefined,
  ) {}

  sample(): CpuSample {
    const usage = process.cpuUsage();
    const members = this.memberPids().map((pid) => (pid === undefined ? undefined : processCpuUs(pid)));
    return { clientUs: usage.user + usage.system, membersUs: members.every((m) => m !== undefined) ? (members as number[]) : [] };
  }
}

/** Accumulated CPU over a workload's slices. */
export class CpuTally {
  private serveUs: number | undefined;
  private clientUs = 0;
  private membersUs: number[] = [];
  private complete = true;
  operations = 0;

  /** `serveUs`: the serve process's CPU before and after the slice, when the workload goes through one. */
  add(before: CpuSample, after: CpuSample, operations: number, serveUs?: readonly [number, number]): void {
    if (serveUs !== undefined) this.serveUs = (this.serveUs ?? 0) + serveUs[1] - serveUs[0];
    this.clientUs += after.clientUs - before.clientUs;
    if (before.membersUs.length === 0 || after.membersUs.length !== before.membersUs.length) this.complete = false;
    else this.membersUs = after.membersUs.map((us, i) => (this.membersUs[i] ?? 0) + us - (before.membersUs[i] ?? 0));
    this.operations += operations;
  }

  perOperation(leaderIndex: number | undefined): CpuPerOperation | undefined {
    if (this.operations === 0) return undefined;
    const per = (us: number) => Math.round(us / this.operations);
    const client = { clientUs: per(this.clientUs), ...(this.serveUs === undefined ? {} : { serveUs: per(this.serveUs) }) };
    if (!this.complete || this.membersUs.length === 0 || leaderIndex === undefined) return client;
    const leaderUs = this.membersUs[leaderIndex] ?? 0;
    const followers = this.membersUs.filter((_, i) => i !== leaderIndex);
    const followerUs = followers.length === 0 ? 0 : followers.reduce((a, b) => a + b, 0) / followers.length;
    return { ...client, leaderUs: per(leaderUs), followerUs: per(followerUs), etcdUs: per(this.membersUs.reduce((a, b) => a + b, 0)) };
  }
}
