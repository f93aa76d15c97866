// The explorer's scenario (swarm testing): several clients, spread over two arbiter replicas, contend for
// a few keys of a fenced ledger while a fault schedule drawn from the seed (or given: replay, shrinking,
// `lockstep explore`) pauses, crashes, cuts and slows processes, browns them out, stalls disks, drifts
// clocks (within ADR-12's margin), has the operators advance the epoch and restore the cluster from a
// backup. Its workload parameters and its fault mix come from the seed too, so two seeds differ in what
// they stress, not only in when. The etcd is the release ADR-10 pins (3.5.13's leadership checks).
//
// The default variant runs the real core and must pass. Every other variant is a mutant (mutants.ts): the
// same world with one core rule broken through the core's seams, on a schedule that exposes it at every
// seed, with the workload parameters it pins over the seed's draw (the explorer keeps the pins too).
//
// The operators' epoch advance follows ADR-09's procedure for a move: drain (arbiters refuse new grants),
// wait until no holder is left, advance, reopen. An advance while holders still work would end their holds
// without telling them (like a force-release, ADR-20): a declared operator override, not a bug to find.
// A restore follows docs/seal-and-epochs.md with the arbiters stopped, and only from a backup of the
// current epoch (explore-schedule.ts says why: the two other ways are known gaps, not news).
import type { Placement } from '../core/arbiter/policy.js';
import { advanceEpochByTwo } from '../core/arbiter/two-person.js';
import { SIM_OPERATOR_CALLERS } from '../sim/world/operators.js';
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import type { BeliefInterval, Disturbance, Interest } from '../core/checkers/index.js';
import { ClassRegistry, type LockClass } from '../core/classes/index.js';
import { isLockError } from '../core/lock-error.js';
import { Rng } from '../sim/kernel/rng.js';
import type { SimProcess } from '../sim/process/process.js';
import type { SimResource } from '../sim/world/resource.js';
import { World } from '../sim/world/world.js';
import { type Episode, FIRST_FAULT_MS, SWARM_ARBITERS, arbiterIndexOf, drawEpisodes, faultMix, swarmClientName, toFaults } from './explore-schedule.js';
import { type Fault, scheduleFaults } from './faults.js';
import { DeadlineProbe } from './deadline-probe.js';
import { disturbancesOf } from './disturbances.js';
import { collectHistory } from './history.js';
import { MUTANTS, type Mutant, mutantNamed } from './mutants.js';
import { checkSwarmUnprotected, drawsOpenClass, openClassWorld, startCacheHolders } from './swarm-open.js';
import { noisyGrant, startNoisyNeighbour } from './noisy-neighbour.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, type ViolationVariant, namingChecks, worldBasics } from './scenario.js';
import { type Counters, Floor, type WorkerParameters, work } from './swarm-worker.js';

export const SWARM_TTL_SECONDS = 5; // ADR-11's minimum: short leases make expiry races frequent
const WORKLOAD_MS = 30_000;
/** Faults start before this (relative to the workload's start). */
export const FAULT_WINDOW_MS = 26_000;
/** After the workload: every fault has ended, leases expire, holders finish or fence. */
const TAIL_MS = 16_000;
const CANSTART_POLL_MS = 100;
const MAX_QUIET_WAIT_MS = 20_000;
/** ADR-15's poll: every second with ±20% jitter (core/arbiter KeyQueue). */
const POLL_INTERVAL_MAX_MS = 1_200;
/** The liveness checkers' slack: RPCs, a grant txn, the 500 ms lease expiry scan. */
const LIVENESS_BOUND_MS = 1_500;
/** After a fault ends: an election, renewals, expiries, a waiter's next poll. */
const RECOVER_MS = SWARM_TTL_SECONDS * 1_000 + 2_000;
const NAMESPACE = 'payments';
/** The pinned etcd release (ADR-10): leadership confirmed before a renewal and before revoking, pre-vote on (3.5's default). */
const ETCD_3_5_13 = { confirmLeadershipOnRenew: true, confirmLeadershipOnRevoke: true, preVote: true } as const;

