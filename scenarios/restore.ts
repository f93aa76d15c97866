// ADR-03 in the simulator: the lock log is snapshotted, serves more grants, then is restored from the
// snapshot while workers keep locking. The restored log continues from the snapshot's revision, so it
// would mint again tokens it has already handed out. The documented procedure (docs/seal-and-epochs.md):
// restore with a new cluster token, so the cluster ID changes and every arbiter seals
// (`cluster-id-mismatch`); grants stop; two approvers advance the epoch; every token after the restore
// is above every token before it. With the same token the cluster ID comes back unchanged
// (etcd-behaviour.md 5.1), and an arbiter started after the restore has nothing to compare with: it
// serves, minting tokens below ones already issued ("What the seal cannot see").
//
// What the simulator found beyond the docs: an arbiter left running through the restore seals on the
// *response* to its first request to the restored log (either rule). When that request is a grant on a
// free key, its txn has already committed a hold whose token is at or below ones issued before the
// restore. The arbiter returns `sealed`, so no holder gets that token, and the advance deletes the hold;
// but the log did mint it. An arbiter (re)started after the restore reads the epoch record first, and
// seals on that read, before any write: hence the default variant restarts them.
//
// Issue 19 closed it in core: an arbiter confirms the cluster with a linearizable read before its first
// write on a new connection or after a failed call (core/arbiter/write-confirmation.ts), so the
// `*-running-arbiters-read-first` variants seal before writing. The old `*-running-arbiters` variants keep
// showing the late seal through the arbiter's seam (confirmBeforeWrite: false, core/arbiter/seams.ts).
//
// The running-arbiters variants show that late seal by construction: the workers go quiet around the
// snapshot as around the restore, and each is taken once the log holds nothing. A hold in the snapshot
// would come back with the restored log (its holder's session is still kept alive) and could leave every
// key the workers pick taken, so that the first grant after the restore fails its compare and commits
// nothing; and a hold open at the restore would make its release, not an acquire, the first request.
import { HONEST_ARBITER_SEAMS } from '../core/arbiter/seams.js';
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import { ClassRegistry } from '../core/classes/index.js';
import type { BeliefInterval } from '../core/checkers/index.js';
import type { ArbiterStatus } from '../core/ports/arbiter-api.js';
import { advanceEpochByTwo } from '../core/arbiter/two-person.js';
import { SIM_OPERATOR_CALLERS } from '../sim/world/operators.js';
import type { EtcdSnapshot } from '../sim/cluster/snapshot.js';
import { World } from '../sim/world/world.js';
import { describeToken, highestGrant, lowestGrant, tokenMetrics, tokensAbove } from './cross-cluster.js';
import { horizonOf } from './horizon.js';
import { type StartedFaults, startFaults } from './two-holders.js';
import { DeadlineProbe } from './deadline-probe.js';
import { collectHistory } from './history.js';
import { type Attempt, fenceRejections, runLockLoop, settleLoops } from './lock-loop.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, worldBasics } from './scenario.js';
import { APPROVAL_MS, CLASS, CLUSTER, CLUSTER_TOKEN, COORD, IDLE_AFTER_MS, IDLE_BEFORE_MS, KEYS, type OperatorLog, QUIET_MAX_WAIT_MS, QUIET_POLL_MS, RESTORE_AT_MS, RUN_FOR_MS, type Restore, SNAPSHOT_AT_MS, STATUS_POLL_MS, STOP_AT_MS, TTL_SECONDS, WORKERS, restoreOf } from './restore-setup.js';

