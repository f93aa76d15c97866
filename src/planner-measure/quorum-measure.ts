// `lockstep quorum --measure`'s workload on real processes (issue 32): the one the pricing simulates
// (sim/planner/quorum-run.ts), run against a RealTopology. Run r hands the leadership to member r mod N
// (etcdctl move-leader, as the simulator's MoveLeader), restarts the arbiter so its etcd client starts
// at its first member again, then every client acquires its own key, releases it and goes again after
// 1-5 ms, a closed loop of uncontended grants. Nothing is recorded until each client has made 2 (they
// fill the arbiter's caches) and the run's warm-up (ARBITER_WARMUP_MS unless asked otherwise) has passed
// (the restarted serve runs cold code: below). Latency is the client's: acquire called to grant returned, through the client's proxy.
import { performance } from 'node:perf_hooks';
import { LockClient } from '../../core/client/lock-client.js';
import { createRealClock, sleepMs } from '../clock/index.js';
import { createEtcdLockLog } from '../etcd/index.js';
import { NetworkArbiter } from '../client/network-arbiter.js';
import { durationText } from '../duration.js';
import { moveLeader } from '../testing/etcdctl.js';
import { type MeasureContext, MeasureInterrupted } from './measure-run.js';
import { clientName, identityOf, MEASURE_NAMESPACE, type RealTopology } from './real-topology.js';

export const QUORUM_CLASS = 'acquire';
const QUORUM_CLASS_TTL_SECONDS = 15; // the simulator's (sim/planner/quorum-run.ts)
export const quorumClasses = { [QUORUM_CLASS]: QUORUM_CLASS_TTL_SECONDS } as const;
const PLACE_ATTEMPTS = 5;
const PLACE_WAIT_MS = 10_000;
/**
 * Unrecorded start of every run. The run restarts the arbiter, and a freshly started `lockstep serve` runs
 * JIT-cold code: one client pausing 1-5 ms on a quiet machine measured a fresh serve's acquire p50 at
 * 5.05 / 4.22 ms over its first 100 acquisitions, ~3.6 ms over the next few hundred and 2.6-3.0 ms from
 * about the 700th (~7 s) on; eight fresh serves' first 200 acquisitions pooled gave p50 4.58 / p99 11.56 ms
 * against one warm serve's 2.93 / 8.38 (issue 32, session 31). The model prices a warm arbiter (the
 * profile's CPU is a warm serve's), so by default the measurement waits this long before it records. On a stretched
 * topology the same wait is ~100 acquisitions and the cold cost ~3% of a grant: the wait is by time.
 */
export const ARBITER_WARMUP_MS = 8_000;
/** Each client's first acquisitions, unrecorded whatever the time: they fill the arbiter's caches (as quorum-run.ts skips them). */
const CACHE_FILLING_ACQUISITIONS = 2;
/** A run that fails this many acquisitions is not measuring the priced path: it stops with an error. */
const MAX_FAILURES_PER_RUN = 50;

export interface MeasuredRun {
  /** The member that led when the run began, and when it ended (a change would mix two paths). */
  readonly leader: string;
  readonly leaderAtEnd: string;
  readonly latenciesMs: number[];
  readonly failures: number;
}

/** The member etcd says leads, asked of each member in turn; '(none)' when none knows one. */
export async function currentLeader(real: RealTopology, ids: ReadonlyMap<string, string>): Promise<string> {
  for (const endpoint of real.memberEndpoints) {
    const log = createEtcdLockLog({ endpoints: [endpoint], requestTimeoutMs: 3_000 });
    try {
      const status = await log.status();
      const name = ids.get(status.leader.toString(16));
      if (name !== undefined) return name;
    } catch {
      // ask the next member
    } finally {
      await log.close().catch(() => undefined);
    }
  }
  return '(none)';
}

async function placeLeader(real: RealTopology, ids: ReadonlyMap<string, string>, target: string): Promise<string> {
  const hex = [...ids].find(([, name]) => name === target)?.[0];
  if (hex === undefined) throw new Error(`no member ID known for ${target}`);
  for (let attempt = 0; attempt < PLACE_ATTEMPTS; attempt++) {
    if ((await currentLeader(real, ids)) === target) return target;
    await moveLeader(real.memberEndpoints, hex).catch(() => undefined); // a move during an election fails: try again
    const until = performance.now() + PLACE_WAIT_MS;
    while (performance.now() < until && (await currentLeader(real, ids)) !== target) await sleepMs(100);
  }
  return currentLeader(real, ids);
}

