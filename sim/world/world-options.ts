// The World's options and the nodes it hands out (world.ts): what a scenario passes in and gets back.
import type { Authorizer, ClassLookup, Placement } from '../../core/arbiter/policy.js';
import type { Arbiter } from '../../core/arbiter/arbiter.js';
import type { LockClient, LockClientOptions } from '../../core/client/lock-client.js';
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import type { ArbiterService } from '../../core/ports/caller.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import type { ArbiterSeams } from '../../core/arbiter/seams.js';
import type { ClientSeams } from '../../core/client/seams.js';
import type { SimCluster, SimClusterOptions } from '../cluster/cluster.js';
import type { EtcdSnapshot } from '../cluster/snapshot.js';
import type { SimLockLog } from '../cluster/lock-log.js';
import type { KernelOptions } from '../kernel/kernel.js';
import type { LinkSpec } from '../net/link-spec.js';
import type { ClockSpec } from '../process/local-clock.js';
import type { SimProcess } from '../process/process.js';
import type { AuditNodeOptions } from './audit-node.js';
import type { LogRecorder } from './log-recorder.js';
import type { SimSpool } from '../disk/sim-spool.js';
import type { WorldUnprotected } from './unprotected-node.js';
import type { ResourceClient } from './resource.js';

export interface WorldOptions {
  readonly seed: string;
  readonly yieldToHost: () => Promise<void>;
  readonly kernel?: Omit<KernelOptions, 'seed' | 'yieldToHost'>;
  readonly cluster?: SimClusterOptions;
  /** Links of the lock.v1 network (client ↔ arbiter). Default: ordered, constant 0.25 ms (same host rack). */
  readonly rpcLink?: LinkSpec;
  readonly classes: ClassLookup;
  readonly authorizer: Authorizer;
  readonly placement?: Placement;
  /** Arbiter replicas, named arbiter-1..N. Default 1. */
  readonly arbiters?: number;
  /** Client → arbiter call deadline. Default 8 s. */
  readonly rpcTimeoutMs?: number;
  /** Wraps the LockLog each arbiter incarnation speaks (counting attempts, losing watch events). */
  readonly wrapArbiterLog?: (log: LockLog, process: SimProcess) => LockLog;
  /** Wraps the lock.v1 service each arbiter incarnation serves, after its wrapArbiterLog (the quorum planner's served-hop CPU). */
  readonly wrapArbiterService?: (arbiter: ArbiterService, process: SimProcess) => ArbiterService;
  /** Test support only (the explorer's mutants, scenarios/mutants.ts): core seams for every arbiter and client. Default: honest. */
  readonly seams?: { readonly arbiter?: ArbiterSeams; readonly client?: ClientSeams };
  /** The name of the first cluster: its GrantRecords' `cluster` and addArbiter's default. Default 'cluster-1'. */
  readonly clusterName?: string;
  /** Run the audit tailer (ADR-21) once the world has started (audit-node.ts). Default: none. */
  readonly audit?: AuditNodeOptions;
  /** Give every arbiter a LogFaults (lossy watches, lost answers: log-faults.ts) for scenarios/faults.ts to switch. Default: none. */
  readonly logFaults?: boolean;
  /**
   * A coord cluster beside the entity cluster(s) (ADR-07, issue 19): every arbiter takes its epochs from
   * it (core/arbiter/coord-epochs.ts), and start() registers each entity cluster's epoch there. No arbiter
   * serves the coord cluster's own lock log. Default: none (single-cluster mode).
   */
  readonly coord?: { readonly name: string; readonly cluster?: SimClusterOptions };
  /**
   * Keep every grant of every lock log for the end-of-run checkers (default true). False: only the
   * open holds and a count (LogRecorderOptions.keepGrants), for a long run that checks nothing at its
   * end, whose memory must not grow with the run (bench/sim-speed.ts, issue 16).
   */
  readonly keepGrants?: boolean;
  /**
   * ADR-04: every arbiter fails open for `onQuorumLoss: open` classes, spooling to its own disk and shipping
   * to this store (unprotected-node.ts). Default: none, every class fails closed.
   */
  readonly unprotected?: WorldUnprotected;
}

/** Another arbiter process (addArbiter). */
export interface ArbiterNodeOptions {
  /** Default `arbiter-<n>`, n counting every arbiter of the world. */
  readonly name?: string;
  /** The cluster (by world name) whose lock log it serves. Default: the first cluster. */
  readonly cluster?: string;
  /** Default: the world's placement. */
  readonly placement?: Placement;
}

/** A snapshot restore of one of the world's clusters (restoreCluster). */
export interface RestoreOptions {
  /** Which cluster (by world name). Default: the first cluster. */
  readonly cluster?: string;
  readonly snapshot: EtcdSnapshot;
  /**
   * `--initial-cluster-token` of the restore. Default etcdctl's, 'etcd-cluster'. With the token the
   * cluster was made with (and the same peer URLs, which a restore keeps), the cluster ID comes back
   * unchanged (etcd-behaviour.md 5.1); with a new one it changes.
   */
  readonly clusterToken?: string;
  /** 3.5's `--bump-revision N --mark-compacted`. */
  readonly bumpRevision?: number;
  /**
   * The arbiters serving the cluster: 'reconnect' (default) keeps each running with its memory, its
   * etcd client now reaching the restored members; 'restart' gives each a new incarnation with none.
   */
  readonly arbiters?: 'reconnect' | 'restart';
}

/** One cluster of the world and what recorded its lock log. */
export interface WorldCluster {
  /** The world's name for it: `GrantRecord.cluster` of its grants (a restore adds `/restored-<n>`). */
  readonly name: string;
  readonly cluster: SimCluster;
  readonly log: LogRecorder;
}

export interface ArbiterNode {
  readonly process: SimProcess;
  /** The arbiter of the current incarnation (a restart builds a new one: its memory is gone). */
  readonly arbiter: Arbiter;
  readonly log: SimLockLog;
  /** The world's name of the cluster it serves. */
  readonly cluster: string;
  /** Its spool of unprotected grants, when the world fails open (WorldOptions.unprotected, ADR-04). */
  readonly spool?: SimSpool;
}

export interface ClientNode {
  readonly process: SimProcess;
  readonly identity: string;
  /** lock.v1 as this client sees it (through the network). */
  readonly api: ArbiterApi;
  readonly client: LockClient;
  /** Writes to the world's guarded resources, carrying tokens. */
  readonly resources: ResourceClient;
}

export interface ClientOptions {
  readonly identity?: string;
  /** The client's instance label (issue 29): replicas sharing an identity name theirs. Default: none. */
  readonly instance?: string;
  /** Which arbiter replica it talks to (0-based). Default 0. */
  readonly arbiter?: number;
  /** Several replicas instead: each call goes to one drawn from the client's stream (sim/rpc/replica-router.ts). */
  readonly arbiters?: readonly number[];
  /** Picks the replica of each call instead of a draw (a client that routes by key and fails over: scenarios/rendezvous-failover.ts). */
  readonly route?: () => SimProcess;
  readonly clock?: ClockSpec;
  readonly region?: string;
  /** Wraps the API the LockClient speaks (history recording, fault injection). */
  readonly wrapApi?: (api: ArbiterApi, process: SimProcess) => ArbiterApi;
  /** Told when its library fences a session, as a real client's LockClientOptions.onSessionFenced (the gate's recorder: scenarios/gate-fences.ts). */
  readonly onSessionFenced?: LockClientOptions['onSessionFenced'];
}