export const restore: Scenario = {
  name: 'restore',
  description: 'Snapshot, more grants, restore: a new cluster token seals every arbiter until two approvers advance the epoch; tokens never go back (ADR-03).',
  variants: [
    { name: 'new-token', expect: 'pass', description: 'restore with a new cluster token, arbiters restarted once it is up: each seals on cluster-id-mismatch at its first epoch read, before any write; two approvers advance the epoch; tokens keep rising' },
    {
      name: 'new-token-running-arbiters',
      expect: 'violation',
      shows: ['restore-token-order'],
      description:
        'new token, arbiters left running without the read before the first write (the seam confirmBeforeWrite: false, the arbiter before issue 19): they seal on cluster-id-mismatch, but on the response to their first request; when that is a grant its txn has already committed a hold with a regressed token (never handed out, deleted by the advance) (checks: restore-token-order)',
    },
    {
      name: 'new-token-running-arbiters-read-first',
      expect: 'pass',
      description: 'new token, arbiters left running: each confirms the cluster with a linearizable read before its first write on the new connection, seals on cluster-id-mismatch there, and commits nothing before the advance (issue 19)',
    },
    {
      name: 'same-token-no-regression-seal',
      expect: 'violation',
      shows: ['restore-token-order', 'token-order'],
      // belief fails too at most seeds, but only when a regressed token repeats one the same key was granted
      // before the restore (the checker then finds the earlier grant of that token): a seed-dependent collision.
      description: 'same token (same cluster ID) and arbiters started after the restore: nothing seals, tokens regress below ones already issued and reach holders (checks: restore-token-order, token-order)',
    },
    {
      name: 'same-token-coord-epochs',
      expect: 'pass',
      description: 'same token, arbiters started after the restore, epochs from the coord cluster: the restored revision is below the highest the coord recorded as handed out, so every fresh arbiter seals (revision-regression) at its first read; the advance is a coord txn; tokens keep rising (issue 19)',
    },
    {
      name: 'old-backup-coord-epochs',
      expect: 'pass',
      description: 'an epoch advance (a drill) after the snapshot, then a same-token restore of that older backup, arbiters started after it, epochs from the coord cluster: the restored record names an epoch below the coord\'s, so every fresh arbiter seals (epoch-regression); the advance allocates above the coord\'s epoch; tokens keep rising (issue 19)',
    },
    {
      name: 'old-backup-single-cluster',
      expect: 'violation',
      shows: ['restore-token-order', 'token-order'],
      description: 'the same old-backup restore in single-cluster mode: fresh arbiters read the restored, older epoch, see the same cluster ID, and serve tokens of an epoch already superseded (checks: restore-token-order, token-order)',
    },
    { name: 'same-token-running-arbiters', expect: 'violation', shows: ['restore-token-order'], description: 'same token, arbiters left running without the read before the first write (seam confirmBeforeWrite: false): they seal on revision-regression, again one write late (a committed hold with a regressed token) (checks: restore-token-order)' },
    {
      name: 'same-token-running-arbiters-read-first',
      expect: 'pass',
      description: 'same token, arbiters left running: the linearizable read before the first write on the new connection answers below the revision floor, so each seals on revision-regression before writing anything (issue 19)',
    },
  ],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const how = restoreOf(context.variant.name);
    const identities = Array.from({ length: WORKERS }, (_, i) => `spiffe://sim/worker-${i + 1}`);
    const world = new World({
      ...worldBasics(context),
      classes: new ClassRegistry([CLASS]),
      authorizer: new PrefixGrants(identities.map((id) => namespaceGrant(id, CLASS.namespace))),
      clusterName: CLUSTER,
      cluster: { clusterToken: CLUSTER_TOKEN },
      arbiters: 2,
      ...(how.confirmBeforeWrite ? {} : { seams: { arbiter: { ...HONEST_ARBITER_SEAMS, confirmBeforeWrite: false } } }),
      ...(how.coord ? { coord: { name: COORD } } : {}),
    });
    const probe = new DeadlineProbe(world);
    await world.start();
    const resource = world.addResource('orders-db', { fenced: true, writeMs: 10 });
    const workers = identities.map((identity, i) => world.addClient(`worker-${i + 1}`, { identity, arbiter: i % 2, wrapApi: probe.wrapApi }));
    const startMs = world.kernel.now();
    // A given schedule (replay, `run --faults`, the explorer) runs beside the scenario's own restore or move; it has none of its own.
    const schedule = startFaults(world, context, []);
    const beliefs: BeliefInterval[] = [];
    const attempts: Attempt[] = [];
    const plan = { className: CLASS.name, ttlSeconds: TTL_SECONDS, waitMs: 2_000, units: 2, prepareMs: 150, gapMs: 50, resource } as const;
    const loop = (node: (typeof workers)[number], stopAtMs: number): Promise<void> =>
      runLockLoop({ worker: node.process.name, keys: KEYS, clientFor: () => node, plan, stopAtMs, restMs: 100, retryMs: 300, beliefs, attempts });
    const operator: OperatorLog = { seals: new Map(), advanceAttempts: 0, reopenedAtMs: new Map() };
    let operating: Promise<void> = Promise.resolve();
    let snapshot: EtcdSnapshot | undefined;
    let snapshotAtMs: number | undefined;
    let restoredAtMs: number | undefined;
    const takeSnapshot = (): void => {
      snapshotAtMs = world.kernel.now();
      snapshot = world.cluster.snapshot();
      world.kernel.trace.record('scenario.snapshot', { revision: snapshot.revision, takenFrom: snapshot.takenFrom });
    };
    const restoreNow = (): void => {
      if (snapshot === undefined) throw new Error('restore: no snapshot to restore from');
      restoredAtMs = world.kernel.now();
      world.restoreCluster({ snapshot, clusterToken: how.clusterToken, arbiters: how.arbiters });
      world.kernel.trace.record('scenario.restore', { clusterToken: how.clusterToken, arbiters: how.arbiters });
      operating = runOperator(world, startMs + STOP_AT_MS, operator);
    };
    let loops: Promise<void>[];
    if (how.idle) {
      // The old-backup drill advances right after the quiet snapshot: it deletes no live hold (that would be
      // ADR-03's cost of an advance, not what these variants show), and epoch-2 grants follow before the restore.
      const afterSnapshot = how.advanceBeforeRestore ? () => drillAdvance(world, operator) : () => Promise.resolve();
      loops = [quietRun(world, startMs, (stopAtMs) => Promise.all(workers.map((node) => loop(node, stopAtMs))).then(() => undefined), takeSnapshot, restoreNow, afterSnapshot)];
    } else {
      loops = workers.map((node) => loop(node, startMs + STOP_AT_MS));
      world.kernel.schedule(startMs + SNAPSHOT_AT_MS, takeSnapshot);
      world.kernel.schedule(startMs + RESTORE_AT_MS, restoreNow);
    }
    await world.runUntil(startMs + RUN_FOR_MS);
    const quietTimes = (): Record<string, number> => (how.idle ? { snapshotTakenAtMs: Math.round((snapshotAtMs ?? startMs) - startMs), restoredAtMs: Math.round((restoredAtMs ?? startMs) - startMs) } : {});
    const finished = (): ScenarioOutcome => outcome(world, schedule, startMs, restoredAtMs ?? startMs + RESTORE_AT_MS, snapshot, operator, attempts, beliefs, how, probe, quietTimes());
    await settleLoops(world, [...loops, operating], { horizon: horizonOf(context, startMs), partial: finished });
    return finished();
  },
};

