// The audit tailer in the simulated world (ADR-21): tailer processes running core's elected tailer
// (core/audit/elected-tailer.ts) over a SimLockLog of one of the world's clusters, into an in-memory store
// that outlives them, as a database file outlives its writer. A plan crashes the first tailer, has an
// operator compact the log while it is down, and restarts it, so that every run shows the audit surviving
// a crash (replay from the checkpoint, each event once) and a compaction (a recorded gap, never silence).
// After a snapshot restore the tailer's etcd client reaches the restored members (same addresses in
// production; new process names here), as an arbiter's does.
import type { TailerStop } from '../../core/audit/tailer.js';
import { runElectedTailer } from '../../core/audit/elected-tailer.js';
import { MemoryAuditStore } from '../../core/audit/memory-store.js';
import type { TailerSeams } from '../../core/audit/seams.js';
import type { AuditStore } from '../../core/audit/store.js';
import { CancelSource } from '../../core/cancel.js';
import type { WallClock } from '../../core/ports/wall-clock.js';
import type { SimCluster } from '../cluster/cluster.js';
import { createSimLockLog } from '../cluster/lock-log.js';
import type { ClusterNetwork } from '../cluster/ports.js';
import type { Kernel } from '../kernel/kernel.js';
import { SimProcess } from '../process/process.js';
import { FollowingLog } from './following-log.js';

/** 2026-01-01T00:00:00Z: the simulated calendar's origin, so stamps read as dates and replay the same. */
export const SIM_CALENDAR_ORIGIN_MS = 1_767_225_600_000;

export interface AuditPlan {
  /** When the first tailer crashes, ms after the audit starts. */
  readonly crashAtMs?: number;
  /** When an operator compacts the log at its current revision (while the tailer is down, past its checkpoint). */
  readonly compactAtMs?: number;
  /** When the crashed tailer starts again. */
  readonly restartAtMs?: number;
}

export interface AuditNodeOptions {
  /** The world's name of the cluster to tail. Default: the first cluster. */
  readonly cluster?: string;
  /** Tailer processes, `auditor-1..N`; the others stand by in the election. Default 1. */
  readonly tailers?: number;
  readonly plan?: AuditPlan;
  readonly checkpointIntervalMs?: number;
  readonly electionTtlSeconds?: number;
  /** Test support only (the audit mutants): the tailer's seams. Default honest. */
  readonly seams?: TailerSeams;
}

/** What the world lends the node. */
export interface AuditNodeHost {
  readonly kernel: Kernel;
  readonly network: ClusterNetwork;
  /** The world's name of the tailed cluster (its restored successors are `<name>/restored-<n>`). */
  readonly clusterName: string;
  /** The cluster as it is now (a restore replaces it). */
  cluster(): SimCluster;
  register(process: SimProcess): SimProcess;
}

/**
 * The crash-and-compaction plan scenarios run by default (scenarios/scenario.ts worldBasics): early, so that
 * even the shortest scenario (hot-key, under 8 s) sees the restarted tailer elected and caught up.
 */
export const DEFAULT_AUDIT_PLAN: AuditPlan = { crashAtMs: 2_500, compactAtMs: 3_500, restartAtMs: 4_500 };
/**
 * The scenarios' election TTL: etcd's minimum lease (2 s), so a crashed tailer's lease is gone, and the
 * restarted one elected, about 2.5 s after the crash (production's default is 10 s, election.ts).
 */
export const SCENARIO_ELECTION_TTL_SECONDS = 2;
export const DEFAULT_AUDIT_CHECKPOINT_INTERVAL_MS = 1_000;
/** Outside lockstep's key spaces (init-log.ts LOCKSTEP_PREFIXES): the operator's writes before a compaction. */
const COMPACTION_PROBE_KEY = '/ops/compaction-probe';

