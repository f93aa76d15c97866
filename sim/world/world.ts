// A whole simulated lock service, assembled from production parts: simulated etcd members, arbiter
// processes running core's Arbiter over SimLockLog, and client processes running core's LockClient
// over lock.v1 on the simulated network. Scenarios, the planner and the speed benchmark all start here.
//
// Three networks carry the traffic: the cluster network (etcd clients and peers, with its port
// multiplexer), the RPC network (lock.v1 between clients and arbiters) and the resource network
// (writes with tokens to guarded resources). A partition given to the world applies to all three, so
// "cut the leader and a holder off" means what it says.
//
// A world may hold several etcd clusters on the one cluster network (entity shards, ADR-07/09: each
// with its own arbiter and its own lock-log recorder, so GrantRecords name the cluster that granted
// them), and a cluster may be restored from a snapshot (ADR-03): the old members stop, new members with
// the same peer URLs start from the snapshot, and the arbiters either reconnect (their etcd clients
// reach the restored members at the same addresses, their memory intact) or restart with none.
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { CoordEpochSource, coordEpochKey, registerOnCoord } from '../../core/arbiter/coord-epochs.js';
import { type InitLogResult, initLog } from '../../core/arbiter/init-log.js';
import { isLockError } from '../../core/lock-error.js';
import { LockClient } from '../../core/client/lock-client.js';
import { EPOCH_KEY, parseEpochRecord } from '../../core/arbiter/records.js';
import type { GrantRecord } from '../../core/checkers/index.js';
import { type SimCluster, type SimClusterOptions, createClusterNetwork, createSimCluster, restoreSimCluster } from '../cluster/cluster.js';
import { DEFAULT_CLUSTER_TOKEN } from '../cluster/ids.js';
import { bumpSnapshot, stateFromOps } from '../cluster/snapshot.js';
import { createSimLockLog, type SimLockLog } from '../cluster/lock-log.js';
import type { ClusterNetwork } from '../cluster/ports.js';
import { Kernel } from '../kernel/kernel.js';
import { Network } from '../net/network.js';
import type { PartitionId, PartitionSpec } from '../net/partition.js';
import { SimProcess } from '../process/process.js';
import type { SimSpool } from '../disk/sim-spool.js';
import { type ArbiterRpcMessage, SimArbiterClient, serveArbiter } from '../rpc/arbiter-rpc.js';
import { withOperators } from '../../core/authz/with-operators.js';
import { SIM_OPERATORS } from './operators.js';
import { routeOverReplicas } from '../rpc/replica-router.js';
import { AuditNode } from './audit-node.js';
import { unprotectedArbiter } from './unprotected-node.js';
import { LogFaults } from './log-faults.js';
import { LogRecorder, type LogRecorderOptions } from './log-recorder.js';
import { ReconnectingLog } from './reconnecting-log.js';
import { ResourceClient, type ResourceMessage, type ResourceOptions, SimResource } from './resource.js';
import type { ArbiterNode, ArbiterNodeOptions, ClientNode, ClientOptions, RestoreOptions, WorldCluster, WorldOptions } from './world-options.js';
export type { ArbiterNode, ArbiterNodeOptions, ClientNode, ClientOptions, RestoreOptions, WorldCluster, WorldOptions } from './world-options.js';

/** How often a world's operator retries `lockstep init` while its cluster cannot answer yet. */
const INIT_RETRY_MS = 200;

export class World {
  readonly kernel: Kernel;
  readonly clusterNetwork: ClusterNetwork;
  readonly rpcNetwork: Network<ArbiterRpcMessage>;
  readonly resourceNetwork: Network<ResourceMessage>;
  readonly resources: SimResource[] = [];
  /** The first cluster's lock log as it happened (grants, releases, expiries), for the checkers. */
  readonly log: LogRecorder;
  private readonly slots: ClusterSlot[] = [];
  /** Every cluster the world has run, replaced ones included, in order of creation. */
  private readonly history: WorldCluster[] = [];
  private readonly arbiterNodes: MutableArbiterNode[] = [];
  private readonly clientNodes: ClientNode[] = [];
  /** Process name → identity of every client added (identityOf). */
  private readonly clientIdentities = new Map<string, string>();
  private readonly processes = new Map<string, SimProcess>();
  private readonly logFaultsByArbiter = new Map<string, LogFaults>();
  private auditNode: AuditNode | undefined;

