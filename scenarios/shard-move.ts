// ADR-09 in the simulator: an entity shard is added under load. Rendezvous homing moves only the ranges
// whose top score is now the new shard (about 1/N). Each shard is its own etcd cluster with its own
// revisions (the new one's are far lower: that is the point), served by its own arbiter; workers keep a
// client per shard and route each key by the shard map. A rebalance controller moves one range at a
// time with core's procedure (core/shards/shard-move.ts, issue 19; the same code `lockstep shards move`
// runs): drain it (the map lists it as draining: its arbiter refuses new grants), wait until the source
// holds nothing in it, advance the destination's epoch above the source's (so its tokens are above any
// the source issued), and flip the map. Skipping the advance lets a moved key's token go backwards;
// skipping the drain lets two shards hold one key at once (the procedure's test seam, skipSteps). In
// `controller-crashes` the controller dies right after each step of each range and is run again.
//
// Whether a hold straddles a flip is luck under the workers' random key picks, so the no-drain variant
// makes it certain: before the workload starts, a long job takes the first moving key on its source
// shard and keeps it until a late job, which asks for that key as soon as its range has flipped, has
// been answered by the destination. That is the hold the drain exists to wait for (ADR-09).
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import { SIM_OPERATOR_CALLERS } from '../sim/world/operators.js';
import { ClassRegistry } from '../core/classes/index.js';
import type { BeliefInterval } from '../core/checkers/index.js';
import { isLockError } from '../core/lock-error.js';
import { type ShardMap, homeOf } from '../core/shards/shard-map.js';
import { MOVE_STEPS, type MoveArbiter, type MoveRecord, type MoveStep, type ShardMovePorts, type ShardMoveRequest, runShardMove } from '../core/shards/shard-move.js';
import { World, type ArbiterNode, type ClientNode } from '../sim/world/world.js';
import { crossClusterExclusion, tokenMetrics } from './cross-cluster.js';
import { horizonOf } from './horizon.js';
import { movedKeyTokens } from './moved-key-tokens.js';
import { type StartedFaults, startFaults } from './two-holders.js';
import { DeadlineProbe } from './deadline-probe.js';
import { collectHistory } from './history.js';
import { type Attempt, fenceRejections, runLockLoop, settleLoops } from './lock-loop.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, worldBasics } from './scenario.js';
import { ADD_SHARD_AT_MS, CLASS, type ControllerLog, KEYS, MAX_DRAIN_WAIT_MS, MapHolder, type MovedRange, NEW_SHARD, OLD_SHARDS, POLL_MS, REGION, RUN_FOR_MS, STOP_AT_MS, type Steps, TTL_SECONDS, WORKERS, LATE_JOB, LONG_JOB, jobIdentity, stepsOf } from './shard-move-setup.js';
import { Straddle } from './shard-move-straddle.js';

