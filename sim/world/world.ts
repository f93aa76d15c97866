// A whole simulated lock service, assembled from production parts: simulated etcd members, arbiter
// processes running core's Arbiter over SimLockLog, and client processes running core's LockClient
// over lock.v1 on the simulated network. Scenarios, the planner and the speed benchmark all start here.
//
// Three networks carry the traffic: the cluster network (etcd clients and peers, with its port
// multiplexer), the RPC network (lock.v1 between clients and arbiters) and the resource network
// (writes with tokens to guarded resources). A partition given to the world applies to all three, so
// "cut the leader and a holder off" means what it says.
import type { Authorizer, ClassLookup, Placement } from '../../core/arbiter/policy.js';
import { Arbiter } from '../../core/arbiter/arbiter.js';
import { LockClient } from '../../core/client/lock-client.js';
import type { ArbiterApi } from '../../core/ports/arbiter-api.js';
import type { LockLog } from '../../core/ports/lock-log.js';
import type { ArbiterSeams } from '../../core/arbiter/seams.js';
import type { ClientSeams } from '../../core/client/seams.js';
import { type SimCluster, type SimClusterOptions, createClusterNetwork, createSimCluster } from '../cluster/cluster.js';
import { createSimLockLog, type SimLockLog } from '../cluster/lock-log.js';
import type { ClusterNetwork } from '../cluster/ports.js';
import { Kernel, type KernelOptions } from '../kernel/kernel.js';
import type { LinkSpec } from '../net/link-spec.js';
import { Network } from '../net/network.js';
import type { PartitionId, PartitionSpec } from '../net/partition.js';
import type { ClockSpec } from '../process/local-clock.js';
import { SimProcess } from '../process/process.js';
import { type ArbiterRpcMessage, SimArbiterClient, serveArbiter } from '../rpc/arbiter-rpc.js';
import { LogRecorder } from './log-recorder.js';
import { ResourceClient, type ResourceMessage, type ResourceOptions, SimResource } from './resource.js';

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
  /** Test support only (the explorer's mutants, scenarios/mutants.ts): core seams for every arbiter and client. Default: honest. */
  readonly seams?: { readonly arbiter?: ArbiterSeams; readonly client?: ClientSeams };
}

export interface ArbiterNode {
  readonly process: SimProcess;
  /** The arbiter of the current incarnation (a restart builds a new one: its memory is gone). */
  readonly arbiter: Arbiter;
  readonly log: SimLockLog;
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
  /** Which arbiter replica it talks to (0-based). Default 0. */
  readonly arbiter?: number;
  readonly clock?: ClockSpec;
  readonly region?: string;
  /** Wraps the API the LockClient speaks (history recording, fault injection). */
  readonly wrapApi?: (api: ArbiterApi, process: SimProcess) => ArbiterApi;
}

export class World {
  readonly kernel: Kernel;
  readonly clusterNetwork: ClusterNetwork;
  readonly rpcNetwork: Network<ArbiterRpcMessage>;
  readonly resourceNetwork: Network<ResourceMessage>;
  readonly cluster: SimCluster;
  readonly resources: SimResource[] = [];
  /** The lock log as it happened (grants, releases, expiries), for the checkers. */
  readonly log: LogRecorder;
  private readonly arbiterNodes: MutableArbiterNode[] = [];
  private readonly clientNodes: ClientNode[] = [];
  private readonly processes = new Map<string, SimProcess>();