/**
 * The idle variants' timeline: workers run until IDLE_BEFORE_MS before the snapshot; the snapshot is taken
 * once the log holds nothing; workers run again from IDLE_AFTER_MS after it until IDLE_BEFORE_MS before the
 * restore, which also waits for an empty log; then they run from IDLE_AFTER_MS after it to the end.
 */
async function quietRun(world: World, startMs: number, work: (stopAtMs: number) => Promise<void>, takeSnapshot: () => void, restoreNow: () => void, afterSnapshot: () => Promise<void>): Promise<void> {
  const kernel = world.kernel;
  await work(startMs + SNAPSHOT_AT_MS - IDLE_BEFORE_MS);
  await quiet(world, startMs + SNAPSHOT_AT_MS);
  takeSnapshot();
  await afterSnapshot();
  await kernel.sleep(IDLE_AFTER_MS);
  await work(startMs + RESTORE_AT_MS - IDLE_BEFORE_MS);
  await quiet(world, startMs + RESTORE_AT_MS);
  restoreNow();
  await kernel.sleep(IDLE_AFTER_MS);
  await work(startMs + STOP_AT_MS);
}

/** Waits until `atMs`, then until the current log holds no lock (a bounded wait: workers that stopped release within one attempt). */
async function quiet(world: World, atMs: number): Promise<void> {
  const kernel = world.kernel;
  if (kernel.now() < atMs) await kernel.sleep(atMs - kernel.now());
  const untilMs = kernel.now() + QUIET_MAX_WAIT_MS;
  const holding = (): boolean => entityClusters(world)[entityClusters(world).length - 1]?.log.grants.some((g) => g.endedAtMs === undefined) ?? false;
  while (holding() && kernel.now() < untilMs) await kernel.sleep(QUIET_POLL_MS);
  if (holding()) throw new Error(`restore: the log still held a lock ${QUIET_MAX_WAIT_MS} ms after the workers stopped`);
}

