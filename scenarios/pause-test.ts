// ADR-17's pause test, in the simulator: the kit's own procedure (core/pause-test) on simulated
// processes. The first holder acquires and stands just before its write (it has asked canStart(): the
// classic stale write); the run's schedule freezes it (a stop-the-world pause, SIGSTOP in the real kit)
// for longer than its TTL; its lease expires, the second holder is granted the key and writes; the first
// resumes and writes with its old token. A fenced resource refuses that write, and the record read back
// still holds the second holder's value. An unfenced one takes it: the newer write is lost, which is why
// only fenced classes may claim mutual exclusion (ADR-01). The simulated resource's write is one step,
// so the kit stands at "before" only; the real kit (lockstep pause-test) tries every point of the write.
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import { ClassRegistry, type LockClass } from '../core/classes/index.js';
import type { BeliefInterval } from '../core/checkers/index.js';
import { BEFORE_WRITE, type PauseTestReport, runPauseTest } from '../core/pause-test/index.js';
import type { RecordedWrite } from '../sim/world/resource.js';
import { World } from '../sim/world/world.js';
import { DeadlineProbe } from './deadline-probe.js';
import { type Fault, scheduleFaults } from './faults.js';
import { collectHistory } from './history.js';
import { horizonOf, settleWithinHorizon } from './horizon.js';
import { simFirstHolder, simResourcePort } from './pause-test-ports.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, worldBasics } from './scenario.js';

const TTL_SECONDS = 5; // ADR-11's minimum: fenced classes may go short
const PAUSE_AT_MS = 1_000;
const PAUSE_FOR_MS = 15_000; // three TTLs: the lease is long gone when the holder wakes
const RUN_FOR_MS = 25_000;
const KEY = 'payments/ledger-7';

function lockClass(): LockClass {
  return { namespace: 'payments', name: 'ledger-writes', purpose: 'correctness', ttlSeconds: TTL_SECONDS, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory', enforcement: 'fenced', resource: 'sim://ledger' };
}

/** Writes by the first holder that reached the resource after the second holder was granted the key. */
function staleWrites(writes: readonly RecordedWrite[], firstHolder: string, secondGrantedAtMs: number | undefined): { staleWritesAccepted: number; staleWritesRejected: number } {
  const stale = writes.filter((w) => w.holder === firstHolder && secondGrantedAtMs !== undefined && w.atMs > secondGrantedAtMs);
  return { staleWritesAccepted: stale.filter((w) => w.accepted).length, staleWritesRejected: stale.filter((w) => !w.accepted).length };
}

/** 1 the kit passed, 0 it failed, -1 it had not finished when the run ended (a schedule that never resumes the holder). */
function kitVerdict(report: PauseTestReport | undefined): number {
  return report === undefined ? -1 : report.passed ? 1 : 0;
}

export const pauseTest: Scenario = {
  name: 'pause-test',
  description: 'A holder paused past its TTL writes with its old token after a second holder took the key (ADR-17), run by the pause test kit.',
  variants: [
    { name: 'fenced', expect: 'pass', description: 'the resource keeps a high-water mark and rejects the stale write' },
    { name: 'unfenced', expect: 'violation', shows: ['fence'], description: 'the resource accepts any token: the stale write lands after the second holder\'s (checks: fence)' },
  ],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const fenced = context.variant.name === 'fenced';
    const cls = lockClass(); // the lock class is the same; what differs is whether the resource checks tokens
    const world = new World({
      ...worldBasics(context),
      classes: new ClassRegistry([cls]),
      authorizer: new PrefixGrants(['spiffe://sim/alice', 'spiffe://sim/bob'].map((id) => namespaceGrant(id, 'payments'))),
    });
    const probe = new DeadlineProbe(world);
    await world.start();
    const resource = world.addResource('ledger-db', { fenced, writeMs: 20 });
    const alice = world.addClient('alice', { wrapApi: probe.wrapApi });
    const bob = world.addClient('bob', { wrapApi: probe.wrapApi });
    const faults: readonly Fault[] = context.faults ?? [
      { atMs: PAUSE_AT_MS, kind: 'pause', target: 'alice' },
      { atMs: PAUSE_AT_MS + PAUSE_FOR_MS, kind: 'resume', target: 'alice' },
    ];
    const appliedFaults = scheduleFaults(world, faults);
    const beliefs: BeliefInterval[] = [];
    const hold = { key: KEY, className: cls.name, ttlSeconds: cls.ttlSeconds };
    let report: PauseTestReport | undefined;
    let secondGrantedAtMs: number | undefined;
    const lock = {
      acquire: async (options: Parameters<typeof bob.client.acquire>[0]) => {
        const handle = await bob.client.acquire(options);
        secondGrantedAtMs = world.kernel.now();
        beliefs.push({ holder: bob.identity, key: KEY, token: handle.token, fromMs: secondGrantedAtMs, toMs: secondGrantedAtMs });
        return handle;
      },
    };
    const ports = { clock: bob.process.clock(), lock, firstHolder: simFirstHolder(alice, resource, hold, beliefs), resource: simResourcePort(bob, resource, KEY) };
    const startMs = world.kernel.now();
    // The kit bounds each of its waits (core/pause-test/within.ts): one that expires (a first holder never
    // resumed) ends the kit inconclusive, kitPassed -1, not the run.
    const kit = runPauseTest(ports, { ...hold, runId: `seed-${context.seed}`, points: [BEFORE_WRITE] }, () => {}).then(
      (r) => (report = r),
      () => undefined,
    );
    await world.runUntil(startMs + RUN_FOR_MS);
    const base = () => ({
      world,
      faults,
      appliedFaults,
      history: collectHistory(world, beliefs, probe),
      parameters: { ttlSeconds: TTL_SECONDS, pauseAtMs: PAUSE_AT_MS, pauseForMs: PAUSE_FOR_MS, resource: fenced ? 'fenced' : 'unfenced', pausePoints: [BEFORE_WRITE] },
    });
    // A schedule that freezes the kit's own side (the second holder) leaves it waiting: the run then ends at its horizon.
    await settleWithinHorizon(world, kit, { horizon: horizonOf(context, startMs), what: 'the pause test kit (alice, bob)', partial: base });
    const secondWrites = resource.writes.filter((w) => w.holder === bob.identity);
    return {
      ...base(),
      metrics: {
        ...staleWrites(resource.writes, alice.identity, secondGrantedAtMs),
        kitPassed: kitVerdict(report),
        secondHolderWaitMs: secondGrantedAtMs === undefined ? -1 : secondGrantedAtMs - startMs - PAUSE_AT_MS,
        secondHolderWritesAccepted: secondWrites.filter((w) => w.accepted).length,
      },
    };
  },
};