  constructor(private readonly options: WorldOptions) {
    this.kernel = new Kernel({ ...options.kernel, seed: options.seed, yieldToHost: options.yieldToHost });
    this.clusterNetwork = createClusterNetwork(this.kernel);
    this.rpcNetwork = new Network<ArbiterRpcMessage>(this.kernel, { name: 'rpc', defaults: options.rpcLink ?? { latency: { kind: 'constant', ms: 0.25 }, ordered: true } });
    this.resourceNetwork = new Network<ResourceMessage>(this.kernel, { name: 'resource', defaults: options.rpcLink ?? { latency: { kind: 'constant', ms: 0.25 }, ordered: true } });
    this.log = new LogRecorder(() => this.kernel.now());
    const observer = options.cluster?.observer;
    this.cluster = createSimCluster(this.kernel, this.clusterNetwork, {
      ...options.cluster,
      observer: {
        onApplied: (member, entry) => {
          this.log.observer.onApplied?.(member, entry);
          observer?.onApplied?.(member, entry);
        },
        ...(observer?.onSoftState === undefined ? {} : { onSoftState: observer.onSoftState }),
      },
    });
    for (const member of this.cluster.members) this.processes.set(member.process.name, member.process);
    for (let i = 1; i <= (options.arbiters ?? 1); i += 1) this.addArbiter(`arbiter-${i}`);
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

  addClient(name: string, options: ClientOptions = {}): ClientNode {
    const process = this.register(new SimProcess(this.kernel, { name, ...(options.region === undefined ? {} : { region: options.region }), ...(options.clock === undefined ? {} : { clock: options.clock }) }));
    const server = this.arbiterNodes[options.arbiter ?? 0];
    if (server === undefined) throw new Error(`world: no arbiter ${options.arbiter ?? 0} for client ${name}`);
    const rpc = new SimArbiterClient({ kernel: this.kernel, network: this.rpcNetwork, client: process, server: server.process, ...(this.options.rpcTimeoutMs === undefined ? {} : { timeoutMs: this.options.rpcTimeoutMs }) });
    const api = options.wrapApi === undefined ? rpc : options.wrapApi(rpc, process);
    const identity = options.identity ?? `spiffe://sim/${name}`;
    const node: ClientNode = {
      process,
      identity,
      api,
      client: new LockClient({ arbiter: api, clock: process.clock(), identity }, this.options.seams?.client),
      resources: new ResourceClient(this.kernel, this.resourceNetwork, process, identity),
    };
    this.clientNodes.push(node);
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
    const led = await this.kernel.runUntilCondition(() => this.cluster.leader() !== undefined, { untilMs: deadlineMs });
    if (led.reason !== 'condition') throw new Error(`world: no etcd leader within ${maxMs} ms of virtual time`);
    // Then until every arbiter has read (or, on a new cluster, written) the epoch record: the service is up.
    for (const node of this.arbiterNodes) {
      let ready = false;
      while (!ready && this.kernel.now() < deadlineMs) {
        const probe = node.arbiter.status().then((status) => (ready = status.epoch !== undefined), () => false);
        await this.kernel.runUntilCondition(() => ready, { untilMs: Math.min(deadlineMs, this.kernel.now() + 1_000) });
        await probe;
      }
      if (!ready) throw new Error(`world: ${node.process.name} could not read the epoch within ${maxMs} ms of virtual time`);
    }
  }

  /** Runs virtual time up to `untilMs` (true time). */
  async runUntil(untilMs: number): Promise<void> {
    await this.kernel.runUntil(untilMs);
  }

  private addArbiter(name: string): void {
    const process = this.register(new SimProcess(this.kernel, { name }));
    const node = { process } as MutableArbiterNode;
    const start = (): void => {
      node.log = createSimLockLog({ kernel: this.kernel, network: this.clusterNetwork, client: process, endpoints: this.cluster.members });
      node.arbiter = new Arbiter({
        log: this.options.wrapArbiterLog === undefined ? node.log : this.options.wrapArbiterLog(node.log, process),
        clock: process.clock(),
        random: process.random('arbiter'),
        classes: this.options.classes,
        authorizer: this.options.authorizer,
        bootstrapEpoch: true,
        ...(this.options.placement === undefined ? {} : { placement: this.options.placement }),
      }, this.options.seams?.arbiter);
      serveArbiter(this.rpcNetwork, process, node.arbiter, (peer) => this.process(peer));
    };
    start();
    process.onRestart(start); // a restarted arbiter is a new one: its queues and caches are gone (ADR-14/18)
    this.arbiterNodes.push(node);
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
}
