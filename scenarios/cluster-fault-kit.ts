// Shared parts of the single-cluster fault scenarios (stuck-leader, partition, quorum-loss, clock-drift):
// the lock class they all guard a ledger row with, the world's policy, and probes that let a scenario
// report *when* things happened in true time without reaching into core/: what a client said and heard
// on lock.v1 (a wrapApi recorder, which also shows when its library fenced), when each etcd member
// became leader (the cluster observer), and a holder that tries again when the lock service cannot be
// reached, as a real caller would. Their common run is in two-holders.ts.
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import type { BeliefInterval } from '../core/checkers/index.js';
import { ClassRegistry, type LockClass } from '../core/classes/index.js';
import { DEFAULT_FENCE_MARGIN_MS } from '../core/client/client-session.js';
import { isLockError } from '../core/lock-error.js';
import type { ArbiterApi } from '../core/ports/arbiter-api.js';
import type { MemberObserver } from '../sim/cluster/member.js';
import type { Kernel } from '../sim/kernel/kernel.js';
import type { RaftRole } from '../sim/raft/types.js';
import type { ClientNode, ClientOptions, World } from '../sim/world/world.js';
import type { DeadlineProbe } from './deadline-probe.js';
import { type HolderPlan, type HolderResult, runHolder } from './holder.js';

export const NAMESPACE = 'payments';
export const LEDGER_CLASS = 'ledger-writes';

/** A correctness class that fails closed (ADR-04) with the given TTL (ADR-11: 5 s is the platform minimum). */
export function ledgerClass(ttlSeconds: number): LockClass {
  return { namespace: NAMESPACE, name: LEDGER_CLASS, purpose: 'correctness', enforcement: 'fenced', resource: 'sim://ledger', ttlSeconds, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };
}

/** The classes and prefix grants of a world in which every named client may lock anything in the namespace. */
export function ledgerPolicy(ttlSeconds: number, clients: readonly string[]): { readonly classes: ClassRegistry; readonly authorizer: PrefixGrants } {
  return { classes: new ClassRegistry([ledgerClass(ttlSeconds)]), authorizer: new PrefixGrants(clients.map((name) => namespaceGrant(`spiffe://sim/${name}`, NAMESPACE))) };
}

// ---- lock.v1 as one client used it ------------------------------------------------------------------

export type ApiMethod = keyof ArbiterApi;

/** One call a client made to its arbiter, in true time; `outcome` is 'ok' or the LockError code. */
export interface CallRecord {
  readonly method: ApiMethod;
  readonly sentMs: number;
  readonly answeredMs: number;
  readonly outcome: string;
}

/** An ArbiterApi that records every call into `calls` (give it to World.addClient's wrapApi). */
export function recordingApi(api: ArbiterApi, kernel: Kernel, calls: CallRecord[]): ArbiterApi {
  const timed = <T>(method: ApiMethod, call: () => Promise<T>): Promise<T> => {
    const sentMs = kernel.now();
    return call().then(
      (value) => {
        calls.push({ method, sentMs, answeredMs: kernel.now(), outcome: 'ok' });
        return value;
      },
      (error: unknown) => {
        calls.push({ method, sentMs, answeredMs: kernel.now(), outcome: isLockError(error) ? error.code : 'error' });
        throw error;
      },
    );
  };
  return {
    openSession: (request) => timed('openSession', () => api.openSession(request)),
    keepAlive: (request) => timed('keepAlive', () => api.keepAlive(request)),
    closeSession: (request) => timed('closeSession', () => api.closeSession(request)),
    acquire: (request) => timed('acquire', () => api.acquire(request)),
    release: (request) => timed('release', () => api.release(request)),
    validate: (request) => timed('validate', () => api.validate(request)),
    inspect: (key) => timed('inspect', () => api.inspect(key)),
    describeKey: (request) => timed('describeKey', () => api.describeKey(request)),
    requestForceRelease: (request) => timed('requestForceRelease', () => api.requestForceRelease(request)),
    approveForceRelease: (request) => timed('approveForceRelease', () => api.approveForceRelease(request)),
    requestEpochAdvance: (request) => timed('requestEpochAdvance', () => api.requestEpochAdvance(request)),
    approveEpochAdvance: (request) => timed('approveEpochAdvance', () => api.approveEpochAdvance(request)),
    status: () => timed('status', () => api.status()),
  };
}

/** A client whose lock.v1 calls are recorded. */
export interface ProbedClient {
  readonly node: ClientNode;
  readonly calls: CallRecord[];
}

/** A client whose calls are recorded, and seen by the run's deadline probe. */
export function probedClient(world: World, probe: DeadlineProbe, name: string, options: Omit<ClientOptions, 'wrapApi'> = {}): ProbedClient {
  const calls: CallRecord[] = [];
  const node = world.addClient(name, { ...options, wrapApi: (api, process) => probe.wrapApi(recordingApi(api, world.kernel, calls), process) });
  return { node, calls };
}