/** A correctness class guarding a fenced ledger, failing closed (ADR-01/04), with the swarm's short TTL. */
function ledger(fairness: LockClass['fairness']): LockClass {
  return { namespace: NAMESPACE, name: 'ledger-writes', purpose: 'correctness', enforcement: 'fenced', resource: 'sim://ledger', ttlSeconds: SWARM_TTL_SECONDS, tier: 'entity', onQuorumLoss: 'closed', fairness };
}

function identityOf(client: string): string {
  return `spiffe://sim/${client}`;
}

/** The swarm's workload: the knobs each worker reads (swarm-worker.ts), and the world's shape. */
export interface SwarmParameters extends WorkerParameters {
  readonly clients: number;
  readonly keys: number;
  // Issue 11's dimensions, which 10,000 seeds of the swarm above never generated:
  /** Tasks of one process sharing its LockClient and session, acquiring and releasing the same keys (S1). */
  readonly tasksPerClient: number;
  /** Each client's calls go to either arbiter replica, not to one (S2: an epoch advanced through one meets the other's cache). */
  readonly spread: boolean;
  /** ADR-14's durable lines (waiter keys in the log) instead of the arbiters' memory (L1, L5). */
  readonly fairness: LockClass['fairness'];
  /** A key below another in the key set: `ledger-1` and `ledger-1/sub` (L4). */
  readonly nestedKeys: boolean;
  /**
   * Issue 29: client processes per identity, replicas of one workload (as every pod of a Kubernetes
   * service account shares its SPIFFE ID), each naming its instance: they queue as distinct holders.
   */
  readonly replicasPerIdentity: number;
  /** Issue 28: a tenant flooding within its limits beside the clients (noisy-neighbour.ts). Pinned only, never drawn. */
  readonly noisyNeighbour?: boolean;
  /** Issue 33: an efficiency class that fails open beside the ledger, with two holders (swarm-open.ts, ADR-04). */
  readonly openClass: boolean;
}

/** The workload a seed draws (its own stream: the world's streams are not shifted by it). */
export function swarmParameters(seed: string): SwarmParameters {
  const stream = new Rng(seed).stream('swarm/parameters');
  return {
    clients: stream.int(3, 5),
    keys: stream.int(1, 3),
    waitMs: stream.int(1_000, 8_000),
    tryLockShare: stream.int(0, 3) / 10,
    unitsMax: stream.int(2, 6),
    prepareMs: stream.int(50, 400),
    gapMs: stream.int(20, 200),
    thinkMsMax: stream.int(0, 1_500),
    checkBeforeWrite: stream.chance(0.5),
    ...widenedParameters(seed),
    replicasPerIdentity: replicasPerIdentity(seed),
    openClass: drawsOpenClass(seed),
  };
}

/** Issue 29's dimension, from a stream of its own, so every other draw of a seed stays what it was. */
function replicasPerIdentity(seed: string): number {
  return new Rng(seed).stream('swarm/parameters/replicas').int(1, 3);
}

/**
 * Client `index`'s identity and instance: the first replica of its group names the identity. A sole
 * replica names no instance (the workload's one unnamed instance), so its world is what it was before.
 */
export function swarmHolderOf(names: readonly string[], index: number, replicas: number): { identity: string; instance?: string } {
  const first = names[index - (index % replicas)] ?? names[index] ?? swarmClientName(index);
  return replicas > 1 ? { identity: identityOf(first), instance: names[index] ?? swarmClientName(index) } : { identity: identityOf(first) };
}

/** Issue 11's dimensions, from a stream of their own: the draws above stay what they were for every seed. */
function widenedParameters(seed: string): Pick<SwarmParameters, 'tasksPerClient' | 'spread' | 'fairness' | 'nestedKeys'> {
  const stream = new Rng(seed).stream('swarm/parameters/widened');
  return { tasksPerClient: stream.int(1, 3), spread: stream.chance(0.5), fairness: stream.chance(0.5) ? 'durable' : 'memory', nestedKeys: stream.chance(0.5) };
}

/** The key set: `ledger-1..N`, and `ledger-1/sub` below the first when keys nest. */
export function swarmKeys(parameters: Pick<SwarmParameters, 'keys' | 'nestedKeys'>): string[] {
  const keys = Array.from({ length: parameters.keys }, (_, i) => `${NAMESPACE}/ledger-${i + 1}`);
  return parameters.nestedKeys ? [...keys, `${NAMESPACE}/ledger-1/sub`] : keys;
}