/** `samplesPerRun` grants per run, `runs` runs; run r puts the leader on member r mod N. */
export async function measureQuorum(real: RealTopology, request: { readonly runs: number; readonly samplesPerRun: number; readonly warmupMs: number; readonly onLoop?: (running: boolean) => void }, control: MeasureContext): Promise<MeasuredRun[]> {
  const ids = await real.memberIds();
  const runs: MeasuredRun[] = [];
  for (let r = 0; r < request.runs; r++) {
    const target = real.topology.members[r % real.topology.members.length]!.name;
    control.progress(`run ${r + 1}/${request.runs}: moving the leader to ${target}`);
    const leader = await placeLeader(real, ids, target);
    await real.restartArbiter();
    request.onLoop?.(true); // the rig's probe keeps its pings while the client loop runs (hop-probe.ts RigProbe)
    const warming = request.warmupMs > 0 ? ` (the restarted arbiter warms up: its first ${durationText(request.warmupMs)} are not recorded)` : '';
    const loop = await closedLoop(real, { samples: request.samplesPerRun, warmupMs: request.warmupMs }, (done) => control.progress(`run ${r + 1}/${request.runs} (leader ${leader}): ${done}/${request.samplesPerRun} acquisitions${done === 0 ? warming : ''}`), control.signal).finally(() => request.onLoop?.(false));
    runs.push({ leader, leaderAtEnd: await currentLeader(real, ids), ...loop });
  }
  return runs;
}

interface Loop {
  readonly latenciesMs: number[];
  readonly failures: number;
}

/** Every client of the topology acquires its own key, releases it, and goes again, until enough grants are measured. */
async function closedLoop(real: RealTopology, { samples, warmupMs }: { readonly samples: number; readonly warmupMs: number }, tick: (done: number) => void, signal: AbortSignal): Promise<Loop> {
  const count = real.topology.clients.count;
  const all: number[] = [];
  let failures = 0;
  let problem: Error | undefined;
  const warmUntilMs = performance.now() + warmupMs;
  const enough = (): boolean => all.length >= samples || problem !== undefined || signal.aborted;
  const clients = Array.from({ length: count }, (_, i) => {
    const identity = identityOf(clientName(i));
    const arbiter = new NetworkArbiter({ addresses: [real.arbiterAddress], dialAddresses: [real.dialFor(i)], identity });
    return { arbiter, client: new LockClient({ arbiter, clock: createRealClock(), identity }), key: `${MEASURE_NAMESPACE}/measure-${i}` };
  });
  tick(0); // at once: the warm-up's line
  const ticker = setInterval(() => tick(all.length), 3_000);
  try {
    await Promise.all(
      clients.map(async ({ client, key }) => {
        for (let made = 0; !enough(); made++) {
          const startMs = performance.now();
          try {
            const handle = await client.acquire({ key, className: QUORUM_CLASS, ttlSeconds: QUORUM_CLASS_TTL_SECONDS, waitMs: 0, onFence: () => {} });
            if (made >= CACHE_FILLING_ACQUISITIONS && startMs >= warmUntilMs) all.push(performance.now() - startMs);
            await handle.release().catch(() => false);
          } catch (error) {
            if (++failures > MAX_FAILURES_PER_RUN) problem = new Error(`${failures} acquisitions failed in one run, the last: ${(error as Error).message.split('\n')[0]}`);
          }
          await sleepMs(1 + Math.random() * 4);
        }
      }),
    );
  } finally {
    clearInterval(ticker);
    await Promise.all(clients.map(({ client }) => Promise.race([client.close(), sleepMs(3_000)]).catch(() => undefined)));
    for (const { arbiter } of clients) arbiter.close();
  }
  if (signal.aborted) throw new MeasureInterrupted();
  if (problem !== undefined) throw problem;
  return { latenciesMs: all.slice(0, samples), failures };
}