export const shardMove: Scenario = {
  name: 'shard-move',
  description: 'An entity shard is added under load; each moving range is drained, its holds end, the destination epoch is advanced above the source, the map flips (ADR-09).',
  variants: [
    { name: 'drain-advance-flip', expect: 'pass', description: 'drain, wait for holds, advance the destination epoch above the source, flip: moved keys keep rising tokens and one holder' },
    { name: 'controller-crashes', expect: 'pass', description: 'the same move, the controller crashing right after each step of each range and run again: core resumes it, with one advance and the same safety' },
    { name: 'no-epoch-advance', expect: 'violation', shows: ['token-order'], description: 'the destination keeps epoch 1: a moved key is granted there with a token below its last one on the source (checks: token-order)' },
    {
      name: 'no-drain',
      expect: 'violation',
      shows: ['cross-shard-exclusion'],
      description: 'flip without draining or waiting, while a long job holds a moving key on its source: the destination grants that key to a late job (checks: cross-shard-exclusion)',
    },
  ],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const steps = stepsOf(context.variant.name);
    const identities = Array.from({ length: WORKERS }, (_, i) => `spiffe://sim/w${i + 1}`);
    const before: ShardMap = { version: 1, regions: { [REGION]: { coord: 'coord-eu', entity: [...OLD_SHARDS] } }, namespaces: { orders: REGION } };
    const map = new MapHolder(before);
    const world = new World({
      ...worldBasics(context),
      classes: new ClassRegistry([CLASS]),
      authorizer: new PrefixGrants([...identities, ...(steps.straddle ? [LONG_JOB, LATE_JOB].map(jobIdentity) : [])].map((id) => namespaceGrant(id, CLASS.namespace))),
      clusterName: OLD_SHARDS[0],
      cluster: { namePrefix: `${OLD_SHARDS[0]}-` },
      arbiters: 0,
    });
    world.addCluster(OLD_SHARDS[1]);
    const arbiters = new Map<string, ArbiterNode>(OLD_SHARDS.map((shard) => [shard, world.addArbiter({ name: `arbiter-${shard}`, cluster: shard, placement: map.placement() })]));
    const probe = new DeadlineProbe(world);
    await world.start();
    const resource = world.addResource('orders-db', { fenced: true, writeMs: 10 });
    const clients = new Map<string, ClientNode>(); // `${worker}@${shard}`
    const connect = (shard: string): void => {
      const index = world.arbiters.indexOf(arbiters.get(shard) as ArbiterNode);
      identities.forEach((identity, i) => clients.set(`w${i + 1}@${shard}`, world.addClient(`w${i + 1}@${shard}`, { identity, arbiter: index, wrapApi: probe.wrapApi })));
    };
    OLD_SHARDS.forEach(connect);
    // Before any worker starts, so that the long job's grant is certain (see the header).
    const straddle = steps.straddle ? await Straddle.begin(world, map, arbiters, probe, world.kernel.now() + STOP_AT_MS) : undefined;
    const startMs = world.kernel.now();
    // A given schedule (replay, `run --faults`, the explorer) runs beside the scenario's own restore or move; it has none of its own.
    const schedule = startFaults(world, context, []);
    const beliefs: BeliefInterval[] = [];
    const attempts: Attempt[] = [];
    const plan = { className: CLASS.name, ttlSeconds: TTL_SECONDS, waitMs: 1_000, units: 2, prepareMs: 400, gapMs: 100, resource } as const;
    const loops = identities.map((_, i) =>
      runLockLoop({ worker: `w${i + 1}`, keys: KEYS, clientFor: (key) => clients.get(`w${i + 1}@${map.shardOf(key)}`) as ClientNode, plan, stopAtMs: startMs + STOP_AT_MS, restMs: 100, retryMs: 300, beliefs, attempts }),
    );
    const controller: ControllerLog = { ranges: [], advances: 0, holdsDeletedByAdvance: 0, crashes: 0 };
    let moving: Promise<void> = Promise.resolve();
    world.kernel.schedule(startMs + ADD_SHARD_AT_MS, () => {
      world.addCluster(NEW_SHARD);
      arbiters.set(NEW_SHARD, world.addArbiter({ name: `arbiter-${NEW_SHARD}`, cluster: NEW_SHARD, placement: map.placement() }));
      connect(NEW_SHARD);
      straddle?.askAfterFlip(arbiters.get(NEW_SHARD) as ArbiterNode);
      moving = moveRanges(world, map, arbiters, steps, controller, startMs + STOP_AT_MS);
    });
    await world.runUntil(startMs + RUN_FOR_MS);
    const finished = (): ScenarioOutcome => outcome(world, schedule, startMs, before, map.current, controller, attempts, beliefs, probe, straddle);
    await settleLoops(world, [...loops, moving, ...(straddle === undefined ? [] : [straddle.done])], { horizon: horizonOf(context, startMs), partial: finished });
    return finished();
  },
};

/**
 * The rebalance controller (ADR-09): adds the new shard to the map with every range that would move to it
 * pinned to its old shard (the map change that adds a shard), then moves one range at a time with core's
 * procedure (core/shards/shard-move.ts), the same code `lockstep shards move` runs against real clusters.
 * With crash points, the controller dies right after each step of each range once and is run again.
 */
