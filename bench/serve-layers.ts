// `node bin/run-compiled.mjs bench/serve-layers.ts [--rounds N] [--slice-ms MS] [--concurrency C]` (issue 30):
// where serve's CPU per acquire+release goes beyond the arbiter's and the RPC stack's. One throwaway etcd;
// `lockstep serve` itself (mTLS) and one serve-layers-child.ts per layer (serve's composition with that
// layer left out; `none` leaves out nothing, `all` every layer), each its own process; then rounds of
// slices rotating through them (a burst of load on the shared machine hits every server alike), the CPU
// of the server's process read around each slice from /proc. Prints a markdown table: per server the
// median over rounds of its CPU per cycle, and the difference from serve's composition with every layer.
import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { LeaseId } from '../core/units.js';
import { type ClientTls, NetworkArbiter } from '../src/client/network-arbiter.js';
import { initEtcdLog } from '../src/etcd/index.js';
import { REPO_ROOT } from '../src/repo-root.js';
import { startEtcdCluster } from '../src/testing/etcd-cluster.js';
import { freePorts } from '../src/testing/free-port.js';
import { reapOnExit } from '../src/testing/process-reaper.js';
import { LoopTally, runSlice } from './closed-loop.js';
import { processCpuUs } from './cpu-meter.js';
import { LAYERS } from './serve-layers-names.js';
import { benchCertificates, startBenchService, writeBenchPolicy } from './service-process.js';
import { BENCH_CLASS, BENCH_NAMESPACE, workerIdentity } from './workloads/bench-world.js';

const RUN_COMPILED = join(REPO_ROOT, 'bin', 'run-compiled.mjs');
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, 'slice-ms': { type: 'string', default: '3000' }, concurrency: { type: 'string', default: '1' } } });
const rounds = Number(values.rounds);
const sliceMs = Number(values['slice-ms']);
const concurrency = Number(values.concurrency);

interface Target {
  readonly name: string;
  readonly pid: number;
  readonly client: NetworkArbiter;
  readonly sessions: LeaseId[];
  readonly cpuMsPerCycle: number[];
  readonly cyclesPerS: number[];
  /** Its CPU while another server's slice ran: what it spends without calls (timers, the etcd client, the keepalive stream). */
  readonly idleCpuMsPerS: number[];
}

