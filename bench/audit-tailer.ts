// `npx tsx bench/audit-tailer.ts [--seconds S] [--workers W] [--out FILE]`: what the audit tailer (ADR-21)
// sustains on this machine, against a throwaway 1-member etcd on loopback:
// - store: events/s one DuckDB flush writes (synthetic grant/release records, 10,000 a flush);
// - catch-up: events/s from etcd's history into the store, for a tailer started behind a finished load;
// - lag: with `lockstep audit tail` running live in its own process (its default 2 s checkpoint), a
//   closed-loop grant load (the bench's grant path: acquire on a fresh key, release), and for each grant the
//   time from its commit to the progress line of the checkpoint that covered it; and the grant rate with
//   the tailer as a ratio of the rate without it (on one machine they share its cores).
import { authenticated } from '../core/ports/caller.js';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditRecord } from '../core/audit/events.js';
import { type TailerProgress, runTailer } from '../core/audit/tailer.js';
import { CancelSource } from '../core/cancel.js';
import { packToken } from '../core/token.js';
import { type Revision, clusterId, leaseId, revision } from '../core/units.js';
import { DuckDbAuditStore } from '../src/audit/duckdb-store.js';
import { createRealClock, createSeededRandom } from '../src/clock/index.js';
import { createEtcdLockLog, initEtcdLog } from '../src/etcd/index.js';
import { startEtcdCluster } from '../src/testing/etcd-cluster.js';
import { writeFileAtomically } from '../src/files/atomic-write.js';
import { BENCH_CLASS, BENCH_NAMESPACE, openBenchWorld } from './workloads/bench-world.js';

const STORE_EVENTS = 200_000;
const STORE_BATCH = 10_000;

