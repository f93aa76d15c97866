// A simulated etcd member's timing model as plain data (JSON-serialisable), so a measured profile can
// replace the guessed parts without code. Defaults are etcd 3.4.23's (design/etcd-behaviour.md section 0);
// the quantities etcd derives from its election timeout are derived here the same way unless given.
import type { DistributionSpec } from '../kernel/distribution.js';
import { compileDistribution } from '../kernel/distribution.js';
import { raftConfig, type RaftConfig } from '../raft/config.js';
import { DEFAULT_WAL_FSYNC } from '../raft/group.js';
import type { AutoCompaction } from './member-compactor.js';

export interface EtcdTiming {
  readonly raft: RaftConfig;
  /** WAL fsync latency of the member's disk. Default lognormal 2 ms median, 10 ms p99. */
  readonly walFsync: DistributionSpec;
  /** CPU a client request costs the member before it is handled (parse, auth, dispatch), ms. */
  readonly requestCostMs: number;
  /** CPU applying one committed entry costs, ms. 0 (default): apply is synchronous with the Ready. */
  readonly applyCostMs: number;
  /** etcd ReqTimeout() = 5 s + 2 x election timeout = 7 s (etcdserver/config.go l.286-290). */
  readonly requestTimeoutMs: number;
  /** applyTimeout: waitAppliedIndex and leasehttp's ApplyWait, 1 s (v3_server.go l.47). */
  readonly applyWaitTimeoutMs: number;
  /** readIndexRetryTime, 500 ms (v3_server.go l.44). */
  readonly readIndexRetryMs: number;
  /** The lessor runLoop period, 500 ms (lease/lessor.go l.613-626). */
  readonly lessorLoopMs: number;
  /** syncWatchersLoop period, 100 ms (mvcc/watchable_store.go). */
  readonly watchSyncMs: number;
  /** waitLeader re-checks every election timeout, 1 s (v3_server.go l.384-402). */
  readonly waitLeaderRetryMs: number;
  /**
   * Pause between rounds of forwarding a keepalive or time-to-live to the leader. etcd 3.4 retries in a
   * tight loop (no pause), which a simulation cannot run; 3.5 sleeps 50 ms, which is the default here.
   */
  readonly leaseForwardRetryMs: number;
  /** Promote's extend = election timeout, 1 s (server.go applyEntryNormal l.2219). */
  readonly promoteExtendMs: number;
  /** minLeaseTTL = ceil(floor(3 x ElectionTicks / 2) x TickMs) = 2 s (server.go l.550, l.559). */
  readonly minLeaseTtlSeconds: number;
  /** maxPendingRevokes, 16 (server.go l.98). */
  readonly maxPendingRevokes: number;
  /** maxGapBetweenApplyAndCommitIndex, 5000 (v3_server.go l.42). */
  readonly maxApplyGap: number;
  /** MaxRequestBytes, 1.5 MiB (embed/config.go l.56-58). */
  readonly maxRequestBytes: number;
  /** The version string Status reports. */
  readonly version: string;
  /**
   * --auto-compaction-mode periodic --auto-compaction-retention: the leader compacts the MVCC history to
   * the revision of one retention ago (member-compactor.ts). Absent: off, etcd's default (retention 0).
   */
  readonly autoCompaction?: AutoCompaction;
}

/** What a caller may set; raft fields merge over the 3.4.23 raft defaults. */
export type EtcdTimingInput = Partial<Omit<EtcdTiming, 'raft'>> & { readonly raft?: Partial<RaftConfig> };

export const DEFAULT_REQUEST_COST_MS = 0.05;
export const ETCD_SIM_VERSION = '3.4.23-sim';

/** The defaults with `input` merged in and the derived quantities computed; bad fields are named. */
export function etcdTiming(input: EtcdTimingInput = {}): EtcdTiming {
  const raft = raftConfig(input.raft);
  const electionMs = raft.electionTicks * raft.tickMs;
  const timing: EtcdTiming = {
    raft,
    walFsync: input.walFsync ?? DEFAULT_WAL_FSYNC,
    requestCostMs: input.requestCostMs ?? DEFAULT_REQUEST_COST_MS,
    applyCostMs: input.applyCostMs ?? 0,
    requestTimeoutMs: input.requestTimeoutMs ?? 5_000 + 2 * electionMs,
    applyWaitTimeoutMs: input.applyWaitTimeoutMs ?? 1_000,
    readIndexRetryMs: input.readIndexRetryMs ?? 500,
    lessorLoopMs: input.lessorLoopMs ?? 500,
    watchSyncMs: input.watchSyncMs ?? 100,
    waitLeaderRetryMs: input.waitLeaderRetryMs ?? electionMs,
    leaseForwardRetryMs: input.leaseForwardRetryMs ?? 50,
    promoteExtendMs: input.promoteExtendMs ?? electionMs,
    minLeaseTtlSeconds: input.minLeaseTtlSeconds ?? Math.ceil((Math.floor((3 * raft.electionTicks) / 2) * raft.tickMs) / 1_000),
    maxPendingRevokes: input.maxPendingRevokes ?? 16,
    maxApplyGap: input.maxApplyGap ?? 5_000,
    maxRequestBytes: input.maxRequestBytes ?? 1.5 * 1024 * 1024,
    version: input.version ?? ETCD_SIM_VERSION,
    ...(input.autoCompaction === undefined ? {} : { autoCompaction: input.autoCompaction }),
  };
  validate(timing);
  return timing;
}

function validate(timing: EtcdTiming): void {
  compileDistribution(timing.walFsync, 'EtcdTiming.walFsync');
  for (const field of ['requestCostMs', 'applyCostMs', 'leaseForwardRetryMs', 'promoteExtendMs'] as const) {
    const value = timing[field];
    if (!(value >= 0 && Number.isFinite(value))) throw new RangeError(`EtcdTiming.${field} must be a finite number >= 0, got ${value}`);
  }
  const positive = ['requestTimeoutMs', 'applyWaitTimeoutMs', 'readIndexRetryMs', 'lessorLoopMs', 'watchSyncMs', 'waitLeaderRetryMs', 'minLeaseTtlSeconds', 'maxPendingRevokes', 'maxApplyGap', 'maxRequestBytes'] as const;
  for (const field of positive) {
    const value = timing[field];
    if (!(value > 0 && Number.isFinite(value))) throw new RangeError(`EtcdTiming.${field} must be a positive number, got ${value}`);
  }
  const retentionMs = timing.autoCompaction?.retentionMs;
  if (retentionMs !== undefined && !(retentionMs >= 10 && Number.isFinite(retentionMs))) throw new RangeError(`EtcdTiming.autoCompaction.retentionMs must be a finite number of at least 10 ms (a tenth of it is the sampling period), got ${retentionMs}`);
  if (!Number.isInteger(timing.maxPendingRevokes)) throw new RangeError(`EtcdTiming.maxPendingRevokes must be an integer, got ${timing.maxPendingRevokes}`);
}
