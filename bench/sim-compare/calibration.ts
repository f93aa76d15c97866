// What the simulator is told about this machine, all of it measured by the bench and none of it fitted
// to the latencies being predicted: the data dir's fdatasync samples, the loopback round trip (halved:
// a link is one way), and CPU per write, from this process's CPU time (the client) and the etcd
// members' (/proc), read around the grant workload's slices.
import type { EmpiricalDistribution, HardwareProfile } from '../profile.js';
import type { WorkloadRun } from '../report.js';

export interface SimCalibration {
  readonly members: number;
  readonly walFsync: EmpiricalDistribution;
  readonly oneWayLink: EmpiricalDistribution;
  /** Leader CPU per client request beyond what a follower spends on the same write (EtcdTiming.requestCostMs). */
  readonly requestCostMs: number;
  /** CPU per applied entry on every member: a follower's CPU per write (EtcdTiming.applyCostMs). */
  readonly applyCostMs: number;
  /** This process's CPU per LockLog call (lockstep, etcd3, gRPC), charged on the simulated client. */
  readonly clientCostMsPerCall: number;
  /** Which run the CPU costs came from. */
  readonly fromConcurrency: number;
}

/** A grant cycle is two writes (the grant txn and the release txn), two LockLog calls. */
const CALLS_PER_GRANT_CYCLE = 2;

/**
 * From one grant run: CPU per operation falls as load rises (etcd batches proposals and fsyncs, gRPC
 * batches frames and wakeups), which a fixed cost per request cannot follow, so each concurrency is
 * simulated with the CPU costs measured at that concurrency. Without per-member CPU (a remote cluster)
 * the etcd costs are 0 and a note says the prediction is disk, network and client only.
 */
export function calibrate(profile: HardwareProfile, run: WorkloadRun | undefined, members: number): { calibration: SimCalibration; notes: string[] } {
  const notes: string[] = [];
  const cpu = run?.cpu;
  const perCallMs = (us: number | undefined) => Math.round(((us ?? 0) / CALLS_PER_GRANT_CYCLE / 1000) * 1000) / 1000;
  const applyCostMs = members > 1 ? perCallMs(cpu?.followerUs) : 0;
  const leaderMs = perCallMs(cpu?.leaderUs);
  if (cpu?.leaderUs === undefined) notes.push('no per-member CPU (not a local cluster): the simulated etcd costs only disk and network time');
  if (members === 1) notes.push('1 member: its CPU per write is all charged as request cost');
  return {
    calibration: {
      members,
      walFsync: profile.walFsync,
      oneWayLink: { kind: 'empirical', samplesMs: profile.loopbackRtt.samplesMs.map((ms) => Math.round((ms / 2) * 1000) / 1000) },
      requestCostMs: Math.max(0, Math.round((leaderMs - applyCostMs) * 1000) / 1000),
      applyCostMs,
      clientCostMsPerCall: perCallMs(cpu?.clientUs),
      fromConcurrency: run?.concurrency ?? 0,
    },
    notes,
  };
}