async function moveRanges(world: World, map: MapHolder, arbiters: ReadonlyMap<string, ArbiterNode>, steps: Steps, log: ControllerLog, untilMs: number): Promise<void> {
  const kernel = world.kernel;
  const destination = arbiters.get(NEW_SHARD) as ArbiterNode;
  // The new shard is up when etcd reports a leader (endpoint health), the operator has initialised its log
  // (lockstep init), and its arbiter has read the epoch, as world.start() waits for the first ones.
  while (kernel.now() < untilMs && world.clusterNamed(NEW_SHARD).leader() === undefined) await kernel.sleep(POLL_MS);
  await world.initCluster(NEW_SHARD, untilMs);
  while (kernel.now() < untilMs && (await destination.arbiter.status().catch(() => undefined))?.epoch === undefined) await kernel.sleep(POLL_MS);
  log.readyAtMs = kernel.now();
  const after: ShardMap = { ...map.current, regions: { [REGION]: { coord: 'coord-eu', entity: [...OLD_SHARDS, NEW_SHARD] } } };
  const units = KEYS.filter((key) => homeOf(after, key, 'entity').cluster !== map.shardOf(key));
  const pinned = Object.fromEntries(units.map((unit) => [unit, map.shardOf(unit)]));
  map.update((m) => ({ ...m, regions: after.regions, overrides: pinned }));
  const journal = new Map<string, MoveRecord>(); // the coord cluster's /sys/moves, shared like the map
  for (const unit of units) {
    const range: MovedRange = { unit, from: pinned[unit] as string, drainedAtMs: kernel.now() };
    log.ranges.push(range);
    const crashed = new Set<MoveStep>();
    const ports: ShardMovePorts = {
      clock: kernel,
      maps: map.store(),
      journal: { load: async (key) => journal.get(key), save: async (record) => void journal.set(record.range, record) },
      arbiterOf: (shard) => countingAdvances((arbiters.get(shard) as ArbiterNode).arbiter, log),
      holdsIn: (shard, key) => holderOf(arbiters.get(shard) as ArbiterNode, key), // a range here is one key
      afterStep: (step) => {
        if (step === 'draining') range.drainedAtMs = kernel.now();
        if (step === 'drained') range.holdsEndedAtMs = kernel.now();
        if (step === 'flipped') range.flippedAtMs = kernel.now();
        if (steps.crashPoints && !crashed.has(step)) {
          crashed.add(step);
          throw new ControllerCrash(step);
        }
      },
    };
    const request: ShardMoveRequest = { range: unit, from: range.from, to: NEW_SHARD, reason: `add ${NEW_SHARD}: move ${unit} to it (ADR-09)`, operators: SIM_OPERATOR_CALLERS };
    const skipSteps: MoveStep[] = [...(steps.drain ? [] : (['draining', 'drained'] as const)), ...(steps.advance ? [] : (['advanced'] as const))];
    for (let runs = 1; ; runs += 1) {
      try {
        await runShardMove(ports, request, { drainWaitMs: Math.min(MAX_DRAIN_WAIT_MS, untilMs - kernel.now()), skipSteps });
        break;
      } catch (error) {
        // A move the procedure refused (holds outlived the drain window, an arbiter sealed): the range stays
        // as the journal left it, and the controller stops, as an operator's run would (the report names it).
        if (isLockError(error)) {
          log.stoppedAt = `${unit}: ${error.code}`;
          return;
        }
        if (!(error instanceof ControllerCrash) || runs > MOVE_STEPS.length) throw error;
        log.crashes += 1; // the controller died after recording a step: it is started again and resumes
        kernel.trace.record('scenario.controller-crash', { unit, after: error.step });
      }
    }
    kernel.trace.record('scenario.range-moved', { unit, from: range.from, to: NEW_SHARD, mapVersion: map.current.version });
  }
  log.sourceEpoch = Math.max(...(await Promise.all(OLD_SHARDS.map(async (shard) => (await (arbiters.get(shard) as ArbiterNode).arbiter.status().catch(() => undefined))?.epoch ?? 0))));
  log.destinationEpoch = (await destination.arbiter.status().catch(() => undefined))?.epoch ?? -1;
  log.doneAtMs = kernel.now();
}

/** A crash point of the controller (test support): thrown from afterStep, after the step was recorded. */
class ControllerCrash extends Error {
  constructor(readonly step: MoveStep) {
    super(`the move controller crashed after ${step} (crash point)`);
  }
}

/** The arbiter as the move sees it, counting the advances it approves. */
function countingAdvances(arbiter: MoveArbiter, log: ControllerLog): MoveArbiter {
  return {
    status: (caller) => arbiter.status(caller),
    requestEpochAdvance: (caller, request) => arbiter.requestEpochAdvance(caller, request),
    approveEpochAdvance: async (caller, request) => {
      const advanced = await arbiter.approveEpochAdvance(caller, request);
      log.advances += 1;
      log.holdsDeletedByAdvance += advanced.holdsDeleted;
      return advanced;
    },
  };
}

/** 'none' when the source's log holds no hold on the key; 'held' or 'unknown' (could not read) otherwise. */
async function holderOf(source: ArbiterNode, key: string): Promise<'none' | 'held' | 'unknown'> {
  const inspected = await source.arbiter.inspect(SIM_OPERATOR_CALLERS[0], key).catch(() => undefined);
  return inspected === undefined ? 'unknown' : inspected.holder === undefined ? 'none' : 'held';
}