export class AuditNode {
  readonly store = new MemoryAuditStore();
  readonly processes: readonly SimProcess[];
  /** Tailer runs that ended other than by being stopped (a log that went backwards). */
  readonly stops: TailerStop[] = [];
  /** Every flush, by which tailer, when (true time) and how many events it carried: who wrote, and when. */
  readonly writes: { readonly tailer: string; readonly atMs: number; readonly records: number }[] = [];
  readonly startedAtMs: number;
  readonly clusterName: string;

  constructor(
    private readonly host: AuditNodeHost,
    private readonly options: AuditNodeOptions = {},
  ) {
    this.startedAtMs = host.kernel.now();
    this.clusterName = host.clusterName;
    const count = options.tailers ?? 1;
    this.processes = Array.from({ length: count }, (_, i) => host.register(new SimProcess(host.kernel, { name: `auditor-${i + 1}` })));
    for (const process of this.processes) {
      this.run(process);
      process.onRestart(() => this.run(process)); // a new incarnation: its memory (buffer, lease) is gone
    }
    this.schedule(options.plan ?? {});
  }

  private run(process: SimProcess): void {
    const log = new FollowingLog(() => this.host.cluster(), (cluster) => createSimLockLog({ kernel: this.host.kernel, network: this.host.network, client: process, endpoints: cluster.members }));
    // The host's calendar clock: true time from the calendar origin (a process's own clock starts at zero).
    const wallClock: WallClock = { nowMs: () => SIM_CALENDAR_ORIGIN_MS + this.host.kernel.now() };
    const store: AuditStore = {
      write: (batch) => {
        this.writes.push({ tailer: process.name, atMs: this.host.kernel.now(), records: batch.records.length });
        return this.store.write(batch);
      },
      checkpoint: (id) => this.store.checkpoint(id),
    };
    void runElectedTailer({
      log,
      store,
      clock: process.clock(),
      wallClock,
      random: process.random('audit'),
      candidate: process.name,
      signal: new CancelSource(),
      checkpointIntervalMs: this.options.checkpointIntervalMs ?? DEFAULT_AUDIT_CHECKPOINT_INTERVAL_MS,
      ...(this.options.electionTtlSeconds === undefined ? {} : { electionTtlSeconds: this.options.electionTtlSeconds }),
      ...(this.options.seams === undefined ? {} : { seams: this.options.seams }),
    }).then((stop) => {
      if (stop.reason !== 'stopped') this.stops.push(stop);
    });
  }

  private schedule(plan: AuditPlan): void {
    const first = this.processes[0];
    if (first === undefined) return;
    const { kernel } = this.host;
    if (plan.crashAtMs !== undefined) kernel.scheduleAfter(plan.crashAtMs, () => first.state !== 'crashed' && first.crash());
    if (plan.compactAtMs !== undefined) kernel.scheduleAfter(plan.compactAtMs, () => this.compact());
    if (plan.restartAtMs !== undefined) kernel.scheduleAfter(plan.restartAtMs, () => first.state === 'crashed' && first.restart());
  }

  /**
   * `etcdctl compact <current revision>` from the operator's machine; skipped if the cluster cannot answer.
   * Two probe writes first, so that even on a quiet log the compaction passes the tailer's checkpoint by
   * more than one revision and takes away revisions it has not read.
   */
  private compact(): void {
    const operator = this.operator ?? (this.operator = this.host.register(new SimProcess(this.host.kernel, { name: 'audit-operator' })));
    const log = createSimLockLog({ kernel: this.host.kernel, network: this.host.network, client: operator, endpoints: this.host.cluster().members });
    const probe = (n: number) => log.txn({ compare: [], success: [{ type: 'put', key: COMPACTION_PROBE_KEY, value: String(n) }], failure: [] });
    void probe(1)
      .then(() => probe(2))
      .then(({ header }) => log.compact(header.revision))
      .catch(() => undefined)
      .finally(() => void log.close());
  }

  private operator: SimProcess | undefined;
}
