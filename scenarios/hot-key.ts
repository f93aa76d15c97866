// ADR-14/15 on one hot key: 200 waiters line up behind a holder on the key's arbiter. With the default
// in-memory queue they are granted in arrival order, and each release causes one grant attempt (only
// the head of the line tries). Restarting the arbiter mid-line loses the queue: the waiters' calls are
// reset, they re-join (the client's job) in whatever order their reconnects land, and order is lost.
// With `fairness: durable` each waiter's place is a key in the log, so the same restart keeps arrival
// order, at the price of extra log writes per waiter. All variants pass the safety checks: this
// scenario is about fairness and cost.
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import type { BeliefInterval } from '../core/checkers/index.js';
import { ClassRegistry, type Fairness, type LockClass } from '../core/classes/index.js';
import type { ArbiterApi } from '../core/ports/arbiter-api.js';
import { World } from '../sim/world/world.js';
import { LogTap, inversions, resetWhenArbiterDies } from './contention.js';
import { DeadlineProbe } from './deadline-probe.js';
import { type Fault, scheduleFaults } from './faults.js';
import { horizonOf, settleWithinHorizon } from './horizon.js';
import { collectHistory } from './history.js';
import { type LineWaiter, type WaiterPlan, runLineWaiter } from './line-waiter.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, worldBasics } from './scenario.js';

const WAITERS = 200;
const KEY = 'orders/hot-sku';
const TTL_SECONDS = 10;
const ARRIVAL_SPACING_MS = 5; // 200 arrivals over a second
const FIRST_HOLD_MS = 1_200; // the first holder keeps the key until the whole line has arrived
const HOLD_MS = 20;
const WAIT_MS = 30_000; // long enough to get through 200 holds, and a restart
const CRASH_AT_MS = 2_000; // a quarter of the way down the line
const RESTART_AFTER_MS = 200;
const MAX_RUN_MS = 60_000;

function hotClass(fairness: Fairness): LockClass {
  return { namespace: 'orders', name: 'sku-stock', purpose: 'correctness', enforcement: 'fenced', resource: 'sim://stock', ttlSeconds: TTL_SECONDS, tier: 'entity', onQuorumLoss: 'closed', fairness };
}

/** Records, per identity, the order in which first acquires were sent (= reached the arbiter: one ordered link each). */
function arrivalRecorder(arrivals: Map<string, number>): (api: ArbiterApi, identity: string) => ArbiterApi {
  return (api, identity) => ({
    ...api,
    acquire: (request) => {
      if (!arrivals.has(identity)) arrivals.set(identity, arrivals.size);
      return api.acquire(request);
    },
  });
}

export const hotKey: Scenario = {
  name: 'hot-key',
  description: '200 waiters on one key: FIFO order and one attempt per release; an arbiter restart loses order unless fairness is durable (ADR-14/15).',
  variants: [
    { name: 'memory', expect: 'pass', description: 'in-memory FIFO on the key\'s arbiter: arrival order, one grant attempt per release' },
    { name: 'memory-arbiter-restart', expect: 'pass', description: 'the arbiter restarts mid-line: waiters lose their place and re-join in reconnect order (inversions, reported)' },
    { name: 'durable', expect: 'pass', description: 'fairness: durable, same restart: places are keys in the log, arrival order survives; costs waiter-key writes' },
  ],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const fairness: Fairness = context.variant.name === 'durable' ? 'durable' : 'memory';
    const restart = context.variant.name !== 'memory';
    const cls = hotClass(fairness);
    const names = ['holder-0', ...Array.from({ length: WAITERS }, (_, i) => `waiter-${String(i).padStart(3, '0')}`)];
    const tap = new LogTap();
    const world = new World({
      ...worldBasics(context),
      classes: new ClassRegistry([cls]),
      authorizer: new PrefixGrants(names.map((name) => namespaceGrant(`spiffe://sim/${name}`, 'orders'))),
      wrapArbiterLog: tap.wrap,
    });
    const probe = new DeadlineProbe(world);
    await world.start();
    const resource = world.addResource('stock-db', { fenced: true, writeMs: 2 });
    const arbiter = world.arbiters[0];
    if (arbiter === undefined) throw new Error('hot-key: the world has no arbiter');
    const arrivals = new Map<string, number>();
    const record = arrivalRecorder(arrivals);
    const nodes = names.map((name) => world.addClient(name, { wrapApi: (api, process) => probe.wrapApi(record(resetWhenArbiterDies(api, arbiter.process, process), `spiffe://sim/${name}`), process) }));
    const faults: readonly Fault[] = context.faults ?? (restart ? [
      { atMs: CRASH_AT_MS, kind: 'crash', target: arbiter.process.name },
      { atMs: CRASH_AT_MS + RESTART_AFTER_MS, kind: 'restart', target: arbiter.process.name },
    ] : []);
    const appliedFaults = scheduleFaults(world, faults);
    const beliefs: BeliefInterval[] = [];
    const plan: WaiterPlan = { key: KEY, className: cls.name, ttlSeconds: TTL_SECONDS, waitMs: WAIT_MS, holdMs: HOLD_MS, resource };
    const startMs = world.kernel.now();
    let finished = 0;
    const runs: Array<Promise<LineWaiter>> = nodes.map((node, i) => {
      const run = i === 0 ? runLineWaiter(node, { ...plan, waitMs: 0, holdMs: FIRST_HOLD_MS }, beliefs) : world.kernel.sleep((i - 1) * ARRIVAL_SPACING_MS).then(() => runLineWaiter(node, plan, beliefs));
      return run.finally(() => (finished += 1));
    });
    await world.kernel.runUntilCondition(() => finished === nodes.length, { untilMs: startMs + MAX_RUN_MS });
    const base = () => ({
      world,
      faults,
      appliedFaults,
      history: collectHistory(world, beliefs, probe),
      parameters: { waiters: WAITERS, fairness, arbiterRestart: restart, ttlSeconds: TTL_SECONDS, holdMs: HOLD_MS, arrivalSpacingMs: ARRIVAL_SPACING_MS, waitMs: WAIT_MS, crashAtMs: restart ? CRASH_AT_MS : -1 },
    });
    const results = await settleWithinHorizon(world, Promise.all(runs), { horizon: horizonOf(context, startMs), what: () => `${nodes.length - finished} of ${nodes.length} waiters`, partial: base });
    return {
      ...base(),
      metrics: lineMetrics(world, tap, results.slice(1), arrivals, startMs),
    };
  },
};