/** The workload `variant` runs at `seed`: the seed's draw, with what a mutant pins (mutants.ts). */
export function swarmParametersFor(variant: string, seed: string): SwarmParameters {
  return { ...swarmParameters(seed), ...mutantNamed(variant)?.pins };
}

/** The schedule the seed draws for the real core (also what `lockstep explore` starts from for that seed). */
export function swarmEpisodes(seed: string): Episode[] {
  return drawEpisodes(seed, { clients: swarmParameters(seed).clients, windowMs: FAULT_WINDOW_MS });
}

export const swarm: Scenario = {
  name: 'swarm',
  description: 'Clients on two arbiters contend for a fenced ledger under a fault schedule and workload drawn from the seed (the explorer runs it); variants other than the first run a mutant core.',
  variants: [
    { name: 'real-core', expect: 'pass', description: 'the core as shipped: no schedule the explorer draws may break a check' },
    ...MUTANTS.map((m): ViolationVariant => ({ name: m.name, expect: 'violation', shows: m.shows, description: namingChecks(`mutant: ${m.description}`, m.shows) })),
  ],
  run: (context) => runSwarm(context, mutantNamed(context.variant.name)),
};

/**
 * One swarm run: `mutant`'s core (the real one when undefined) on the workload the seed draws with
 * `pins` over it (the mutant's own by default; a test runs the real core on a mutant's pins and schedule).
 */
export async function runSwarm(context: ScenarioContext, mutant: Mutant | undefined, pins: Partial<SwarmParameters> = mutant?.pins ?? {}): Promise<ScenarioOutcome> {
  const parameters: SwarmParameters = { ...swarmParameters(context.seed), ...pins };
  const faults: readonly Fault[] = context.faults ?? toFaults(mutant === undefined ? swarmEpisodes(context.seed) : mutant.demonstration);
  const names = Array.from({ length: parameters.clients }, (_, i) => swarmClientName(i));
  const floor = new Floor();
  const cls = ledger(parameters.fairness);
  const openClass = parameters.openClass ? openClassWorld(SWARM_TTL_SECONDS) : undefined; // ADR-04
  const world = swarmWorld(context, parameters, names, floor, cls, mutant, openClass);
  const probe = new DeadlineProbe(world);
  await world.start();
  const resource = world.addResource('ledger-db', { fenced: true, writeMs: 20 });
  const replicas = parameters.spread ? { arbiters: SWARM_ARBITERS.map((_, i) => i) } : {};
  const nodes = names.map((name, i) => world.addClient(name, { ...swarmHolderOf(names, i, parameters.replicasPerIdentity), arbiter: arbiterIndexOf(i), ...replicas, wrapApi: probe.wrapApi }));
  const counters: Counters = { acquires: 0, granted: 0, refused: new Map(), writesAccepted: 0, writesRejected: 0, writesUnanswered: 0, writesWithheld: 0, fenced: 0, advancesDone: 0, advancesSkipped: 0 };
  const beliefs: BeliefInterval[] = [];
  const interests: Interest[] = [];
  const drains: Disturbance[] = [];
  const startMs = world.kernel.now();
  const appliedFaults = scheduleFaults(world, faults.filter((f) => f.kind !== 'advance-epoch'), { holding: (client) => floor.clientHolds(client) });
  for (const fault of faults) {
    if (fault.kind !== 'advance-epoch') continue;
    world.kernel.schedule(startMs + fault.atMs, () => void maintenance(world, fault.via, floor, counters, drains, (line) => appliedFaults.push(`${fault.atMs} ms: ${line} (at ${Math.round(world.kernel.now() - startMs)} ms)`)));
  }
  // Workers are never awaited: a crashed client's work never settles, as on a dead machine.
  const keys = swarmKeys(parameters);
  const options = { parameters, className: cls.name, ttlSeconds: SWARM_TTL_SECONDS, keys, resource, stopAtMs: startMs + WORKLOAD_MS, beliefs, interests, counters, floor };
  for (const node of nodes) for (let task = 0; task < parameters.tasksPerClient; task += 1) void work(node, task, options);
  if (openClass !== undefined) startCacheHolders(world, openClass.open, { ttlSeconds: SWARM_TTL_SECONDS, stopAtMs: options.stopAtMs, wrapApi: probe.wrapApi });
  const noisy = parameters.noisyNeighbour === true ? startNoisyNeighbour(world, { arbiter: 0, namespace: NAMESPACE, victimKeys: keys, stopAtMs: options.stopAtMs, wrapApi: probe.wrapApi }) : undefined;
  await world.runUntil(startMs + WORKLOAD_MS + TAIL_MS);
  const ttlMs = SWARM_TTL_SECONDS * 1_000;
  const disturbances = disturbancesOf(faults, { startMs, ttlMs, waitMs: parameters.waitMs, recoverMs: RECOVER_MS }, drains);
  const liveness = { interests, disturbances, bounds: { ttlMs, pollIntervalMs: POLL_INTERVAL_MAX_MS, boundMs: LIVENESS_BOUND_MS, endedAtMs: world.kernel.now() } };
  return {
    world,
    faults,
    appliedFaults,
    history: { ...collectHistory(world, beliefs, probe, world.grants), liveness }, // every cluster's grants: a restore starts a new one
    ...(openClass === undefined ? {} : { checks: [checkSwarmUnprotected(world, openClass.open, beliefs)] }),
    parameters: { ...parameters, ttlSeconds: SWARM_TTL_SECONDS, workloadMs: WORKLOAD_MS, faultWindowMs: [FIRST_FAULT_MS, FAULT_WINDOW_MS], faultMix: faultMix(context.seed), mutant: mutant?.name ?? 'none' },
    metrics: {
      ...swarmMetrics(world, faults, appliedFaults, counters, resource, beliefs, interests),
      ...noisy,
      ...(openClass === undefined ? {} : { unprotectedGrantsStored: openClass.open.store.records.filter((r) => r.kind === 'grant').length }),
    },
  };
}

