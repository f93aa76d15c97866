// `npx tsx bench/hop-profile.ts --path service|serviceTls|grant --concurrency N --duration-ms MS [--prof-dir DIR]`:
// one workload alone on a throwaway one-member etcd, for a CPU profile of the service hop (issue 30).
// With --prof-dir, serve runs under `node --cpu-prof` and writes its profile there when it drains (its
// measured window is printed); --client-prof FILE profiles this process over the measured window (every --prof-interval-us, default 1000). Prints throughput, cycle p50/p99 and the
// CPU per cycle of the client, serve and etcd (bench/cpu-profile-summary.ts reads the profiles). --count adds, per
// cycle, etcd's gRPC messages by method and the CPU of serve's (for grant: this process's) main thread and helper
// threads; --period-ms N starts a worker's cycles at most every N ms; --serve-node-args='--flag ...' starts serve's node with them (the '=' form: the value starts with --); --strace its syscalls (`strace -c -f`: epoll waits are its event loop's wakeups; strace slows it).
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { parseArgs } from 'node:util';
import { initEtcdLog } from '../src/etcd/index.js';
import { startEtcdCluster } from '../src/testing/etcd-cluster.js';
import { LoopTally, paced, runSlice } from './closed-loop.js';
import { processCpuUs } from './cpu-meter.js';
import { attachStrace, countDelta, etcdMessages, threadCpuUs } from './wakeup-counts.js';
import { grantWorkload } from './workloads/grant.js';
import { serviceWorkload } from './workloads/service.js';
import type { Workload } from './workloads/workload.js';

const { values } = parseArgs({ options: { path: { type: 'string', default: 'service' }, concurrency: { type: 'string', default: '1' }, 'duration-ms': { type: 'string', default: '10000' }, 'prof-dir': { type: 'string' }, 'client-prof': { type: 'string' }, count: { type: 'boolean', default: false }, 'period-ms': { type: 'string', default: '0' }, 'serve-node-args': { type: 'string', default: '' }, 'prof-interval-us': { type: 'string', default: '1000' }, strace: { type: 'boolean', default: false } } });
const concurrency = Number(values.concurrency);
const durationMs = Number(values['duration-ms']);
const cluster = await startEtcdCluster({ members: 1 });
try {
  await initEtcdLog(cluster.endpoints);
  const runId = randomBytes(3).toString('hex');
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const serveNodeArgs = (values['serve-node-args'] as string).split(' ').filter((arg) => arg !== '');
  const profArgs = values['prof-dir'] === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values['prof-dir']}`];
  const nodeArgs = profArgs.length + serveNodeArgs.length === 0 ? undefined : [...profArgs, ...serveNodeArgs];
  const spawnedMs = performance.now();
  const workload: Workload & { servePid?: number } =
    values.path === 'grant' ? await grantWorkload(cluster.endpoints, concurrency, runId, say) : await serviceWorkload(cluster.endpoints, concurrency, runId, say, { tls: values.path === 'serviceTls', ...(nodeArgs === undefined ? {} : { nodeArgs }) });
  const etcdPid = cluster.members[0]?.pid ?? 0;
  // --period-ms: a worker starts a cycle at most every N ms (paths compared at one cycle rate: CPU per cycle rises as the rate falls).
  const operation = paced(workload.operation, Number(values['period-ms']));
  const tally = new LoopTally(concurrency, workload.phases);
  await runSlice({ tally, warmupMs: 1000, durationMs: 500, operation });
  // The process doing the arbiter's work: serve, or this one in-process.
  const arbiterPid = workload.servePid ?? process.pid;
  say(`arbiter process ${arbiterPid}: measuring`); // bench/wakeup-trace.sh waits for this line
  const strace = values.strace === true ? await attachStrace(arbiterPid) : undefined;
  const counted = values.count === true ? { etcd: await etcdMessages(cluster.endpoints[0] ?? ''), threads: threadCpuUs(arbiterPid) } : undefined;
  const before = { client: process.cpuUsage(), serve: processCpuUs(workload.servePid ?? 0) ?? 0, etcd: processCpuUs(etcdPid) ?? 0 };
  const measured = new LoopTally(concurrency, workload.phases);
  const inspector = values['client-prof'] === undefined ? undefined : new Session();
  inspector?.connect();
  await inspector?.post('Profiler.enable');
  await inspector?.post('Profiler.setSamplingInterval', { interval: Number(values['prof-interval-us']) });
  await inspector?.post('Profiler.start');
  // serve's profile covers its start-up too: these are the measured window's bounds in it (approximately: from its spawn).
  const window = { fromMs: Math.round(performance.now() - spawnedMs), toMs: 0 };
  const completed = await runSlice({ tally: measured, warmupMs: 0, durationMs, operation });
  const client = process.cpuUsage(before.client);
  window.toMs = Math.round(performance.now() - spawnedMs);
  if (inspector !== undefined) writeFileSync(values['client-prof'] as string, JSON.stringify((await inspector.post('Profiler.stop')).profile));
  const per = (us: number) => Math.round(us / completed);
  const perCycle = (counts: ReadonlyMap<string, number>) => Object.fromEntries([...counts].map(([k, n]) => [k, Math.round((n / completed) * 100) / 100]));
  const threads = counted === undefined ? undefined : threadCpuUs(arbiterPid);
  const counts = counted === undefined || threads === undefined ? {} : {
    etcdMessagesPerCycle: perCycle(countDelta(counted.etcd, await etcdMessages(cluster.endpoints[0] ?? ''))),
    arbiterThreadsUsPerCycle: { main: per(threads.main - counted.threads.main), helpers: per(threads.helpers - counted.threads.helpers) },
  };
  const syscalls = strace === undefined ? {} : { syscallsPerCycle: perCycle(await strace.stop()) };
  const result = measured.result();
  const cycle = result.phases.cycle;
  process.stdout.write(`${JSON.stringify({ path: values.path, concurrency, cyclesPerS: result.throughputPerS, cycleP50Ms: cycle?.p50Ms, cycleP99Ms: cycle?.p99Ms, errors: result.errors, firstError: result.firstError, serveWindowMs: window, cpuUsPerCycle: { client: per(client.user + client.system), serve: per((processCpuUs(workload.servePid ?? 0) ?? 0) - before.serve), etcd: per((processCpuUs(etcdPid) ?? 0) - before.etcd) }, ...counts, ...syscalls })}\n`);
  await workload.close();
} finally {
  await cluster.stop();
}