  constructor(private readonly options: WorldOptions) {
    this.kernel = new Kernel({ ...options.kernel, seed: options.seed, yieldToHost: options.yieldToHost });
    this.clusterNetwork = createClusterNetwork(this.kernel);
    this.rpcNetwork = new Network<ArbiterRpcMessage>(this.kernel, { name: 'rpc', defaults: options.rpcLink ?? { latency: { kind: 'constant', ms: 0.25 }, ordered: true } });
    this.resourceNetwork = new Network<ResourceMessage>(this.kernel, { name: 'resource', defaults: options.rpcLink ?? { latency: { kind: 'constant', ms: 0.25 }, ordered: true } });
    this.log = this.makeCluster(options.clusterName ?? 'cluster-1', options.cluster ?? {}).log;
    if (options.coord !== undefined) this.makeCluster(options.coord.name, { namePrefix: `${options.coord.name}-`, ...options.coord.cluster });
    for (let i = 1; i <= (options.arbiters ?? 1); i += 1) this.addArbiter({ name: `arbiter-${i}` });
  }

  /** The first cluster (after a restore of it, the restored one). */
  get cluster(): SimCluster {
    return (this.slots[0] as ClusterSlot).current.cluster;
  }

  /** The audit tailer, when the world runs one (WorldOptions.audit): started by start(). */
  get audit(): AuditNode | undefined {
    return this.auditNode;
  }

  /** Every cluster the world has run, replaced ones included (raft safety is checked on all of them). */
  get clusters(): readonly WorldCluster[] {
    return this.history;
  }

  /** Every grant of every cluster's lock log, each naming its cluster. */
  get grants(): GrantRecord[] {
    return this.history.flatMap((c) => c.log.grants);
  }

  /** The current cluster the world calls `name`. */
  clusterNamed(name: string): SimCluster {
    return this.slot(name).current.cluster;
  }

  /**
   * Another etcd cluster on the same network (an entity shard, ADR-07/09): members `<name>-1..N` unless
   * `options` names them, its own lock-log recorder whose grants carry `name`. Serve it with addArbiter.
   */
  addCluster(name: string, options: SimClusterOptions = {}): SimCluster {
    return this.makeCluster(name, { namePrefix: `${name}-`, ...options }).cluster;
  }

  get arbiters(): readonly ArbiterNode[] {
    return this.arbiterNodes;
  }

  get clients(): readonly ClientNode[] {
    return this.clientNodes;
  }

  process(name: string): SimProcess {
    const process = this.processes.get(name);
    if (process === undefined) throw new Error(`world: no process named ${name}; known: ${[...this.processes.keys()].join(', ')}`);
    return process;
  }

  /** The log faults of arbiter process `name`, when the world has them (WorldOptions.logFaults). */
  logFaultsOf(name: string): LogFaults | undefined {
    return this.logFaultsByArbiter.get(name);
  }

  /** Another arbiter process serving one of the world's clusters (a replica, or the arbiter of a shard). */
  addArbiter(options: ArbiterNodeOptions = {}): ArbiterNode {
    const name = options.name ?? `arbiter-${this.arbiterNodes.length + 1}`;
    const cluster = this.slot(options.cluster ?? (this.slots[0] as ClusterSlot).name).name;
    const placement = options.placement ?? this.options.placement;
    const process = this.register(new SimProcess(this.kernel, { name }));
    const node = { process, cluster } as MutableArbiterNode;
    const faults = this.options.logFaults === true ? new LogFaults() : undefined;
    const unprotected = this.options.unprotected === undefined ? undefined : unprotectedArbiter(process, this.options.unprotected); // ADR-04
    if (unprotected !== undefined) node.spool = unprotected.spool;
    if (faults !== undefined) this.logFaultsByArbiter.set(name, faults);
    const start = (): void => {
      node.log = createSimLockLog({ kernel: this.kernel, network: this.clusterNetwork, client: process, endpoints: this.clusterNamed(cluster).members });
      node.connection = new ReconnectingLog(node.log);
      const log = faults === undefined ? node.connection : faults.wrap(node.connection, process.clock());
      const coord = this.options.coord === undefined ? undefined : createSimLockLog({ kernel: this.kernel, network: this.clusterNetwork, client: process, endpoints: this.clusterNamed(this.options.coord.name).members });
      node.arbiter = new Arbiter({
        log: this.options.wrapArbiterLog === undefined ? log : this.options.wrapArbiterLog(log, process),
        clock: process.clock(),
        random: process.random('arbiter'),
        classes: this.options.classes,
        authorizer: withOperators(this.options.authorizer, SIM_OPERATORS),
        ...(placement === undefined ? {} : { placement }),
        ...(coord === undefined ? {} : { epochSource: new CoordEpochSource(coord, cluster) }),
        ...(unprotected === undefined ? {} : { unprotected: unprotected.options() }),
      }, this.options.seams?.arbiter);
      serveArbiter(this.rpcNetwork, process, this.options.wrapArbiterService === undefined ? node.arbiter : this.options.wrapArbiterService(node.arbiter, process), (peer) => this.process(peer), (peer) => this.identityOf(peer));
    };
    start();
    process.onRestart(start); // a restarted arbiter is a new one: its queues and caches are gone (ADR-14/18)
    this.arbiterNodes.push(node);
    return node;
  }

