// ADR-15: a watch notification triggers an attempt, never a grant, and a waiter that misses one falls
// back to polling every second with jitter. A holder on one arbiter replica and a waiter on another (the
// key's line moved in a ring rebalance, or an operator force-released through another replica) take
// turns for six rounds; the waiter's arbiter learns of the release only from its watch of the holder key.
// From round four on the watch fails:
// - `events-lost`: the waiter arbiter's watch stream stays open and delivers nothing (a stalled or
//   lossy stream): the waiter is granted at its next poll, within about a second of the release;
// - `compacted`: the history is compacted past the watch's start revision just before the watch is
//   created, so the member cancels it with `compacted`: the arbiter retries the grant at once and
//   watches again from the new revision, and the release is seen as quickly as without the loss.
// Both pass: a lost event costs at most a poll interval of delay, never correctness.
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import type { BeliefInterval } from '../core/checkers/index.js';
import { ClassRegistry, type LockClass } from '../core/classes/index.js';
import type { WatchRequest } from '../core/ports/lock-log.js';
import { createSimLockLog } from '../sim/cluster/lock-log.js';
import { World } from '../sim/world/world.js';
import { LogTap } from './contention.js';
import { DeadlineProbe } from './deadline-probe.js';
import { collectHistory } from './history.js';
import { horizonOf, settleWithinHorizon } from './horizon.js';
import { type LineWaiter, runLineWaiter } from './line-waiter.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, worldBasics } from './scenario.js';
import { startFaults } from './two-holders.js';

const KEY = 'billing/run-invoices';
const TTL_SECONDS = 10;
const ROUNDS = 6;
const LOSS_FROM_ROUND = 3; // rounds 0-2 show the delay without the loss
const HOLDER_HOLD_MS = 1_500;
const WAITER_ARRIVES_AFTER_MS = 300;
const WAITER_WAIT_MS = 10_000;
const WAITER_HOLD_MS = 50;
const ROUND_GAP_MS = 200;
const POLL_INTERVAL_MS = 1_000; // the arbiter's default (ADR-15), jittered by ±20% in KeyQueue
const MAX_RUN_MS = 60_000;

const cls: LockClass = { namespace: 'billing', name: 'invoice-run', purpose: 'correctness', enforcement: 'fenced', resource: 'sim://invoices', ttlSeconds: TTL_SECONDS, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };

interface Round {
  readonly lossy: boolean;
  readonly delayMs: number;
  readonly attempts: number;
}

