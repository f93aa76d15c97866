// Raft timers and switches as plain data, with etcd 3.4.23's values as defaults
// (design/etcd-behaviour.md section 0 and 3.1).

export interface RaftConfig {
  /** One raft tick on the member's own clock. etcd `TickMs` = 100 (embed/config.go). */
  readonly tickMs: number;
  /** Election timeout in ticks; randomized in [electionTicks, 2*electionTicks). etcd 1000 ms / 100 ms = 10. */
  readonly electionTicks: number;
  /** Leader heartbeat interval in ticks. etcd `HeartbeatTick: 1` (etcdserver/raft.go startNode). */
  readonly heartbeatTicks: number;
  /** PreVote: false in 3.4 (embed/config.go l.438), true in 3.5. */
  readonly preVote: boolean;
  /** Always true in etcd (hard-coded, etcdserver/raft.go l.552); kept as data for the record. */
  readonly checkQuorum: true;
  /** etcd `maxSizePerMsg` = 1 MiB (etcdserver/raft.go l.43). */
  readonly maxSizePerMsgBytes: number;
  /** etcd `maxInflightMsgs` = 512 (etcdserver/raft.go l.46). */
  readonly maxInflightMsgs: number;
  /** etcd `InitialElectionTickAdvance` = true (embed/config.go l.417; etcdserver/server.go adjustTicks). */
  readonly initialElectionTickAdvance: boolean;
}

/** etcd 3.4.23 defaults. */
export const ETCD_3_4_RAFT_CONFIG: RaftConfig = Object.freeze({
  tickMs: 100,
  electionTicks: 10,
  heartbeatTicks: 1,
  preVote: false,
  checkQuorum: true,
  maxSizePerMsgBytes: 1024 * 1024,
  maxInflightMsgs: 512,
  initialElectionTickAdvance: true,
});

/** etcd 3.5.13: the same but PreVote on (server/embed/config.go l.504). */
export const ETCD_3_5_RAFT_CONFIG: RaftConfig = Object.freeze({ ...ETCD_3_4_RAFT_CONFIG, preVote: true });

/** adjustTicks polls the transport for active peers every 50 ms (etcdserver/server.go l.674-746). */
export const TICK_ADVANCE_POLL_MS = 50;
/** ... for at most rafthttp.ConnReadTimeout = 5 s. */
export const TICK_ADVANCE_WAIT_MS = 5000;

/** The defaults with `overrides`, validated: a bad field is named with the rule it breaks. */
export function raftConfig(overrides: Partial<RaftConfig> = {}): RaftConfig {
  const config: RaftConfig = { ...ETCD_3_4_RAFT_CONFIG, ...overrides };
  positive(config.tickMs, 'tickMs', 'a tick of 100 ms is etcd\'s default');
  positiveInteger(config.heartbeatTicks, 'heartbeatTicks');
  positiveInteger(config.electionTicks, 'electionTicks');
  positiveInteger(config.maxInflightMsgs, 'maxInflightMsgs');
  positive(config.maxSizePerMsgBytes, 'maxSizePerMsgBytes', 'etcd uses 1 MiB');
  if (config.electionTicks <= config.heartbeatTicks) {
    throw new RangeError(`RaftConfig.electionTicks (${config.electionTicks}) must be greater than heartbeatTicks (${config.heartbeatTicks}), as etcd's raft requires (raft.go validate)`);
  }
  if (config.checkQuorum !== true) throw new RangeError('RaftConfig.checkQuorum must be true: etcd hard-codes CheckQuorum (etcdserver/raft.go l.552)');
  return config;
}

function positive(value: number, field: string, hint: string): void {
  if (!(value > 0 && Number.isFinite(value))) throw new RangeError(`RaftConfig.${field} must be a positive number, got ${value} (${hint})`);
}

function positiveInteger(value: number, field: string): void {
  if (!(Number.isInteger(value) && value > 0)) throw new RangeError(`RaftConfig.${field} must be a positive integer, got ${value}`);
}