  /**
   * etcdctl snapshot restore (ADR-03, etcd-behaviour.md 5): every member of the cluster stops (a crash:
   * their connections reset), and a new cluster starts from `snapshot` with the same peer URLs, so the
   * member and cluster ids follow the token alone. The new members are named `<old name>-r<n>` (two
   * processes cannot share a name on the network); once they have all started, the arbiters reconnect
   * or restart (RestoreOptions).
   * Its grants are recorded under `<cluster name>/restored-<n>`: a new revision space, from the
   * snapshot's revision on.
   */
  restoreCluster(options: RestoreOptions): SimCluster {
    const slot = this.slot(options.cluster ?? (this.slots[0] as ClusterSlot).name);
    const old = slot.current.cluster;
    for (const member of old.members) if (member.process.state !== 'crashed') old.crash(member.name);
    slot.restores += 1;
    const snapshot = options.bumpRevision === undefined ? options.snapshot : bumpSnapshot(options.snapshot, options.bumpRevision);
    const restored = stateFromOps(snapshot.ops, {});
    const epochKv = restored.store.latest(EPOCH_KEY);
    const recorder = new LogRecorder(() => this.kernel.now(), `${slot.name}/restored-${slot.restores}`, {
      revision: restored.store.currentRev,
      epoch: epochKv === undefined ? 0 : (parseEpochRecord(epochKv.value)?.epoch ?? 0),
      compactRevision: restored.store.compactRev, // the snapshot's own history was compacted there (the audit's gaps rest on it)
    }, this.recorderOptions());
    const cluster = restoreSimCluster(this.kernel, this.clusterNetwork, options.snapshot, {
      ...slot.options,
      members: old.members.map((m) => `${m.name}-r${slot.restores}`),
      peerUrls: old.members.map((m) => m.peerUrl),
      clusterToken: options.clusterToken ?? DEFAULT_CLUSTER_TOKEN,
      ...(options.bumpRevision === undefined ? {} : { bumpRevision: options.bumpRevision }),
      observer: this.recordingObserver(recorder, slot.options),
    });
    this.install(slot, { name: recorder.cluster, cluster, log: recorder });
    // The arbiters turn to the restored members once all of them have started (within the start
    // spread): until then their calls meet the stopped members' refusals, as during a real restore.
    this.kernel.scheduleAfter(slot.options.startSpreadMs ?? cluster.timing.raft.tickMs, () => {
      for (const node of this.arbiterNodes) {
        if (node.cluster !== slot.name || node.process.state === 'crashed') continue;
        if (options.arbiters === 'restart') {
          node.process.crash();
          node.process.restart();
        } else {
          node.log = createSimLockLog({ kernel: this.kernel, network: this.clusterNetwork, client: node.process, endpoints: cluster.members });
          node.connection.use(node.log);
        }
      }
    });
    return cluster;
  }

  /** ADR-19: the identity the simulated transport vouches for, for a message from process `name`. */
  private identityOf(name: string): string {
    // Asked on every call an arbiter serves: a map, not a search of every client (issue 16).
    return this.clientIdentities.get(name) ?? `spiffe://sim/${name}`;
  }

