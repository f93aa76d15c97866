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
import { NetworkArbiter } from '../src/client/network-arbiter.js';
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
  // Renewal runs from the first session's opening: setting up 10,000 holds takes longer than a TTL.
  const renewal = new Renewer(sessions, clientOf);
  const renewing = renewal.run();
  try {
    const setupStartMs = performance.now();
    options.say(`capacity: opening ${options.sessions} sessions through lockstep serve at ${service.address}`);
    await inParallel(options.sessions, async (i) => {
      const sentMs = performance.now();
      const session = await clientOf(i).openSession({ ttlSeconds: BENCH_CLASS.ttlSeconds });
      renewal.opened(i, sentMs);
      sessions[i] = session;
    });
    const holds = options.sessions * options.holdsPerSession;
    const prefix = `${BENCH_NAMESPACE}/${options.runId}/cap/`;
    options.say(`capacity: granting ${holds} holds (${options.holdsPerSession} per session), every session renewed at TTL/3 meanwhile`);
    await inParallel(holds, async (h) => {
      const i = h % options.sessions;
      const session = sessions[i] as Session;
      await clientOf(i).acquire({ sessionId: session.sessionId, key: `${prefix}s${i}/h${Math.floor(h / options.sessions)}`, className: BENCH_CLASS.name, waitMs: 0 });
    });
    const setupS = (performance.now() - setupStartMs) / 1000;
    options.say(`capacity: ${holds} holds granted in ${Math.round(setupS)} s; renewing every session at TTL/3 for ${Math.round(options.renewForMs / 1000)} s more`);
    await new Promise((resolve) => setTimeout(resolve, options.renewForMs));
    renewal.stop();
    const result = await renewing;
    const held = await log.range({ key: `${HOLDER_PREFIX}${prefix}`, prefix: true });
    const report: CapacityReport = { sessions: options.sessions, holds, ttlSeconds: BENCH_CLASS.ttlSeconds, renewedForS: Math.round((performance.now() - setupStartMs) / 100) / 10, setupS: Math.round(setupS * 10) / 10, ...result, holdsStillHeld: held.kvs.length };
    options.say(`capacity: ${report.sessions} sessions, ${report.holds} holds: ${report.renewals} renewals (${report.renewalFailures} failed), renewal p50 ${report.renewal.p50Ms} ms p99 ${report.renewal.p99Ms} ms, longest gap ${report.maxRenewalGapMs} ms, ${report.falseFences} false fence(s), ${report.holdsStillHeld} holds still held`);
    return report;
  } finally {
    renewal.stop();
    await renewing.catch(() => undefined);
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

/**
 * Each session renewed every TTL/3 from its opening (so the renewals are spread as independent clients'
 * are); a session counts as falsely fenced when its last successful renewal was sent more than
 * TTL - margin ago (ADR-12) while it is still being renewed.
 */
class Renewer {
  private readonly periodMs = (BENCH_CLASS.ttlSeconds * 1000) / 3;
  private readonly fenceAfterMs = BENCH_CLASS.ttlSeconds * 1000 - DEFAULT_FENCE_MARGIN_MS;
  private readonly lastOkSentMs: number[] = [];
  private readonly nextDueMs: number[] = [];
  private readonly inFlight = new Set<number>();
  private readonly fenced = new Set<number>();
  private readonly latency = new LatencyHistogram();
  private renewals = 0;
  private failures = 0;
  private maxGapMs = 0;
  private stopped = false;

  constructor(
    private readonly sessions: readonly (Session | undefined)[],
    private readonly clientOf: (i: number) => NetworkArbiter,
  ) {}

  opened(i: number, sentMs: number): void {
    this.lastOkSentMs[i] = sentMs;
    this.nextDueMs[i] = sentMs + this.periodMs;
  }

  stop(): void {
    this.stopped = true;
  }

  async run(): Promise<RenewResult> {
    const pending: Promise<void>[] = [];
    while (!this.stopped) {
      const nowMs = performance.now();
      this.sessions.forEach((session, i) => {
        const due = this.nextDueMs[i];
        if (session === undefined || due === undefined) return;
        if (nowMs - (this.lastOkSentMs[i] ?? nowMs) > this.fenceAfterMs) this.fenced.add(i);
        if (this.inFlight.has(i) || due > nowMs) return;
        this.inFlight.add(i);
        this.nextDueMs[i] = nowMs + this.periodMs;
        pending.push(this.renew(i, session));
      });
      await new Promise((resolve) => setTimeout(resolve, TICK_MS));
    }
    await Promise.all(pending);
    return { renewals: this.renewals, renewalFailures: this.failures, renewal: this.latency.summary(), maxRenewalGapMs: Math.round(this.maxGapMs), falseFences: this.fenced.size };
  }

  private async renew(i: number, session: Session): Promise<void> {
    const sentMs = performance.now();
    try {
      await this.clientOf(i).keepAlive({ sessionId: session.sessionId });
      this.renewals += 1;
      this.latency.record(performance.now() - sentMs);
      this.maxGapMs = Math.max(this.maxGapMs, sentMs - (this.lastOkSentMs[i] ?? sentMs));
      this.lastOkSentMs[i] = sentMs;
    } catch {
      this.failures += 1;
    } finally {
      this.inFlight.delete(i);
    }
  }
}