/** The keepalives a client sent, in order. */
export function keepalives(calls: readonly CallRecord[]): CallRecord[] {
  return calls.filter((c) => c.method === 'keepAlive').sort((a, b) => a.sentMs - b.sentMs);
}

/**
 * When the client library fenced a session (ADR-12 stage two, or a keepalive answered "session expired"):
 * on every fence other than a deliberate close it sends a best-effort closeSession at once, so its
 * holds do not read as leaks later (core/client/lock-client.ts, ADR-13). runHolder never closes a client,
 * so in these scenarios the first closeSession is the fence. The onFence callback is not used for this:
 * a holder that has already released its handle (runHolder does, once canStart() says no) is not called.
 */
export function fencedAtMs(calls: readonly CallRecord[]): number | undefined {
  return calls.filter((c) => c.method === 'closeSession').sort((a, b) => a.sentMs - b.sentMs)[0]?.sentMs;
}

/**
 * Sessions the library fenced before it had sent a single keepalive on them: each successful
 * openSession followed by a fence (closeSession) with no keepalive sent in between. The deadline counts
 * from the open's send time (ADR-12), the first keepalive from its answer, so an open slower than
 * TTL - margin - TTL/3 loses its session unused.
 */
export function sessionsFencedBeforeFirstKeepalive(calls: readonly CallRecord[]): number {
  const ordered = [...calls].sort((a, b) => a.sentMs - b.sentMs);
  let count = 0;
  for (const open of ordered.filter((c) => c.method === 'openSession' && c.outcome === 'ok')) {
    const fence = ordered.find((c) => c.method === 'closeSession' && c.sentMs >= open.answeredMs);
    if (fence === undefined) continue;
    if (!ordered.some((c) => c.method === 'keepAlive' && c.sentMs >= open.answeredMs && c.sentMs < fence.sentMs)) count += 1;
  }
  return count;
}

/**
 * The send time of the last renewal answered OK before `beforeMs`: a keepalive, or the openSession that
 * began the session (the library counts the deadline from the open's send time until a keepalive
 * succeeds). ADR-12 measures the fence deadline from it.
 */
export function lastGoodRenewalSentMs(calls: readonly CallRecord[], beforeMs: number): number | undefined {
  const good = calls.filter((c) => (c.method === 'keepAlive' || c.method === 'openSession') && c.outcome === 'ok' && c.answeredMs <= beforeMs);
  return good.sort((a, b) => a.sentMs - b.sentMs).at(-1)?.sentMs;
}

export interface FenceTiming {
  /** When the library fenced (true time), if it did. */
  readonly fencedMs: number | undefined;
  /** The send time of the last renewal answered before the fence. */
  readonly lastGoodSendMs: number | undefined;
  /** ADR-12's deadline in true time: that send + (TTL - margin) / the clock's rate. */
  readonly deadlineMs: number | undefined;
}

/** Where a client fenced, and where ADR-12 says it should have, for a clock running at `rate` (1 + ppm / 10^6). */
export function fenceTiming(calls: readonly CallRecord[], ttlSeconds: number, rate = 1, marginMs = DEFAULT_FENCE_MARGIN_MS): FenceTiming {
  const fencedMs = fencedAtMs(calls);
  const lastGoodSendMs = lastGoodRenewalSentMs(calls, fencedMs ?? Number.POSITIVE_INFINITY);
  const deadlineMs = lastGoodSendMs === undefined ? undefined : lastGoodSendMs + (ttlSeconds * 1_000 - marginMs) / rate;
  return { fencedMs, lastGoodSendMs, deadlineMs };
}

// ---- leaders ------------------------------------------------------------------------------------------

export interface RoleChange {
  readonly member: string;
  readonly role: RaftRole;
  readonly term: number;
  /** When the member's Ready loop reported the change (true time): a stuck loop reports it late, as etcd does. */
  readonly atMs: number;
}

/** Records every member's raft role changes; pass `observer` in SimClusterOptions, then `bind` the world's kernel. */
export class LeaderLog {
  readonly changes: RoleChange[] = [];
  private kernel: Kernel | undefined;

  readonly observer: MemberObserver = {
    onSoftState: (member, soft, term) => {
      if (this.kernel !== undefined) this.changes.push({ member: member.name, role: soft.role, term, atMs: this.kernel.now() });
    },
  };

  bind(kernel: Kernel): void {
    this.kernel = kernel;
  }

  /** The first member other than `except` to become leader at or after `fromMs`. */
  firstLeaderAfter(fromMs: number, except?: string): RoleChange | undefined {
    return this.changes.find((c) => c.atMs >= fromMs && c.role === 'leader' && c.member !== except);
  }

