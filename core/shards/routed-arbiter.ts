// ADR-07/09, issue 19: one arbiter process serving a region's topology: the coord cluster and its entity
// shards, one Arbiter per cluster (each with its own log client, ADR-07: "one clientv3 client per
// cluster"). Each key goes to the cluster its class's tier and the shard map (watched, so a finished move
// takes effect without a restart) give it; a key homed in another region goes to the coord arbiter, whose
// placement answers the redirect error naming the region (ADR-08): never forwarded.
//
// Sessions (ADR-10) are one lease per cluster: opening a session opens one on every cluster served, and
// the set is recorded on the coord cluster at /sys/session-shards/<coord lease> on the coord lease itself,
// so it vanishes with the session and any arbiter of the topology (they are stateless) resolves it. The
// caller sees only the coord lease's id. A keepalive renews every lease of the set.
import { LockError } from '../lock-error.js';
import { parseLockKey } from '../lock-key.js';
import type * as Api from '../ports/arbiter-api.js';
import type { ArbiterService, Caller } from '../ports/caller.js';
import type { LockLog } from '../ports/lock-log.js';
import { type LeaseId, leaseId } from '../units.js';
import type { ClassLookup } from '../arbiter/policy.js';
import { type ShardMap, type Tier, homeOf } from './shard-map.js';
import { assert } from '../assert.js';

export const SESSION_SHARDS_PREFIX = '/sys/session-shards/';
/** A bound on the cache of resolved session sets (TigerStyle: a limit on everything). */
const MAX_CACHED_SETS = 100_000;

export interface RoutedArbiterOptions {
  /** The coord cluster's name in the topology, its arbiter in `clusters`. */
  readonly coordName: string;
  readonly coordLog: LockLog;
  /** Every cluster served: the coord cluster and the region's entity shards, by name. */
  readonly clusters: ReadonlyMap<string, ArbiterService>;
  readonly classes: ClassLookup;
  readonly region: string;
  /** The shard map as last seen on the coord cluster (src/ watches /sys/shardmap). */
  map(): ShardMap;
}

type SessionSet = Readonly<Record<string, LeaseId>>;

export class RoutedArbiter implements ArbiterService {
  private readonly sets = new Map<LeaseId, SessionSet>();

  constructor(private readonly options: RoutedArbiterOptions) {
    assert(options.clusters.has(options.coordName), () => `routed arbiter: the coord cluster ${options.coordName} has no arbiter`);
  }

  /** The cluster a key of `tier` is served by here; the coord cluster for a key homed elsewhere (its placement redirects). */
  clusterFor(keyText: string, tier: Tier): string {
    let home;
    try {
      home = homeOf(this.options.map(), keyText, tier);
    } catch {
      return this.options.coordName; // its placement names what is wrong (an unknown namespace, say)
    }
    if (home.region !== this.options.region || !this.options.clusters.has(home.cluster)) return this.options.coordName;
    return home.cluster;
  }

  async openSession(caller: Caller, request: Api.OpenSessionRequest): Promise<Api.Session> {
    const coord = await this.arbiter(this.options.coordName).openSession(caller, request);
    const set: Record<string, LeaseId> = { [this.options.coordName]: coord.sessionId };
    try {
      for (const [name, arbiter] of this.options.clusters) {
        if (name !== this.options.coordName) set[name] = (await arbiter.openSession(caller, request)).sessionId;
      }
      const record = JSON.stringify(Object.fromEntries(Object.entries(set).map(([name, id]) => [name, id.toString(10)])));
      await this.options.coordLog.txn({ compare: [], success: [{ type: 'put', key: `${SESSION_SHARDS_PREFIX}${coord.sessionId}`, value: record, lease: coord.sessionId }], failure: [] });
    } catch (error) {
      await this.closeAll(caller, set);
      throw error;
    }
    this.remember(coord.sessionId, set);
    return coord;
  }

  async keepAlive(caller: Caller, request: Api.KeepAliveRequest): Promise<Api.KeepAliveResponse> {
    const set = await this.setOf(request.sessionId);
    const answers = await Promise.all(Object.entries(set).map(([name, id]) => this.arbiter(name).keepAlive(caller, { sessionId: id })));
    return { ttlSeconds: Math.min(...answers.map((answer) => answer.ttlSeconds)) };
  }

  async closeSession(caller: Caller, request: Api.CloseSessionRequest): Promise<void> {
    const set = await this.setOf(request.sessionId);
    this.sets.delete(request.sessionId);
    await this.closeAll(caller, set);
  }

  async acquire(caller: Caller, request: Api.AcquireRequest): Promise<Api.Grant> {
    const key = parseLockKey(request.key);
    const tier = this.options.classes.get(key.namespace, request.className)?.tier ?? 'coord'; // an unknown class: the coord arbiter refuses it
    const cluster = this.clusterFor(key.text, tier);
    const sessionId = await this.sessionOn(request.sessionId, cluster);
    const grant = await this.arbiter(cluster).acquire(caller, { ...request, sessionId });
    return { ...grant, sessionId: request.sessionId };
  }

  async release(caller: Caller, request: Api.ReleaseRequest): Promise<Api.ReleaseResponse> {
    // A release names no class: the key's entity home first, then the coord cluster (a key is one class's).
    let last: Api.ReleaseResponse = { released: false };
    for (const cluster of this.candidates(request.key)) {
      last = await this.arbiter(cluster).release(caller, { ...request, sessionId: await this.sessionOn(request.sessionId, cluster) });
      if (last.released) return last;
    }
    return last;
  }