  addClient(name: string, options: ClientOptions = {}): ClientNode {
    const process = this.register(new SimProcess(this.kernel, { name, ...(options.region === undefined ? {} : { region: options.region }), ...(options.clock === undefined ? {} : { clock: options.clock }) }));
    const replicas = (options.arbiters ?? [options.arbiter ?? 0]).map((index) => {
      const server = this.arbiterNodes[index];
      if (server === undefined) throw new Error(`world: no arbiter ${index} for client ${name}`);
      return server.process;
    });
    const route = options.route !== undefined ? { route: options.route } : replicas.length === 1 ? {} : { route: routeOverReplicas(replicas, process.random('replicas')) };
    const rpc = new SimArbiterClient({ kernel: this.kernel, network: this.rpcNetwork, client: process, server: replicas[0] as SimProcess, ...route, ...(this.options.rpcTimeoutMs === undefined ? {} : { timeoutMs: this.options.rpcTimeoutMs }) });
    const api = options.wrapApi === undefined ? rpc : options.wrapApi(rpc, process);
    const identity = options.identity ?? `spiffe://sim/${name}`;
    const node: ClientNode = {
      process,
      identity,
      api,
      client: new LockClient({ arbiter: api, clock: process.clock(), identity, ...(options.instance === undefined ? {} : { instance: options.instance }), ...(options.onSessionFenced === undefined ? {} : { onSessionFenced: options.onSessionFenced }) }, this.options.seams?.client),
      resources: new ResourceClient(this.kernel, this.resourceNetwork, process, identity),
    };
    this.clientNodes.push(node);
    if (!this.clientIdentities.has(name)) this.clientIdentities.set(name, node.identity);
    return node;
  }

  /** A guarded resource process (ADR-16): fenced keeps a high-water mark per key, unfenced takes all. */
  addResource(name: string, options: ResourceOptions): SimResource {
    const resource = new SimResource(this.register(new SimProcess(this.kernel, { name })), this.resourceNetwork, options, (peer) => this.process(peer));
    this.resources.push(resource);
    return resource;
  }

  /** Cuts traffic on every network (etcd, lock.v1, resources); heal with the returned function. */
  partition(spec: PartitionSpec): () => void {
    const ids: Array<[Network<never>, PartitionId]> = [this.clusterNetwork, this.rpcNetwork, this.resourceNetwork].map((network) => {
      const any = network as unknown as Network<never>;
      return [any, any.partition(spec)];
    });
    return () => {
      for (const [network, id] of ids) network.heal(id);
    };
  }

  /**
   * Runs until the cluster has elected a leader (members start within the first 100 ms and elect
   * within a couple of seconds), as a deployment is up before its clients are. Bounded by `maxMs`.
   */
  async start(maxMs = 30_000): Promise<void> {
    const deadlineMs = this.kernel.now() + maxMs;
    const led = await this.kernel.runUntilCondition(() => this.slots.every((slot) => slot.current.cluster.leader() !== undefined), { untilMs: deadlineMs });
    if (led.reason !== 'condition') throw new Error(`world: no etcd leader within ${maxMs} ms of virtual time`);
    // The operators initialise every new log (lockstep init): no arbiter writes the epoch record itself.
    let initialised = 0;
    const inits = this.slots.filter((slot) => slot.name !== this.options.coord?.name).map((slot) => this.initCluster(slot.name, deadlineMs).then(() => (initialised += 1)));
    await this.kernel.runUntilCondition(() => initialised === inits.length, { untilMs: deadlineMs });
    await Promise.all(inits);
    // Then until every arbiter has read the epoch record: the service is up.
    for (const node of this.arbiterNodes) {
      let ready = false;
      while (!ready && this.kernel.now() < deadlineMs) {
        const probe = node.arbiter.status().then((status) => (ready = status.epoch !== undefined), () => false);
        await this.kernel.runUntilCondition(() => ready, { untilMs: Math.min(deadlineMs, this.kernel.now() + 1_000) });
        await probe;
      }
      if (!ready) throw new Error(`world: ${node.process.name} could not read the epoch within ${maxMs} ms of virtual time`);
    }
    this.startAudit();
  }

  private startAudit(): void {
    const options = this.options.audit;
    if (options === undefined || this.auditNode !== undefined) return;
    const cluster = this.slot(options.cluster ?? (this.slots[0] as ClusterSlot).name);
    this.auditNode = new AuditNode({ kernel: this.kernel, network: this.clusterNetwork, clusterName: cluster.name, cluster: () => cluster.current.cluster, register: (p) => this.register(p) }, options);
  }