function lineMetrics(world: World, tap: LogTap, waiters: readonly LineWaiter[], arrivals: ReadonlyMap<string, number>, startMs: number): Record<string, number> {
  const grants = world.log.grants.filter((g) => g.key === KEY);
  const waiterGrants = grants.filter((g) => arrivals.has(g.holder) && g.holder !== grants[0]?.holder);
  const rank = (holder: string): number => arrivals.get(holder) ?? -1;
  const rejoined = new Set(waiters.filter((w) => w.rejoins > 0).map((w) => w.identity));
  const firstMs = waiterGrants[0]?.grantedAtMs ?? startMs;
  const lastMs = waiterGrants.at(-1)?.grantedAtMs ?? firstMs;
  const releases = grants.filter((g) => g.endReason === 'release').length;
  const { counts } = tap;
  return {
    waitersGranted: waiters.filter((w) => w.grantedAtMs !== undefined).length,
    waitersFailed: waiters.filter((w) => w.grantedAtMs === undefined).length,
    waitersRejoined: rejoined.size,
    rejoins: waiters.reduce((sum, w) => sum + w.rejoins, 0),
    grantsInLog: grants.length,
    lineMs: Math.round(lastMs - firstMs),
    grantsPerSecond: lastMs > firstMs ? round2(((waiterGrants.length - 1) * 1000) / (lastMs - firstMs)) : 0,
    orderInversions: inversions(waiterGrants.map((g) => rank(g.holder))),
    rejoinedInversions: inversions(waiterGrants.filter((g) => rejoined.has(g.holder)).map((g) => rank(g.holder))),
    grantTxns: counts.grantTxns,
    releases,
    attemptsPerRelease: releases === 0 ? 0 : round2(counts.grantTxns / releases),
    lineReads: counts.lineReads,
    waiterKeyWrites: counts.waiterKeyPuts + counts.waiterKeyDeletes,
    waiterKeyWritesPerGrant: counts.grantsWritten === 0 ? 0 : round2((counts.waiterKeyPuts + counts.waiterKeyDeletes) / counts.grantsWritten),
    logTxnsPerGrant: counts.grantsWritten === 0 ? 0 : round2((counts.grantsWritten + counts.releaseTxns + counts.waiterOnlyTxns) / counts.grantsWritten),
    waitersTimedOut: waiters.filter((w) => w.error === 'wait-timeout').length,
    /** Arrival to grant, over the waiters that were granted (-1 when none was). */
    maxWaitMs: Math.round(Math.max(-1, ...waiters.flatMap((w) => (w.grantedAtMs === undefined ? [] : [w.grantedAtMs - w.arrivedAtMs])))),
  };
}

function round2(value: number): number {
  return Math.round(value * 100) / 100;
}