function outcome(world: World, schedule: StartedFaults, startMs: number, before: ShardMap, after: ShardMap, controller: ControllerLog, attempts: readonly Attempt[], beliefs: readonly BeliefInterval[], probe: DeadlineProbe, straddle: Straddle | undefined): ScenarioOutcome {
  const grants = world.grants;
  const moved = new Set(controller.ranges.map((r) => r.unit));
  const windows = controller.ranges.map((r) => (r.flippedAtMs ?? Number.NaN) - r.drainedAtMs);
  const rel = (atMs: number | undefined): number => (atMs === undefined ? -1 : atMs - startMs);
  const perRange = Object.fromEntries(
    controller.ranges.map((r) => {
      const firstThere = grants.filter((g) => g.key === r.unit && g.cluster === NEW_SHARD).reduce<number | undefined>((m, g) => (m === undefined || g.grantedAtMs < m ? g.grantedAtMs : m), undefined);
      return [r.unit, { from: r.from, drainedAtMs: rel(r.drainedAtMs), holdsWaitMs: r.holdsEndedAtMs === undefined ? 0 : r.holdsEndedAtMs - r.drainedAtMs, unavailableMs: (r.flippedAtMs ?? Number.NaN) - r.drainedAtMs, firstGrantOnDestinationMs: rel(firstThere) }];
    }),
  );
  const tokens = movedKeyTokens(grants, moved, NEW_SHARD);
  // Grants of a moving range by its source after the drain began: waiters queued before the drain are
  // not refused (placement is checked when an acquire arrives), so the drain waits for them too.
  const sourceGrants = (after: (r: MovedRange) => number | undefined): number =>
    controller.ranges.reduce((n, r) => n + grants.filter((g) => g.key === r.unit && g.cluster === r.from && g.grantedAtMs > (after(r) ?? Number.POSITIVE_INFINITY)).length, 0);
  return {
    world,
    faults: schedule.faults,
    appliedFaults: schedule.appliedFaults,
    history: collectHistory(world, beliefs, probe, grants),
    checks: [crossClusterExclusion('cross-shard-exclusion', grants)],
    parameters: {
      ttlSeconds: TTL_SECONDS,
      keys: KEYS.length,
      shardsBefore: before.regions[REGION]?.entity ?? [],
      shardsAfter: after.regions[REGION]?.entity ?? [],
      movedRanges: [...moved],
      mapVersionAfter: after.version,
      perRange,
      ...(controller.stoppedAt === undefined ? {} : { moveStoppedAt: controller.stoppedAt }),
      ...(straddle === undefined ? {} : { straddle: straddle.parameters(startMs) }),
    },
    metrics: {
      movedRanges: moved.size,
      movedFraction: moved.size / KEYS.length,
      expectedMovedFraction: 1 / (OLD_SHARDS.length + 1),
      shardReadyAfterMs: controller.readyAtMs === undefined ? -1 : controller.readyAtMs - startMs - ADD_SHARD_AT_MS,
      moveTookMs: controller.doneAtMs === undefined || controller.readyAtMs === undefined ? -1 : controller.doneAtMs - controller.readyAtMs,
      unavailableMsMax: Math.max(...windows),
      unavailableMsMean: windows.reduce((a, b) => a + b, 0) / Math.max(1, windows.length),
      unavailableMsMin: Math.min(...windows),
      refusedDraining: attempts.filter((a) => a.outcome === 'draining').length,
      refusedDrainingOnUnmovedKeys: attempts.filter((a) => a.outcome === 'draining' && !moved.has(a.key)).length,
      refusedOther: attempts.filter((a) => a.outcome !== 'granted' && a.outcome !== 'draining').length, // mostly wait-timeout: contention
      grantsOnNewShard: grants.filter((g) => g.cluster === NEW_SHARD).length,
      sourceGrantsWhileDraining: sourceGrants((r) => r.drainedAtMs) - sourceGrants((r) => r.flippedAtMs),
      sourceGrantsAfterFlip: sourceGrants((r) => r.flippedAtMs),
      epochAdvances: controller.advances,
      controllerCrashes: controller.crashes,
      holdsDeletedByAdvance: controller.holdsDeletedByAdvance,
      sourceEpoch: controller.sourceEpoch ?? -1,
      destinationEpoch: controller.destinationEpoch ?? -1,
      movedKeysTokenRose: tokens.rose,
      movedKeysTokenFell: tokens.fell,
      writesRejectedStale: fenceRejections(world).stale,
      ...tokenMetrics('lastSourceTokenOfMovedKeysMax', tokens.lastSource),
      ...tokenMetrics('firstDestinationTokenOfMovedKeysMin', tokens.firstDestination),
    },
  };
}