const say = (line: string) => process.stderr.write(`${line}\n`);
const identity = workerIdentity(0);
const cluster = await startEtcdCluster({ members: 1 });
const dir = await mkdtemp(join(tmpdir(), 'lockstep-serve-layers-'));
const children: ChildProcess[] = [];
const stops: Array<() => Promise<void>> = [];
try {
  await initEtcdLog(cluster.endpoints);
  const endpoints = cluster.endpoints.map((e) => e.replace(/^http:\/\//, '')).join(',');
  await writeBenchPolicy(dir, [identity]);
  const certs = await benchCertificates(join(dir, 'tls'), identity);
  const [cert, key, ca] = [certs.serveArgs[1], certs.serveArgs[3], certs.serveArgs[5]].map(String) as [string, string, string];
  const ports = await freePorts(LAYERS.length);
  const targets: Target[] = [];
  // The sessions outlive the run: renewed at TTL/3 over each client's keepalive stream, as the bench's service workload does.
  const renewal = setInterval(() => {
    for (const target of targets) void Promise.all(target.sessions.map((sessionId) => target.client.keepAlive({ sessionId }))).catch((error: unknown) => say(`renewing ${target.name}'s sessions failed: ${String(error)}`));
  }, (BENCH_CLASS.ttlSeconds * 1000) / 4);
  stops.push(() => Promise.resolve(clearInterval(renewal)));
  const connect = async (name: string, pid: number, address: string, tls: ClientTls = certs.client): Promise<void> => {
    const client = new NetworkArbiter({ addresses: [address], tls });
    const sessions: LeaseId[] = [];
    for (let i = 0; i < concurrency; i++) sessions.push((await client.openSession({ ttlSeconds: BENCH_CLASS.ttlSeconds })).sessionId);
    targets.push({ name, pid, client, sessions, cpuMsPerCycle: [], cyclesPerS: [], idleCpuMsPerS: [] });
  };
  const serveStarted = startBenchService(cluster.endpoints, [identity], { tls: true });
  for (const [i, layer] of LAYERS.entries()) {
    const child = fork(RUN_COMPILED, ['bench/serve-layers-child.ts', layer, String(ports[i]), endpoints, dir, cert, key, ca], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    reapOnExit(child);
    children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.once('message', () => resolve());
      child.once('exit', (code) => reject(new Error(`the ${layer} server exited (${String(code)}) before it listened`)));
    });
    await connect(layer === 'none' ? 'serve composition, every layer' : layer === 'all' ? 'without every layer below' : `without ${layer}`, child.pid ?? 0, `127.0.0.1:${ports[i]}`);
  }
  const serve = await serveStarted;
  stops.push(serve.stop);
  await connect('lockstep serve (the check)', serve.pid, serve.address, serve.clientTls);
  const loadAtStart = loadavg()[0] ?? 0;
  const runId = randomBytes(3).toString('hex');
  for (let round = 0; round < rounds; round++) {
    for (const [t, target] of targets.entries()) {
      const tally = new LoopTally(concurrency, ['cycle']);
      const operation = async (worker: number, iteration: number, record: (phase: number, ms: number) => void) => {
        const sessionId = target.sessions[worker] as LeaseId;
        const key = `${BENCH_NAMESPACE}/${runId}/l${t}-${round}-${worker}-${iteration}`;
        const startMs = performance.now();
        const grant = await target.client.acquire({ sessionId, key, className: BENCH_CLASS.name, waitMs: 0 });
        await target.client.release({ sessionId, key, token: grant.token });
        record(0, performance.now() - startMs);
      };
      await runSlice({ tally, warmupMs: 300, durationMs: 0, operation });
      const before = targets.map((other) => processCpuUs(other.pid) ?? 0);
      const startedMs = performance.now();
      const completed = await runSlice({ tally, warmupMs: 0, durationMs: sliceMs, operation });
      const elapsedS = (performance.now() - startedMs) / 1000;
      const cpuUs = targets.map((other, o) => (processCpuUs(other.pid) ?? 0) - (before[o] ?? 0));
      if (tally.errors > 0) throw new Error(`${target.name}: ${tally.firstError ?? ''}`);
      target.cpuMsPerCycle.push((cpuUs[t] ?? 0) / 1000 / Math.max(1, completed));
      target.cyclesPerS.push(completed / elapsedS);
      for (const [o, other] of targets.entries()) if (o !== t) other.idleCpuMsPerS.push((cpuUs[o] ?? 0) / 1000 / elapsedS);
    }
    say(`round ${round + 1} of ${rounds} done`);
  }
  const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const full = median(targets.find((target) => target.name.endsWith('every layer'))?.cpuMsPerCycle ?? []);
  process.stdout.write(`load average ${loadAtStart.toFixed(1)} at the start, ${(loadavg()[0] ?? 0).toFixed(1)} at the end; c=${concurrency}, ${rounds} rounds of ${sliceMs} ms slices, mTLS\n\n`);
  process.stdout.write('| server | CPU ms/cycle (median) | each round | less than every layer | cycles/s | idle CPU ms/s | idle ms/cycle |\n|---|---:|---|---:|---:|---:|---:|\n');
  for (const target of targets) {
    const m = median(target.cpuMsPerCycle);
    const idle = median(target.idleCpuMsPerS);
    const rate = median(target.cyclesPerS);
    process.stdout.write(`| ${target.name} | ${m.toFixed(3)} | ${target.cpuMsPerCycle.map((x) => x.toFixed(3)).join(', ')} | ${(full - m).toFixed(3)} | ${rate.toFixed(0)} | ${idle.toFixed(2)} | ${(idle / Math.max(1, rate)).toFixed(3)} |\n`);
  }
  for (const target of targets) target.client.close();
} finally {
  for (const child of children) child.kill('SIGKILL');
  for (const stop of stops) await stop();
  await cluster.stop();
  await rm(dir, { recursive: true, force: true });
}