  async validate(caller: Caller, request: Api.ValidateRequest): Promise<Api.ValidateResponse> {
    let last: Api.ValidateResponse | undefined;
    for (const cluster of this.candidates(request.key)) {
      last = await this.arbiter(cluster).validate(caller, request);
      if (last.valid || last.currentToken !== undefined) return last;
    }
    return last ?? { valid: false, currentToken: undefined };
  }

  async inspect(caller: Caller, key: string): Promise<Api.InspectResponse> {
    let last: Api.InspectResponse | undefined;
    for (const cluster of this.candidates(key)) {
      last = await this.arbiter(cluster).inspect(caller, key);
      if (last.holder !== undefined) return last;
    }
    return last as Api.InspectResponse;
  }

  /** The registry is the same for every cluster of the topology: the coord arbiter answers (issue 29). */
  describeKey(caller: Caller, request: Api.DescribeKeyRequest): Promise<Api.KeyClass> {
    return this.arbiter(this.options.coordName).describeKey(caller, request);
  }

  async requestForceRelease(caller: Caller, request: Api.ForceReleaseRequest): Promise<Api.ForceReleaseProposal> {
    return this.arbiter(await this.holdingCluster(caller, request.key)).requestForceRelease(caller, request);
  }

  async approveForceRelease(caller: Caller, request: Api.ApproveForceReleaseRequest): Promise<Api.ForceReleaseResponse> {
    // The proposal lives on the arbiter that made it: each refuses an id it did not issue (approvals.ts).
    let refusal: unknown;
    for (const arbiter of this.options.clusters.values()) {
      try {
        return await arbiter.approveForceRelease(caller, request);
      } catch (error) {
        if (!(error instanceof LockError) || error.code !== 'stale') throw error;
        refusal = error;
      }
    }
    throw refusal;
  }

  requestEpochAdvance(): Promise<Api.EpochAdvanceProposal> {
    return Promise.reject(this.perCluster());
  }

  approveEpochAdvance(): Promise<Api.AdvanceEpochResponse> {
    return Promise.reject(this.perCluster());
  }

  /** Sealed if any cluster served is; the coord cluster's epoch otherwise. */
  async status(caller?: Caller): Promise<Api.ArbiterStatus> {
    const all = await Promise.all([...this.options.clusters.values()].map((arbiter) => arbiter.status(caller as Caller)));
    const sealed = all.find((status) => status.sealed !== undefined || status.epoch === undefined);
    return sealed ?? (await this.arbiter(this.options.coordName).status(caller as Caller));
  }

  /** Each cluster's own status, for serve's start and the move. */
  statusOf(cluster: string, caller?: Caller): Promise<Api.ArbiterStatus> {
    return this.arbiter(cluster).status(caller as Caller);
  }

  private perCluster(): LockError {
    return new LockError('invalid-argument', 'an epoch advance is per cluster: with --topology, advance a sealed cluster through an arbiter serving it alone (lockstep serve --endpoints ... --coord-endpoints ... --cluster-name NAME), then serve the topology again (ADR-03)');
  }

  private candidates(keyText: string): string[] {
    const entity = this.clusterFor(keyText, 'entity');
    return entity === this.options.coordName ? [entity] : [entity, this.options.coordName];
  }

  private async holdingCluster(caller: Caller, keyText: string): Promise<string> {
    for (const cluster of this.candidates(keyText)) {
      if ((await this.arbiter(cluster).inspect(caller, keyText)).holder !== undefined) return cluster;
    }
    return this.options.coordName;
  }

  private arbiter(cluster: string): ArbiterService {
    const arbiter = this.options.clusters.get(cluster);
    if (arbiter === undefined) throw new LockError('unavailable', `cluster ${cluster} is not served by this arbiter; check the topology file against the shard map`);
    return arbiter;
  }

  private async sessionOn(sessionId: LeaseId, cluster: string): Promise<LeaseId> {
    const id = (await this.setOf(sessionId))[cluster];
    if (id === undefined) throw new LockError('session-expired', `session ${sessionId} has no lease on cluster ${cluster} (opened before the cluster joined the topology); open a new session`);
    return id;
  }

  private async setOf(sessionId: LeaseId): Promise<SessionSet> {
    const cached = this.sets.get(sessionId);
    if (cached !== undefined) return cached;
    const kv = (await this.options.coordLog.range({ key: `${SESSION_SHARDS_PREFIX}${sessionId}` })).kvs[0];
    if (kv === undefined) throw new LockError('session-expired', `session ${sessionId} is not open on this topology (expired, closed, or opened elsewhere); open a new session`);
    const parsed = JSON.parse(kv.value) as Record<string, string>;
    const set = Object.fromEntries(Object.entries(parsed).map(([name, id]) => [name, leaseId(BigInt(id))]));
    this.remember(sessionId, set);
    return set;
  }

  private remember(sessionId: LeaseId, set: SessionSet): void {
    if (this.sets.size >= MAX_CACHED_SETS) this.sets.clear();
    this.sets.set(sessionId, set);
  }

  private async closeAll(caller: Caller, set: SessionSet): Promise<void> {
    await Promise.all(Object.entries(set).map(([name, id]) => this.arbiter(name).closeSession(caller, { sessionId: id }).catch(() => undefined)));
  }
}
