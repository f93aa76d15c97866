// How many sessions and holds one `lockstep serve` arbiter keeps alive (issue 12's goal: 1,000 sessions
// with 10,000 holds renewed at TTL 15 s on this machine without a false fence). Sessions are opened and
// holds granted through a real serve process, then every session is renewed at TTL/3 (as the client
// library does, ADR-12) over its keepalive stream for `renewForMs`. A false fence is a session whose
// client-side fence deadline (last renewal sent + TTL - the ADR-12 margin) passed while its lease was
// alive: judged from the renewals' send times. At the end the holder keys are read straight from etcd
// (not from the service): every hold must still be there.
import { DEFAULT_FENCE_MARGIN_MS } from '../core/client/client-session.js';
import { HOLDER_PREFIX } from '../core/lock-key.js';
import type { Session } from '../core/ports/arbiter-api.js';
import { createEtcdLockLog } from '../src/etcd/index.js';
import { NetworkArbiter } from '../src/service/network-arbiter.js';
import { LatencyHistogram, type LatencySummary } from './histogram.js';
import { startBenchService } from './service-process.js';
import { BENCH_CLASS, BENCH_NAMESPACE, workerIdentity } from './workloads/bench-world.js';

export interface CapacityOptions {
  readonly endpoints: readonly string[];
  readonly sessions: number;
  readonly holdsPerSession: number;
  readonly renewForMs: number;
  readonly runId: string;
  readonly say: (line: string) => void;
}

export interface CapacityReport {
  readonly sessions: number;
  readonly holds: number;
  readonly ttlSeconds: number;
  readonly renewedForS: number;
  readonly setupS: number;
  readonly renewals: number;
  readonly renewalFailures: number;
  readonly renewal: LatencySummary;
  /** Longest time between two successful renewals' sends of one session, ms. */
  readonly maxRenewalGapMs: number;
  readonly falseFences: number;
  /** Holder keys read from etcd at the end; equal to holds when nothing was lost. */
  readonly holdsStillHeld: number;
}

/** Connections (one client each) the sessions are spread over: callers are many processes, not one. */
const CLIENTS = 16;
/** Calls in flight while setting up (sessions, then holds). */
const SETUP_PARALLEL = 32;
const TICK_MS = 50;

async function inParallel(count: number, run: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(SETUP_PARALLEL, count) }, async () => {
    while (next < count) await run(next++);
  }));
}

export async function runCapacity(options: CapacityOptions): Promise<CapacityReport> {
  const identities = Array.from({ length: CLIENTS }, (_, i) => workerIdentity(i));
  const service = await startBenchService(options.endpoints, identities);
  const clients = identities.map((identity) => new NetworkArbiter({ addresses: [service.address], identity }));
  const clientOf = (i: number) => clients[i % CLIENTS] as NetworkArbiter;
  const sessions: Session[] = [];
  const log = createEtcdLockLog({ endpoints: [...options.endpoints] });
  try {
    const setupStartMs = performance.now();
    options.say(`capacity: opening ${options.sessions} sessions through lockstep serve at ${service.address}`);
    await inParallel(options.sessions, async (i) => {
      sessions[i] = await clientOf(i).openSession({ ttlSeconds: BENCH_CLASS.ttlSeconds });
    });
    const lastOkSentMs = sessions.map(() => performance.now());
    const holds = options.sessions * options.holdsPerSession;
    const prefix = `${BENCH_NAMESPACE}/${options.runId}/cap/`;
    options.say(`capacity: granting ${holds} holds (${options.holdsPerSession} per session)`);
    await inParallel(holds, async (h) => {
      const i = h % options.sessions;
      const session = sessions[i] as Session;
      await clientOf(i).acquire({ sessionId: session.sessionId, key: `${prefix}s${i}/h${Math.floor(h / options.sessions)}`, className: BENCH_CLASS.name, waitMs: 0 });
    });
    const setupS = (performance.now() - setupStartMs) / 1000;
    options.say(`capacity: renewing every session at TTL/3 for ${Math.round(options.renewForMs / 1000)} s`);
    const result = await renewAll(sessions, clientOf, lastOkSentMs, options.renewForMs);
    const held = await log.range({ key: `${HOLDER_PREFIX}${prefix}`, prefix: true });
    const report: CapacityReport = { sessions: options.sessions, holds, ttlSeconds: BENCH_CLASS.ttlSeconds, renewedForS: options.renewForMs / 1000, setupS: Math.round(setupS * 10) / 10, ...result, holdsStillHeld: held.kvs.length };
    options.say(`capacity: ${report.sessions} sessions, ${report.holds} holds: ${report.renewals} renewals (${report.renewalFailures} failed), renewal p50 ${report.renewal.p50Ms} ms p99 ${report.renewal.p99Ms} ms, longest gap ${report.maxRenewalGapMs} ms, ${report.falseFences} false fence(s), ${report.holdsStillHeld} holds still held`);
    return report;
  } finally {
    await inParallel(sessions.length, async (i) => {
      const session = sessions[i];
      if (session !== undefined) await clientOf(i).closeSession({ sessionId: session.sessionId }).catch(() => undefined);
    });
    for (const client of clients) client.close();
    await log.close();
    await service.stop();
  }
}

type RenewResult = Pick<CapacityReport, 'renewals' | 'renewalFailures' | 'renewal' | 'maxRenewalGapMs' | 'falseFences'>;

/** Each session renewed every TTL/3, the sessions spread evenly over that period (as independent clients would be). */
async function renewAll(sessions: readonly Session[], clientOf: (i: number) => NetworkArbiter, lastOkSentMs: number[], renewForMs: number): Promise<RenewResult> {
  const periodMs = (BENCH_CLASS.ttlSeconds * 1000) / 3;
  const fenceAfterMs = BENCH_CLASS.ttlSeconds * 1000 - DEFAULT_FENCE_MARGIN_MS;
  const startMs = performance.now();
  const nextDueMs = sessions.map((_, i) => startMs + (i / sessions.length) * periodMs);
  const inFlight = new Set<number>();
  const fenced = new Set<number>();
  const latency = new LatencyHistogram();
  let renewals = 0;
  let failures = 0;
  let maxGapMs = 0;
  const pending: Promise<void>[] = [];
  while (performance.now() - startMs < renewForMs) {
    const nowMs = performance.now();
    sessions.forEach((session, i) => {
      if (nowMs - (lastOkSentMs[i] ?? nowMs) > fenceAfterMs) fenced.add(i);
      if (inFlight.has(i) || (nextDueMs[i] ?? 0) > nowMs) return;
      inFlight.add(i);
      nextDueMs[i] = nowMs + periodMs;
      const sentMs = performance.now();
      pending.push(clientOf(i).keepAlive({ sessionId: session.sessionId }).then(
        () => {
          renewals += 1;
          latency.record(performance.now() - sentMs);
          maxGapMs = Math.max(maxGapMs, sentMs - (lastOkSentMs[i] ?? sentMs));
          lastOkSentMs[i] = sentMs;
        },
        () => {
          failures += 1;
        },
      ).finally(() => inFlight.delete(i)));
    });
    await new Promise((resolve) => setTimeout(resolve, TICK_MS));
  }
  await Promise.all(pending);
  return { renewals, renewalFailures: failures, renewal: latency.summary(), maxRenewalGapMs: Math.round(maxGapMs), falseFences: fenced.size };
}