/** The entity cluster's logs, original and restored (a coord cluster beside them is not one). */
function entityClusters(world: World): World['clusters'] {
  return world.clusters.filter((c) => c.name.startsWith(CLUSTER));
}

/** The old-backup variants' drill: an advance through arbiter-1 after the snapshot, so the snapshot is of an older epoch. */
async function drillAdvance(world: World, log: OperatorLog): Promise<void> {
  const arbiter = (world.arbiters[0] as (typeof world.arbiters)[number]).arbiter;
  for (let attempt = 0; attempt < 5 && log.drillEpoch === undefined; attempt += 1) {
    const advanced = await advanceEpochByTwo(arbiter, SIM_OPERATOR_CALLERS, 'epoch advance drill before the restore test').catch(() => undefined);
    if (advanced !== undefined) {
      log.drillEpoch = advanced.epoch;
      world.kernel.trace.record('scenario.drill-advance', { epoch: advanced.epoch });
    } else {
      await world.kernel.sleep(STATUS_POLL_MS);
    }
  }
}

/**
 * The operator after the restore: watches the arbiters' status; once one reports sealed, takes
 * APPROVAL_MS to get a second person (noting meanwhile which replicas sealed), then advances the epoch
 * through arbiter-1, retrying while the restored cluster elects. Without a seal it does nothing:
 * nothing tells it to.
 */
async function runOperator(world: World, untilMs: number, log: OperatorLog): Promise<void> {
  const kernel = world.kernel;
  const approvedAtMs = (): number => (log.sealedAtMs === undefined ? untilMs : Math.min(untilMs, log.sealedAtMs + APPROVAL_MS));
  while (kernel.now() < approvedAtMs() && log.seals.size < world.arbiters.length) {
    for (const node of world.arbiters) {
      if (log.seals.has(node.process.name)) continue;
      const sealed = (await node.arbiter.status().catch((): ArbiterStatus | undefined => undefined))?.sealed;
      if (sealed === undefined) continue;
      log.seals.set(node.process.name, { atMs: kernel.now(), reason: sealed.kind });
      log.sealedAtMs ??= kernel.now();
      log.sealReason ??= sealed.kind;
    }
    await kernel.sleep(STATUS_POLL_MS);
  }
  if (log.sealedAtMs === undefined) return;
  if (kernel.now() < approvedAtMs()) await kernel.sleep(approvedAtMs() - kernel.now());
  while (kernel.now() < untilMs && log.advancedAtMs === undefined) {
    log.advanceAttempts += 1;
    const reason = 'restored the orders lock log from the 03:00 snapshot (drill)';
    const advanced = await advanceEpochByTwo((world.arbiters[0] as (typeof world.arbiters)[number]).arbiter, SIM_OPERATOR_CALLERS, reason).catch(() => undefined);
    if (advanced === undefined) {
      await kernel.sleep(STATUS_POLL_MS);
      continue;
    }
    log.advancedAtMs = kernel.now();
    log.holdsDeleted = advanced.holdsDeleted;
    log.epoch = advanced.epoch;
    kernel.trace.record('scenario.epoch-advance', { epoch: advanced.epoch, holdsDeleted: advanced.holdsDeleted });
  }
  // Every replica opens again by itself (EpochState.adoptAdvance), at most one poll interval later.
  while (kernel.now() < untilMs && log.reopenedAtMs.size < world.arbiters.length) {
    for (const node of world.arbiters) {
      if (log.reopenedAtMs.has(node.process.name)) continue;
      const seen = await node.arbiter.status().catch(() => undefined);
      if (seen !== undefined && seen.sealed === undefined && seen.epoch === log.epoch) log.reopenedAtMs.set(node.process.name, kernel.now());
    }
    await kernel.sleep(STATUS_POLL_MS);
  }
}

