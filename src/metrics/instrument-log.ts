// etcd request latency (ADR-22), measured around the LockLog port the arbiter is given: every call the
// arbiter makes to etcd, successful or not, is one observation. Watches are timed to their creation (a
// stream's lifetime is not a latency). Labelled by tier and cluster only: the operation is not one of
// ADR-22's labels, and a txn is most of what an arbiter sends.
import type { LockLog } from '../../core/ports/lock-log.js';
import type { Clock } from '../../core/ports/clock.js';
import type { ArbiterSignals } from './signals.js';

export interface LogLabels {
  readonly tier: string;
  readonly cluster: string;
}

export function instrumentLockLog(log: LockLog, signals: ArbiterSignals, labels: LogLabels, clock: Clock): LockLog {
  // One label object for every observation (issue 30): prom-client keeps the first it is given as the
  // series' labels and only reads it, so nothing is built per etcd call.
  const observed = { tier: labels.tier, cluster: labels.cluster };
  const timed = <T>(call: () => Promise<T>): Promise<T> => {
    const startMs = clock.now();
    const done = () => signals.etcdRequestLatency.observe(observed, (clock.now() - startMs) / 1000);
    return call().finally(done);
  };
  return {
    txn: (request) => timed(() => log.txn(request)),
    range: (request) => timed(() => log.range(request)),
    leaseGrant: (ttlSeconds) => timed(() => log.leaseGrant(ttlSeconds)),
    leaseKeepAlive: (id) => timed(() => log.leaseKeepAlive(id)),
    leaseRevoke: (id) => timed(() => log.leaseRevoke(id)),
    leaseTimeToLive: (id, options) => timed(() => log.leaseTimeToLive(id, options)),
    watch: (request, handlers) => timed(() => log.watch(request, handlers)),
    compact: (revision) => timed(() => log.compact(revision)),
    status: () => timed(() => log.status()),
    close: () => log.close(),
  };
}
