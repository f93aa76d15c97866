// `node bin/run-compiled.mjs bench/serve-layers-micro.ts [--cycles N] [--rounds N]` (issue 30): the CPU of
// each layer serve wraps around its arbiter, alone in one process and without the noise of a shared
// machine's scheduling: an arbiter stub that answers at once, wrapped as serve wraps it (arbiter metrics,
// call log at warn, quotas; the etcd timing around a stub log called twice a cycle, as the arbiter's grant
// and release txns are), driven for N acquire+release cycles per layer, rounds interleaved. Prints the
// median CPU microseconds per cycle that each layer adds over the bare stub.
import { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { QuotaGate } from '../core/arbiter/quotas.js';
import { DEFAULT_IDENTITY_LIMITS } from '../core/limits.js';
import type { Grant } from '../core/ports/arbiter-api.js';
import { type ArbiterService, authenticated } from '../core/ports/caller.js';
import type { LockLog } from '../core/ports/lock-log.js';
import { type FencingToken, leaseId } from '../core/units.js';
import { createRealClock } from '../src/clock/index.js';
import { createLogger, logArbiterCalls } from '../src/logging/index.js';
import { createArbiterMetrics } from '../src/metrics/index.js';
import { BENCH_CLASS, BENCH_NAMESPACE, benchClasses, workerIdentity } from './workloads/bench-world.js';

const { values } = parseArgs({ options: { cycles: { type: 'string', default: '50000' }, rounds: { type: 'string', default: '5' } } });
const cycles = Number(values.cycles);
const caller = authenticated(workerIdentity(0));
const session = leaseId(7n);

function stubArbiter(log: LockLog): ArbiterService {
  const none = () => Promise.reject(new Error('not in the bench'));
  return {
    openSession: async ({ identity }, { ttlSeconds }) => ({ sessionId: session, identity, instance: '', ttlSeconds }),
    keepAlive: async () => ({ ttlSeconds: BENCH_CLASS.ttlSeconds }),
    closeSession: async () => undefined,
    acquire: async (who, request): Promise<Grant> => {
      await log.txn({ compare: [], success: [], failure: [] } as never);
      return { key: request.key, token: 1n as FencingToken, epoch: 1, revision: 1n, sessionId: request.sessionId, identity: who.identity, className: request.className, reentered: false };
    },
    release: async () => {
      await log.txn({ compare: [], success: [], failure: [] } as never);
      return { released: true };
    },
    validate: none, inspect: none, describeKey: none, requestForceRelease: none, approveForceRelease: none, requestEpochAdvance: none, approveEpochAdvance: none,
    status: async () => ({ epoch: 1, clusterId: 1n, sealed: undefined }),
  };
}

const stubLog = { txn: async () => ({ succeeded: true, responses: [], revision: 1n }) } as unknown as LockLog;
const metrics = createArbiterMetrics({ cluster: 'entity-1', classes: benchClasses() });
const logger = createLogger({ json: false, level: 'warn', destination: new Writable({ write: (_chunk, _encoding, callback) => callback() }) });
const LAYERS: Record<string, () => ArbiterService> = {
  'bare stub': () => stubArbiter(stubLog),
  'etcd timing': () => stubArbiter(metrics.instrumentLog(stubLog, 'entity')),
  'arbiter metrics': () => metrics.instrument(stubArbiter(stubLog)),
  'call log': () => logArbiterCalls(stubArbiter(stubLog), logger),
  // The platform limits, the call rate raised: a stub answers faster than any identity may call.
  quotas: () => new QuotaGate(stubArbiter(stubLog), { clock: createRealClock(), limitsOf: () => ({ ...DEFAULT_IDENTITY_LIMITS, callsPerSecond: 1e9, callBurst: 1e9 }) }),
};

async function cpuUsPerCycle(api: ArbiterService, round: number): Promise<number> {
  await api.openSession(caller, { ttlSeconds: BENCH_CLASS.ttlSeconds });
  const before = process.cpuUsage();
  for (let i = 0; i < cycles; i++) {
    const key = `${BENCH_NAMESPACE}/m${round}-${i}`;
    const grant = await api.acquire(caller, { sessionId: session, key, className: BENCH_CLASS.name, waitMs: 0 });
    await api.release(caller, { sessionId: session, key, token: grant.token });
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / cycles;
}

const samples = new Map<string, number[]>(Object.keys(LAYERS).map((name) => [name, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, build] of Object.entries(LAYERS)) samples.get(name)?.push(await cpuUsPerCycle(build(), round));
}
const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const bare = median(samples.get('bare stub') ?? []);
process.stdout.write(`${cycles} cycles a slice, ${values.rounds} rounds\n\n| layer | CPU us/cycle | over the bare stub |\n|---|---:|---:|\n`);
for (const [name, xs] of samples) process.stdout.write(`| ${name} | ${median(xs).toFixed(2)} | ${(median(xs) - bare).toFixed(2)} |\n`);
