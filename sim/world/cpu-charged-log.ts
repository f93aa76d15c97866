// A LockLog whose every call first waits its turn on its process's one CPU and takes a measured cost:
// the client's own CPU (lockstep, the etcd client, gRPC) per call, measured by `lockstep bench` on this
// machine (bench/sim-compare/calibration.ts clientCostMsPerCall). Used by the bench's prediction and by
// the quorum planner's arbiter when it is priced with a bench profile (sim/planner/host-timing.ts).
import type { LockLog } from '../../core/ports/lock-log.js';
import { Cpu } from '../cluster/cpu.js';
import type { SimProcess } from '../process/process.js';

/** Runs a call after `costMs` of `cpu` (a FIFO on `process`), behind the work queued on it before. */
export function payingCpu(process: SimProcess, cpu: Cpu, costMs: number): <T>(call: () => Promise<T>) => Promise<T> {
  return (call) => {
    const turn = process.kernel.deferred<void>();
    cpu.run(costMs, () => turn.resolve());
    return turn.promise.then(call);
  };
}

/**
 * `log` with `costMs` of `process`'s CPU (a FIFO, one thread) paid before each call; unchanged for a cost
 * of 0. `cpu`: that thread, when other work shares it (the served lock.v1 hop, sim/planner/served-hop.ts).
 */
export function chargeCpuPerCall(log: LockLog, process: SimProcess, costMs: number, cpu = new Cpu(process)): LockLog {
  if (costMs <= 0) return log;
  const paid = payingCpu(process, cpu, costMs);
  return {
    txn: (request) => paid(() => log.txn(request)),
    range: (request) => paid(() => log.range(request)),
    leaseGrant: (ttlSeconds) => paid(() => log.leaseGrant(ttlSeconds)),
    leaseKeepAlive: (id) => paid(() => log.leaseKeepAlive(id)),
    leaseRevoke: (id) => paid(() => log.leaseRevoke(id)),
    leaseTimeToLive: (id, options) => paid(() => log.leaseTimeToLive(id, options)),
    watch: (request, handlers) => paid(() => log.watch(request, handlers)),
    compact: (revision) => paid(() => log.compact(revision)),
    status: () => paid(() => log.status()),
    close: () => log.close(),
  };
}