  /** When `member` first stopped being leader at or after `fromMs`. */
  steppedDownAfter(member: string, fromMs: number): RoleChange | undefined {
    return this.changes.find((c) => c.atMs >= fromMs && c.member === member && c.role !== 'leader');
  }
}

/** Arbiter indexes grouped by the etcd member their connection goes to (SimLockLog's current endpoint), largest group first. */
export function arbiterConnections(world: World): Array<{ readonly member: string; readonly arbiters: number[] }> {
  const groups = new Map<string, number[]>();
  world.arbiters.forEach((node, index) => groups.set(node.log.currentEndpoint, [...(groups.get(node.log.currentEndpoint) ?? []), index]));
  return [...groups].map(([member, arbiters]) => ({ member, arbiters })).sort((a, b) => b.arbiters.length - a.arbiters.length || (a.member < b.member ? -1 : 1));
}

export function arbiterName(world: World, index: number): string {
  const node = world.arbiters[index];
  if (node === undefined) throw new RangeError(`no arbiter ${index}; the world has ${world.arbiters.length}`);
  return node.process.name;
}

/** Makes `member` the leader (etcd MoveLeader) and runs until it has promoted its lessor, bounded by `withinMs`. */
export async function settleLeaderOn(world: World, member: string, withinMs = 10_000): Promise<void> {
  const untilMs = world.kernel.now() + withinMs;
  const led = (): boolean => world.cluster.leader()?.name === member && world.cluster.member(member).state?.lessor.isPrimary() === true;
  while (!led() && world.kernel.now() < untilMs) {
    if (world.cluster.leader()?.name !== member) world.cluster.moveLeader(member);
    await world.kernel.runUntilCondition(led, { untilMs: Math.min(untilMs, world.kernel.now() + 2_000) });
  }
  if (!led()) throw new Error(`scenario setup: ${member} did not become a promoted leader within ${withinMs} ms of virtual time`);
}

// ---- a caller that retries ----------------------------------------------------------------------------

export interface RetryPolicy {
  /** Error codes after which the caller tries again (the lock service could not be reached). */
  readonly retryOn: readonly string[];
  readonly retryAfterMs: number;
  /** A bound on attempts (TigerStyle: every retry loop has a named maximum). */
  readonly maxAttempts: number;
}

/**
 * What a caller does when the service cannot help right now: try again a second later. `session-expired`
 * is among them because the client library says "acquire again" when the session was fenced while an
 * acquire was in flight.
 */
export const RETRY_WHEN_UNREACHABLE: RetryPolicy = { retryOn: ['unavailable', 'indeterminate', 'wait-timeout', 'session-expired'], retryAfterMs: 1_000, maxAttempts: 30 };

export interface Refusal {
  readonly atMs: number;
  readonly code: string;
}

export interface RetriedHolderResult {
  readonly result: HolderResult;
  readonly attempts: number;
  /** Attempts that ended without a grant, with their error, in true time. */
  readonly refusals: readonly Refusal[];
}

/** runHolder, tried again after each refusal the policy names, up to its bound. */
export async function runHolderWithRetries(node: ClientNode, plan: HolderPlan, beliefs: BeliefInterval[], policy: RetryPolicy): Promise<RetriedHolderResult> {
  const refusals: Refusal[] = [];
  const clock = node.process.clock();
  for (let attempt = 1; ; attempt += 1) {
    const result = await runHolder(node, plan, beliefs);
    if (result.error === undefined) return { result, attempts: attempt, refusals };
    refusals.push({ atMs: node.process.kernel.now(), code: result.error });
    if (!policy.retryOn.includes(result.error) || attempt >= policy.maxAttempts) return { result, attempts: attempt, refusals };
    await clock.sleep(policy.retryAfterMs);
  }
}

// ---- reading the log ----------------------------------------------------------------------------------

/** Milliseconds with one decimal, for metrics (virtual times carry float noise from drifting clocks). */
export function ms(value: number): number {
  return Math.round(value * 10) / 10;
}

/** `atMs - fromMs`, or undefined when either event did not happen. */
export function sinceMs(atMs: number | undefined, fromMs: number | undefined): number | undefined {
  return atMs === undefined || fromMs === undefined ? undefined : atMs - fromMs;
}

/**
 * The metrics of a run, rounded to 0.1 ms (virtual times carry float noise from drifting clocks); a
 * metric whose event never happened is left out rather than given a sentinel, since many of these are
 * signed differences where -1 would be a real value.
 */
export function present(metrics: Readonly<Record<string, number | undefined>>): Record<string, number> {
  return Object.fromEntries(Object.entries(metrics).flatMap(([name, value]) => (value === undefined ? [] : [[name, ms(value)]])));
}
