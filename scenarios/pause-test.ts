// ADR-17's pause test, in the simulator: a holder is frozen (a stop-the-world pause, SIGSTOP in the
// real kit) just before it writes, for longer than its TTL; its lease expires, a second holder takes
// the key and writes; the first resumes and writes with its old token. A fenced resource rejects that
// write. An unfenced one takes it: two writers at once, which is why only fenced classes may claim
// mutual exclusion (ADR-01).
import { PrefixGrants, namespaceGrant } from '../core/authz/index.js';
import { ClassRegistry, type LockClass } from '../core/classes/index.js';
import type { BeliefInterval } from '../core/checkers/index.js';
import type { RecordedWrite } from '../sim/world/resource.js';
import { World } from '../sim/world/world.js';
import { DeadlineProbe } from './deadline-probe.js';
import { type Fault, scheduleFaults } from './faults.js';
import { collectHistory } from './history.js';
import { runHolder } from './holder.js';
import { horizonOf, settleWithinHorizon } from './horizon.js';
import { type Scenario, type ScenarioContext, type ScenarioOutcome, worldBasics } from './scenario.js';

const TTL_SECONDS = 5; // ADR-11's minimum: fenced classes may go short
const PAUSE_AT_MS = 1_000;
const PAUSE_FOR_MS = 15_000; // three TTLs: the lease is long gone when the holder wakes
const RUN_FOR_MS = 25_000;

function lockClass(enforcement: 'fenced' | 'advisory'): LockClass {
  const common = { namespace: 'payments', name: 'ledger-writes', purpose: 'correctness', ttlSeconds: TTL_SECONDS, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' } as const;
  return enforcement === 'fenced'
    ? { ...common, enforcement, resource: 'sim://ledger' }
    : { ...common, enforcement, riskOwner: 'team-payments', waiverExpires: '2099-12-31', ttlSeconds: 30 };
}

/** Writes by the first holder that reached the resource after the second holder was granted the key. */
function staleWrites(writes: readonly RecordedWrite[], firstHolder: string, secondGrantedAtMs: number | undefined): { staleWritesAccepted: number; staleWritesRejected: number } {
  const stale = writes.filter((w) => w.holder === firstHolder && secondGrantedAtMs !== undefined && w.atMs > secondGrantedAtMs);
  return { staleWritesAccepted: stale.filter((w) => w.accepted).length, staleWritesRejected: stale.filter((w) => !w.accepted).length };
}

export const pauseTest: Scenario = {
  name: 'pause-test',
  description: 'A holder paused past its TTL writes with its old token after a second holder took the key (ADR-17).',
  variants: [
    { name: 'fenced', expect: 'pass', description: 'the resource keeps a high-water mark and rejects the stale write' },
    { name: 'unfenced', expect: 'violation', shows: ['fence'], description: 'the resource accepts any token: two holders write at once (checks: fence)' },
  ],
  async run(context: ScenarioContext): Promise<ScenarioOutcome> {
    const fenced = context.variant.name === 'fenced';
    const cls = lockClass('fenced'); // the lock class is the same; what differs is whether the resource checks tokens
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
    const plan = { key: 'payments/ledger-7', className: cls.name, ttlSeconds: cls.ttlSeconds, resource, prepareMs: 300, gapMs: 100 } as const;
    const results = Promise.all([
      runHolder(alice, { ...plan, waitMs: 0, units: 20 }, beliefs),
      world.kernel.sleep(200).then(() => runHolder(bob, { ...plan, waitMs: 20_000, units: 3 }, beliefs)),
    ]);
    const startMs = world.kernel.now();
    await world.runUntil(startMs + RUN_FOR_MS);
    const base = () => ({
      world,
      faults,
      appliedFaults,
      history: collectHistory(world, beliefs, probe),
      parameters: { ttlSeconds: TTL_SECONDS, pauseAtMs: PAUSE_AT_MS, pauseForMs: PAUSE_FOR_MS, resource: fenced ? 'fenced' : 'unfenced' },
    });
    const [a, b] = await settleWithinHorizon(world, results, { horizon: horizonOf(context, startMs), what: 'the two holders (alice, bob)', partial: base });
    return {
      ...base(),
      metrics: {
        ...staleWrites(resource.writes, alice.identity, b.grantedAtMs),
        firstHolderUnits: a.unitsDone,
        secondHolderWaitMs: b.grantedAtMs === undefined ? -1 : b.grantedAtMs - startMs - 200,
        secondHolderWritesAccepted: b.writesAccepted,
      },
    };
  },
};