/** The swarm's world: two arbiters on etcd 3.5.13, the ledger class, each identity's grant, the floor's drain. */
function swarmWorld(context: ScenarioContext, parameters: SwarmParameters, names: readonly string[], floor: Floor, cls: LockClass, mutant: Mutant | undefined, openClass: ReturnType<typeof openClassWorld> | undefined): World {
  const placement: Placement = { check: (_key, tier) => (tier !== undefined && floor.draining ? { kind: 'draining' } : undefined) };
  return new World({
    ...worldBasics(context),
    classes: new ClassRegistry([cls, ...(openClass?.classes ?? [])]),
    authorizer: new PrefixGrants([
      ...[...new Set(names.map((_, i) => swarmHolderOf(names, i, parameters.replicasPerIdentity).identity))].map((identity) => namespaceGrant(identity, NAMESPACE)),
      ...(parameters.noisyNeighbour === true ? [noisyGrant(NAMESPACE)] : []),
      ...(openClass?.grants ?? []),
    ]),
    ...(openClass === undefined ? {} : { unprotected: { store: openClass.open.store } }),
    arbiters: SWARM_ARBITERS.length,
    // ADR-10 pins an etcd that confirms leadership before it renews a lease, and so before it revokes an
    // expired one (3.5.13): 3.4.23's deposed leader, its disk stalled, revokes a lease its successor has
    // renewed (the stuck-leader scenario shows 3.4.23; the explorer found the revoke half on seed 2318).
    cluster: ETCD_3_5_13,
    placement,
    logFaults: true, // lossy watches and lost answers (explore-schedule.ts)
    ...(mutant === undefined ? {} : { seams: mutant.seams }),
  });
}