  /**
   * The operator's first step on a new log (core/arbiter/init-log.ts, `lockstep init`), from the machine of
   * the cluster's first arbiter, retried while the cluster cannot answer yet (no leader), until `untilMs`.
   * Runs inside virtual time: a scenario awaits it for a cluster it adds (start() does it for the first ones).
   */
  async initCluster(name: string, untilMs = this.kernel.now() + 30_000): Promise<void> {
    const node = this.arbiterNodes.find((a) => a.cluster === name);
    if (node === undefined) throw new Error(`world: cluster ${name} has no arbiter to run lockstep init from`);
    const log = createSimLockLog({ kernel: this.kernel, network: this.clusterNetwork, client: node.process, endpoints: this.clusterNamed(name).members });
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          // A retried init whose first try committed unseen (a timeout) finds its own record: done.
          const found = attempt > 0 ? await log.range({ key: EPOCH_KEY }) : undefined;
          const kv = found?.kvs[0];
          const record = kv === undefined ? undefined : parseEpochRecord(kv.value);
          const written = record !== undefined && kv !== undefined ? { epoch: record.epoch, clusterId: record.clusterId, revision: kv.modRevision } : await initLog(log);
          if (this.options.coord !== undefined) await this.registerOnCoord(node.process, name, written, untilMs);
          return;
        } catch (error) {
          // Refused (the log is not new): a retry does not mend that.
          if (isLockError(error, 'invalid-argument') || this.kernel.now() >= untilMs) throw error;
          await this.kernel.sleep(INIT_RETRY_MS);
        }
      }
    } finally {
      await log.close();
    }
  }

  /** `lockstep init --coord-endpoints`: the entity cluster's epoch record on the coord cluster, retried like init. */
  private async registerOnCoord(client: SimProcess, name: string, written: InitLogResult, untilMs: number): Promise<void> {
    const coordName = this.options.coord?.name ?? '';
    const coord = createSimLockLog({ kernel: this.kernel, network: this.clusterNetwork, client, endpoints: this.clusterNamed(coordName).members });
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          if (attempt > 0 && (await coord.range({ key: coordEpochKey(name) })).kvs.length > 0) return;
          await registerOnCoord(coord, name, { epoch: written.epoch, clusterId: written.clusterId, highestRevision: written.revision });
          return;
        } catch (error) {
          if (isLockError(error, 'invalid-argument') || this.kernel.now() >= untilMs) throw error;
          await this.kernel.sleep(INIT_RETRY_MS);
        }
      }
    } finally {
      await coord.close();
    }
  }

  /** Runs virtual time up to `untilMs` (true time). */
  async runUntil(untilMs: number): Promise<void> {
    await this.kernel.runUntil(untilMs);
  }

  private makeCluster(name: string, options: SimClusterOptions): WorldCluster {
    if (this.slots.some((slot) => slot.name === name)) throw new Error(`world: there is already a cluster named ${name}`);
    const log = new LogRecorder(() => this.kernel.now(), name, undefined, this.recorderOptions());
    const cluster = createSimCluster(this.kernel, this.clusterNetwork, { ...options, observer: this.recordingObserver(log, options) });
    const slot: ClusterSlot = { name, options, current: { name, cluster, log }, restores: 0 };
    this.slots.push(slot);
    this.install(slot, slot.current);
    return slot.current;
  }

  private recorderOptions(): LogRecorderOptions {
    return this.options.keepGrants === false ? { keepGrants: false } : {};
  }

  private install(slot: ClusterSlot, current: WorldCluster): void {
    slot.current = current;
    this.history.push(current);
    for (const member of current.cluster.members) this.register(member.process);
  }

  /** The recorder sees every applied entry first, then the caller's own observer. */
  private recordingObserver(log: LogRecorder, options: SimClusterOptions): NonNullable<SimClusterOptions['observer']> {
    const observer = options.observer;
    return {
      onApplied: (member, entry) => {
        log.observer.onApplied?.(member, entry);
        observer?.onApplied?.(member, entry);
      },
      ...(observer?.onSoftState === undefined ? {} : { onSoftState: observer.onSoftState }),
    };
  }

  private slot(name: string): ClusterSlot {
    const slot = this.slots.find((s) => s.name === name);
    if (slot === undefined) throw new Error(`world: no cluster named ${name}; known: ${this.slots.map((s) => s.name).join(', ')}`);
    return slot;
  }

  private register(process: SimProcess): SimProcess {
    this.processes.set(process.name, process);
    return process;
  }
}

interface MutableArbiterNode {
  process: SimProcess;
  arbiter: Arbiter;
  log: SimLockLog;
  /** What the arbiter speaks: the current SimLockLog, replaced when a restore reconnects it. */
  connection: ReconnectingLog;
  /** The world's name of the cluster it serves. */
  readonly cluster: string;
  spool?: SimSpool;
}

interface ClusterSlot {
  readonly name: string;
  /** As the cluster was first made: a restore starts its members with the same settings. */
  readonly options: SimClusterOptions;
  current: WorldCluster;
  restores: number;
}