export const watchLoss: Scenario = {
  name: 'watch-loss',
  description: 'The waiter arbiter\'s watch loses its events or is compacted away; waiters still get the lock by polling or re-watching (ADR-15).',
  variants: [
    { name: 'events-lost', expect: 'pass', description: 'the watch stream delivers nothing from round 4 on: grants come from the jittered 1 s poll' },
    { name: 'compacted', expect: 'pass', description: 'from round 4 on the history is compacted past each new watch\'s start: the arbiter retries and re-watches' },
  ],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const loss = { dropEvents: false, compactNextWatch: false };
    const compacting = context.variant.name === 'compacted';
    let compactWatch: (request: WatchRequest) => Promise<void> = () => Promise.resolve();
    const tap = new LogTap({
      dropWatchEvents: () => loss.dropEvents,
      beforeWatch: async (request) => {
        if (!loss.compactNextWatch) return;
        loss.compactNextWatch = false; // once per round: the re-watch after `compacted` starts above it
        await compactWatch(request);
      },
    });
    const world = new World({
      ...worldBasics(context),
      classes: new ClassRegistry([cls]),
      authorizer: new PrefixGrants(['holder', 'waiter'].map((name) => namespaceGrant(`spiffe://sim/${name}`, 'billing'))),
      arbiters: 2,
      wrapArbiterLog: (log, process) => (process.name === 'arbiter-1' ? tap.wrap(log) : log),
    });
    const probe = new DeadlineProbe(world);
    await world.start();
    const resource = world.addResource('invoice-db', { fenced: true, writeMs: 5 });
    const waiter = world.addClient('waiter', { arbiter: 0, wrapApi: probe.wrapApi });
    const holder = world.addClient('holder', { arbiter: 1, wrapApi: probe.wrapApi });
    const compactor = world.addClient('compactor').process;
    const compactorLog = createSimLockLog({ kernel: world.kernel, network: world.clusterNetwork, client: compactor, endpoints: world.cluster.members });
    compactWatch = async (request) => {
      // Two unrelated writes move the store past the watch's start; then the history up to now goes.
      for (const n of [1, 2]) await compactorLog.txn({ compare: [], success: [{ type: 'put', key: '/churn', value: `${request.startRevision ?? 0n}-${n}` }], failure: [] });
      const { header } = await compactorLog.range({ key: '/churn' });
      await compactorLog.compact(header.revision);
    };
    const beliefs: BeliefInterval[] = [];
    const plan = { key: KEY, className: cls.name, ttlSeconds: TTL_SECONDS, resource } as const;
    const rounds: Round[] = [];
    const results: LineWaiter[] = [];
    let finished = false;
    const drive = async (): Promise<void> => {
      for (let round = 0; round < ROUNDS; round += 1) {
        const lossy = round >= LOSS_FROM_ROUND;
        loss.dropEvents = lossy && !compacting;
        loss.compactNextWatch = lossy && compacting;
        const attemptsBefore = tap.counts.grantTxns;
        const held = runLineWaiter(holder, { ...plan, waitMs: 0, holdMs: HOLDER_HOLD_MS }, beliefs);
        await world.kernel.sleep(WAITER_ARRIVES_AFTER_MS);
        const waited = runLineWaiter(waiter, { ...plan, waitMs: WAITER_WAIT_MS, holdMs: WAITER_HOLD_MS }, beliefs);
        results.push(...(await Promise.all([held, waited])));
        rounds.push({ lossy, delayMs: grantDelayAfterRelease(world, holder.identity, waiter.identity), attempts: tap.counts.grantTxns - attemptsBefore });
        await world.kernel.sleep(ROUND_GAP_MS);
      }
    };
    const startMs = world.kernel.now();
    // The scenario's loss is its own switch, not a fault; a given schedule (replay, `run --faults`, the explorer) runs beside it.
    const schedule = startFaults(world, context, []);
    const driven = drive().finally(() => (finished = true));
    await world.kernel.runUntilCondition(() => finished, { untilMs: startMs + MAX_RUN_MS });
    const base = () => ({
      world,
      faults: schedule.faults,
      appliedFaults: schedule.appliedFaults,
      history: collectHistory(world, beliefs, probe),
      parameters: { rounds: ROUNDS, lossFromRound: LOSS_FROM_ROUND + 1, loss: compacting ? 'compaction past the watch start' : 'watch events dropped', holderHoldMs: HOLDER_HOLD_MS, pollIntervalMs: POLL_INTERVAL_MS, ttlSeconds: TTL_SECONDS },
    });
    await settleWithinHorizon(world, driven, { horizon: horizonOf(context, startMs), what: () => `the holder and the waiter (round ${rounds.length + 1} of ${ROUNDS})`, partial: base });
    return {
      ...base(),
      metrics: roundMetrics(rounds, results, tap),
    };
  },
};

/** From the log: the last hold of `holder` ended (released) at R; the next grant, to `waiter`, came at G; G - R. */
function grantDelayAfterRelease(world: World, holder: string, waiter: string): number {
  const grants = world.log.grants.filter((g) => g.key === KEY);
  const lastHold = grants.map((g) => g.holder).lastIndexOf(holder);
  const released = grants[lastHold];
  const next = grants[lastHold + 1];
  if (released?.endedAtMs === undefined || next === undefined || next.holder !== waiter) return -1;
  return next.grantedAtMs - released.endedAtMs;
}

function roundMetrics(rounds: readonly Round[], results: readonly LineWaiter[], tap: LogTap): Record<string, number> {
  const pick = (lossy: boolean): readonly Round[] => rounds.filter((r) => r.lossy === lossy);
  const delays = (lossy: boolean): number[] => pick(lossy).map((r) => r.delayMs);
  const attempts = (lossy: boolean): number => pick(lossy).reduce((sum, r) => sum + r.attempts, 0);
  const ms = (value: number): number => Math.round(value * 10) / 10;
  return {
    rounds: rounds.length,
    waiterGrants: results.filter((r) => r.identity.endsWith('/waiter') && r.grantedAtMs !== undefined).length,
    failedAcquires: results.filter((r) => r.error !== undefined).length,
    grantDelayWithoutLossMsMax: ms(Math.max(...delays(false))),
    grantDelayWithoutLossMsMean: ms(mean(delays(false))),
    grantDelayWithLossMsMax: ms(Math.max(...delays(true))),
    grantDelayWithLossMsMean: ms(mean(delays(true))),
    grantDelayWithLossMsMin: ms(Math.min(...delays(true))),
    attemptsPerRoundWithoutLoss: ms(attempts(false) / Math.max(1, pick(false).length)),
    attemptsPerRoundWithLoss: ms(attempts(true) / Math.max(1, pick(true).length)),
    watchesOpened: tap.counts.watchesOpened,
    watchBatchesDelivered: tap.counts.watchBatchesDelivered,
    watchBatchesDropped: tap.counts.watchBatchesDropped,
    watchesCompacted: tap.counts.watchesCompacted,
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, v) => sum + v, 0) / values.length;
}