/** The run's figures: faults, grants, refusals by code, writes by fate, epoch advances, log faults. */
function swarmMetrics(world: World, faults: readonly Fault[], appliedFaults: readonly string[], counters: Counters, resource: SimResource, beliefs: readonly BeliefInterval[], interests: readonly Interest[]): Record<string, number> {
  const logFaults = world.arbiters.map((a) => world.logFaultsOf(a.process.name)?.counts);
  const refused = Object.fromEntries([...counters.refused].sort(([a], [b]) => (a < b ? -1 : 1)).map(([code, n]) => [`refused_${code}`, n]));
  return {
    faults: faults.length,
    faultsSkipped: appliedFaults.filter((line) => line.includes('skip')).length,
    acquires: counters.acquires,
    granted: counters.granted,
    grantsInLog: world.grants.length,
    restores: world.clusters.length - 1,
    ...refused,
    beliefPoints: beliefs.length,
    writesAccepted: counters.writesAccepted,
    writesRejected: counters.writesRejected,
    // The fence takes a token only above its mark, so a holder's second write with one token is refused too.
    writesRejectedStale: resource.writes.filter((w) => !w.accepted && !resource.writes.some((a) => a.accepted && a.key === w.key && a.token === w.token)).length,
    writesUnanswered: counters.writesUnanswered,
    writesWithheld: counters.writesWithheld,
    fenced: counters.fenced,
    epochAdvances: counters.advancesDone,
    epochAdvancesSkipped: counters.advancesSkipped,
    answersLost: logFaults.reduce((n, c) => n + (c?.answersLost ?? 0), 0),
    watchBatchesDropped: logFaults.reduce((n, c) => n + (c?.watchBatchesDropped ?? 0), 0),
    interestsInDoubt: interests.filter((i) => i.outcome === 'in-doubt' || i.release === 'in-doubt').length,
  };
}

/**
 * The operators' epoch advance as ADR-09 does it for a move: drain (new acquires are refused), wait until
 * no client is inside an acquire-to-release (a crashed client's holds end with its lease), advance through
 * `via` with two approvers, reopen once the outcome is known. Skipped, and logged, when the floor never
 * clears or `via` is down.
 */
async function maintenance(world: World, via: string, floor: Floor, counters: Counters, drains: Disturbance[], log: (line: string) => void): Promise<void> {
  if (floor.draining) {
    counters.advancesSkipped += 1;
    return log(`skip: advance the epoch via ${via} (a maintenance is already under way)`);
  }
  floor.draining = true;
  const kernel = world.kernel;
  // The drain is a disturbance (ADR-09: waiters are not granted while it lasts), up to its reopening and the recovery after.
  const drain: { what: string; fromMs: number; toMs?: number; quorumHealthy: boolean } = { what: `drained maintenance via ${via}`, fromMs: kernel.now(), quorumHealthy: false };
  drains.push(drain);
  const reopen = (): void => {
    floor.draining = false;
    drain.toMs = kernel.now() + RECOVER_MS;
  };
  const quiet = (): boolean => floor.busyClients().every((name) => world.process(name).state === 'crashed');
  const deadlineMs = kernel.now() + MAX_QUIET_WAIT_MS;
  while (!quiet() && kernel.now() < deadlineMs) await kernel.sleep(CANSTART_POLL_MS);
  const node = world.arbiters.find((a) => a.process.name === via);
  if (!quiet() || node === undefined || node.process.state !== 'running') {
    counters.advancesSkipped += 1;
    reopen();
    return log(`skip: advance the epoch via ${via} (${quiet() ? `${via} is not running` : 'holders still at work'})`);
  }
  const reason = 'swarm maintenance: drain, advance the epoch, reopen (ADR-09)';
  // The range reopens only once the advance's outcome is known: an advance still in flight (its arbiter
  // frozen), or one that may or may not have committed, would delete the holds of holders working again.
  const incarnation = node.process.incarnation;
  const answer = advanceEpochByTwo(node.arbiter, SIM_OPERATOR_CALLERS, reason).then(
    (done) => ({ known: true, line: `epoch advanced to ${done.epoch} via ${via} after a drain, ${done.holdsDeleted} holds deleted`, advanced: true }),
    (error: unknown) => {
      const code = isLockError(error) ? error.code : 'error';
      return { known: code !== 'indeterminate', line: `epoch advance via ${via} failed: ${code}`, advanced: false };
    },
  );
  const outcome = await Promise.race([answer, crashOf(node.process, incarnation).then(() => ({ known: false, line: `${via} crashed during the epoch advance`, advanced: false }))]);
  if (outcome.advanced) counters.advancesDone += 1;
  else counters.advancesSkipped += 1;
  if (outcome.known) reopen();
  log(outcome.known ? outcome.line : `${outcome.line}: the advance may yet land, so the range stays drained`);
}

/** Resolves when `process` leaves incarnation `incarnation` (a crash ends its requests' answers, not their effects). */
async function crashOf(process: SimProcess, incarnation: number): Promise<void> {
  while (process.incarnation === incarnation && process.state !== 'crashed') await process.kernel.sleep(CANSTART_POLL_MS);
}