function flag(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  const value = index < 0 ? fallback : Number(process.argv[index + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
}

const round = (x: number): number => Math.round(x * 10) / 10;

async function storeThroughput(dir: string): Promise<{ eventsPerS: number; emptyFlushMs: number }> {
  const store = new DuckDbAuditStore(join(dir, 'store.duckdb'));
  const id = clusterId(0xfeedn);
  const record = (i: number): AuditRecord => ({
    kind: i % 2 === 0 ? 'grant' : 'release', revision: revision(BigInt(i + 2)), key: `${BENCH_NAMESPACE}/k-${i >> 1}`, namespace: BENCH_NAMESPACE,
    identity: `spiffe://lockstep.bench/ns/bench/sa/worker-${i % 16}`, className: BENCH_CLASS.name, sessionId: leaseId(7587869127451718000n),
    grantRevision: revision(BigInt(i - (i % 2) + 2)), epoch: 1, token: packToken(1, BigInt(i - (i % 2) + 2)), clusterId: id, observedAtMs: Date.now(), timeExact: true,
  });
  const startMs = performance.now();
  for (let from = 0; from < STORE_EVENTS; from += STORE_BATCH) {
    const records = Array.from({ length: STORE_BATCH }, (_, j) => record(from + j));
    await store.write({ records, gaps: [], checkpoint: { clusterId: id, revision: revision(BigInt(from + STORE_BATCH + 1)), epoch: 1, updatedAtMs: Date.now() } });
  }
  const eventsPerS = (STORE_EVENTS * 1000) / (performance.now() - startMs);
  const emptyStart = performance.now();
  for (let i = 0; i < 10; i += 1) await store.write({ records: [], gaps: [], checkpoint: { clusterId: id, revision: revision(BigInt(STORE_EVENTS + 10 + i)), epoch: 1, updatedAtMs: Date.now() } });
  return { eventsPerS: Math.round(eventsPerS), emptyFlushMs: round((performance.now() - emptyStart) / 10) };
}

interface GrantSample {
  readonly revision: Revision;
  readonly atMs: number;
}

/** Closed-loop grants (acquire on a fresh key, release) by `workers` workers for `seconds`. */
async function grantLoad(endpoints: readonly string[], workers: number, seconds: number, runId: string): Promise<GrantSample[]> {
  const world = await openBenchWorld(endpoints, workers, `audit-bench-${runId}`, () => undefined);
  const samples: GrantSample[] = [];
  const endMs = performance.now() + seconds * 1000;
  try {
    await Promise.all(
      world.sessions.map(async (session, worker) => {
        for (let i = 0; performance.now() < endMs; i += 1) {
          const grant = await world.arbiter.acquire(authenticated(session.identity), { sessionId: session.sessionId, key: `${BENCH_NAMESPACE}/${runId}/w${worker}-${i}`, className: BENCH_CLASS.name, waitMs: 0 });
          samples.push({ revision: revision(grant.revision), atMs: Date.now() });
          await world.arbiter.release(authenticated(session.identity), { sessionId: session.sessionId, key: grant.key, token: grant.token });
        }
      }),
    );
  } finally {
    await world.close();
  }
  return samples;
}

/** An in-process tailer (for the catch-up: how fast the procedure and the store go, with nothing else running). */
function startTailer(endpoints: readonly string[], db: string, checkpointIntervalMs: number, onProgress: (p: TailerProgress, atMs: number) => void): { stop: () => Promise<void> } {
  const log = createEtcdLockLog({ endpoints: [...endpoints] });
  const signal = new CancelSource();
  const done = runTailer({ log, store: new DuckDbAuditStore(db), clock: createRealClock(), wallClock: { nowMs: () => Date.now() }, random: createSeededRandom('audit-bench'), signal, checkpointIntervalMs, onProgress: (p) => onProgress(p, Date.now()) });
  return {
    stop: async () => {
      signal.cancel();
      await done;
      await log.close();
    },
  };
}

/** `lockstep audit tail` as an operator runs it, in its own process: its progress lines, stamped when read. */
function tailProcess(endpoints: readonly string[], db: string): { progress: { revision: bigint; atMs: number; lagRevisions: bigint }[]; stop: () => Promise<void> } {
  const child = spawn(process.execPath, ['bin/lockstep.mjs', 'audit', 'tail', '--endpoints', endpoints.join(','), '--db', db, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const progress: { revision: bigint; atMs: number; lagRevisions: bigint }[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const atMs = Date.now();
    const lines = (pending + chunk.toString('utf8')).split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const parsed = JSON.parse(line) as { event: string; checkpointRevision?: string; lagRevisions?: string };
      if (parsed.event === 'progress') progress.push({ revision: BigInt(parsed.checkpointRevision ?? 0), atMs, lagRevisions: BigInt(parsed.lagRevisions ?? 0) });
    }
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    progress,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const seconds = flag('--seconds', 20);
  const workers = flag('--workers', 16);
  const outIndex = process.argv.indexOf('--out');
  const dir = mkdtempSync(join(tmpdir(), 'lockstep-audit-bench-'));
  const cluster = await startEtcdCluster({ members: 1 });
  const log = createEtcdLockLog({ endpoints: cluster.endpoints });
  try {
    await initEtcdLog(cluster.endpoints);
    const store = await storeThroughput(dir);
    process.stderr.write(`store: ${store.eventsPerS} events/s in flushes of ${STORE_BATCH}; an empty flush ${store.emptyFlushMs} ms\n`);

    const baseline = await grantLoad(cluster.endpoints, workers, seconds, 'baseline');
    process.stderr.write(`grants without a tailer: ${round(baseline.length / seconds)}/s\n`);

    const live = tailProcess(cluster.endpoints, join(dir, 'live.duckdb'));
    while (live.progress.length === 0) await sleep(100); // elected and caught up with the baseline's history
    const loaded = await grantLoad(cluster.endpoints, workers, seconds, 'loaded');
    const lastRevision = loaded.reduce((m, s) => (s.revision > m ? s.revision : m), 0n);
    while (!live.progress.some((p) => p.revision >= lastRevision)) await sleep(100);
    await live.stop();
    const lags = loaded.map((s) => (live.progress.find((p) => p.revision >= s.revision)?.atMs ?? Number.NaN) - s.atMs).sort((a, b) => a - b);
    process.stderr.write(`grants with lockstep audit tail running: ${round(loaded.length / seconds)}/s\n`);

    const head = (await log.status()).header.revision;
    let caughtUpMs: number | undefined;
    let written = 0;
    const catchUpStart = Date.now();
    const behind = startTailer(cluster.endpoints, join(dir, 'catch-up.duckdb'), 200, (p, atMs) => {
      written = p.eventsWritten;
      if (caughtUpMs === undefined && p.checkpointRevision >= head) caughtUpMs = atMs - catchUpStart;
    });
    while (caughtUpMs === undefined) await sleep(50);
    await behind.stop();
    const result = {
      machine: { cpus: cpus().length },
      workers,
      seconds,
      store,
      catchUp: { events: written, revisions: Number(head), ms: caughtUpMs, eventsPerS: Math.round((written * 1000) / caughtUpMs) },
      load: {
        grantsPerS: round(loaded.length / seconds),
        grantsPerSWithoutTailer: round(baseline.length / seconds),
        ratioWithTailer: Math.round((loaded.length / baseline.length) * 1000) / 1000,
        checkpointIntervalMs: 2_000,
        commitToCheckpointMs: { p50: round(percentile(lags, 50)), p99: round(percentile(lags, 99)), max: round(lags.at(-1) ?? Number.NaN) },
        maxLagRevisions: Number(live.progress.reduce((m, p) => (p.lagRevisions > m ? p.lagRevisions : m), 0n)),
      },
    };
    process.stderr.write(`catch-up: ${written} events (revisions 1..${head}) in ${caughtUpMs} ms: ${result.catchUp.eventsPerS} events/s\n`);
    process.stderr.write(`lag under ${result.load.grantsPerS} grants/s: commit to checkpoint p50 ${result.load.commitToCheckpointMs.p50} ms, p99 ${result.load.commitToCheckpointMs.p99} ms, max ${result.load.commitToCheckpointMs.max} ms; at most ${result.load.maxLagRevisions} revisions behind at a checkpoint\n`);
    process.stdout.write(`${JSON.stringify(result)}\n`);
    if (outIndex >= 0) await writeFileAtomically(process.argv[outIndex + 1] ?? 'audit-bench.json', `${JSON.stringify(result, null, 2)}\n`);
  } finally {
    await log.close();
    await cluster.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