function outcome(world: World, schedule: StartedFaults, startMs: number, restoreAtMs: number, snapshot: EtcdSnapshot | undefined, operator: OperatorLog, attempts: readonly Attempt[], beliefs: readonly BeliefInterval[], how: Restore, probe: DeadlineProbe, quietTimes: Readonly<Record<string, number>>): ScenarioOutcome {
  const [original, restored] = entityClusters(world);
  const before = original?.log.grants ?? [];
  const after = restored?.log.grants ?? [];
  const highestBefore = highestGrant(before);
  const lowestAfter = lowestGrant(after);
  const sinceRestore = (atMs: number | undefined): number => (atMs === undefined ? -1 : atMs - restoreAtMs);
  const firstGrantAfter = after.reduce<number | undefined>((first, g) => (first === undefined || g.grantedAtMs < first ? g.grantedAtMs : first), undefined);
  const reopened = [...operator.reopenedAtMs.values()];
  const regressed = after.filter((g) => highestBefore !== undefined && g.token <= highestBefore.token);
  // Tokens holders received from the restored log (a token value may also have been granted before it).
  const handedOut = new Set(attempts.flatMap((a) => (a.token === undefined || (a.grantedAtMs ?? 0) < restoreAtMs ? [] : [`${a.key}|${a.token}`])));
  const check = tokensAbove('restore-token-order', before, after);
  return {
    world,
    faults: schedule.faults,
    appliedFaults: schedule.appliedFaults,
    history: collectHistory(world, beliefs, probe, world.grants),
    checks: [check],
    parameters: {
      ttlSeconds: TTL_SECONDS,
      snapshotAtMs: SNAPSHOT_AT_MS,
      restoreAtMs: RESTORE_AT_MS,
      ...quietTimes, // the idle variants' actual times: each waited for an empty log
      snapshotRevision: String(snapshot?.revision ?? -1),
      clusterToken: how.clusterToken,
      arbitersAfterRestore: how.arbiters,
      confirmBeforeWrite: how.confirmBeforeWrite,
      epochs: how.coord ? 'coord' : 'single-cluster',
      advanceBeforeRestore: how.advanceBeforeRestore,
      approvalMs: APPROVAL_MS,
      idleAroundRestore: how.idle,
      sealReason: operator.sealReason ?? 'none',
      seals: Object.fromEntries([...operator.seals].map(([name, seal]) => [name, seal.reason])),
      highestTokenBefore: highestBefore === undefined ? 'none' : describeToken(highestBefore.token),
      lowestTokenAfter: lowestAfter === undefined ? 'none' : describeToken(lowestAfter.token),
    },
    metrics: {
      grantsBeforeRestore: before.length,
      grantsLostToRestore: before.filter((g) => snapshot !== undefined && g.revision > snapshot.revision).length,
      grantsAfterRestore: after.length,
      regressedGrants: regressed.length,
      regressedGrantsHandedOut: regressed.filter((g) => handedOut.has(`${g.key}|${g.token}`)).length,
      sealSeenAfterMs: sinceRestore(operator.sealedAtMs),
      arbitersSealed: operator.seals.size,
      advancedAfterMs: sinceRestore(operator.advancedAtMs),
      sealedForMs: operator.sealedAtMs === undefined || operator.advancedAtMs === undefined ? -1 : operator.advancedAtMs - operator.sealedAtMs,
      advanceAttempts: operator.advanceAttempts,
      holdsDeletedByAdvance: operator.holdsDeleted ?? -1,
      epochAfter: operator.epoch ?? -1,
      drillEpoch: operator.drillEpoch ?? -1,
      replicasReopenedWithinMs: reopened.length < world.arbiters.length || operator.advancedAtMs === undefined ? -1 : Math.max(...reopened) - operator.advancedAtMs,
      firstGrantAfterRestoreMs: sinceRestore(firstGrantAfter),
      refusedSealed: attempts.filter((a) => a.outcome === 'sealed').length,
      refusedOther: attempts.filter((a) => a.outcome !== 'granted' && a.outcome !== 'sealed').length,
      holdersFenced: attempts.filter((a) => a.fenced).length,
      ...fenceMetrics(world),
      ...tokenMetrics('highestTokenBefore', highestBefore),
      ...tokenMetrics('lowestTokenAfter', lowestAfter),
    },
  };
}

function fenceMetrics(world: World): { writesRejectedStale: number; writesRejectedRepeat: number } {
  const { stale, repeat } = fenceRejections(world);
  return { writesRejectedStale: stale, writesRejectedRepeat: repeat };
}
