// `npm run bench:sim -- [--seed N] [--minutes M] [--json] [--yield tick|immediate]`: how fast the simulator runs,
// and in how much memory. `--minutes 60` (npm run bench:soak) is the soak form: its peak RSS should stay
// within 1.2x of the ten-minute run's (issue 16).
// - kernelEventsPerSecond: the kernel alone, a micro workload of trivial events;
// - speedup: simulated seconds per wall second for the issue's standard workload: 3 etcd members,
//   1 arbiter, 200 client sessions at TTL 15 s, 100 grants/s over 1,000 keys, 10 simulated minutes;
// - peakRssMb (the process's maximum resident set), rssMbByMinute and heapMbByMinute (at the end of each
//   simulated minute), retainedMbByMinute (the heap after a full collection there, with --expose-gc) and
//   heapLimitMb (V8's heap limit: the npm scripts cap the old generation, see docs/performance.md);
// - cpuSeconds: CPU time (user + system) of the standard run, steadier than wall time on a loaded machine;
// - traceHash: that run's trace hash, so determinism can be checked from outside; it covers every kind
//   but the per-message ones named in traceOmits (net.send, net.deliver, raft.send).
// This measures the simulator itself, so it imports sim/ (the one exception bench/ makes).
import { performance } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { parseArgs } from 'node:util';
import type { SimClusterOptions } from '../sim/cluster/cluster.js';
import { Kernel } from '../sim/kernel/kernel.js';
import { startLockWorkload, workloadPolicy } from '../sim/world/lock-workload.js';
import { World } from '../sim/world/world.js';
import { hostYield } from '../src/host-yield.js';

/**
 * The per-message trace kinds, left out of the standard run's trace (about two thirds of its records):
 * its hash covers every other kind, and the report names what it leaves out (`traceOmits`).
 */
const PER_MESSAGE_KINDS = ['net.send', 'net.deliver', 'raft.send'];
const MB = 1024 * 1024;
/**
 * The standard workload's members run as a long-lived etcd is run (issue 16): periodic auto-compaction
 * with a one-minute retention (--auto-compaction-mode periodic --auto-compaction-retention 1m), so the
 * MVCC history holds one to two minutes of revisions, whatever the run's length; and snapshots every
 * 10,000 applied entries (etcd's --snapshot-count of 100,000, scaled to the simulated load of ~200
 * entries/s, so one comes every minute or so) with etcd's 5,000 catch-up entries, so the raft log and
 * the WAL hold at most about 15,000 entries.
 */
const STANDARD_CLUSTER: SimClusterOptions = { timing: { autoCompaction: { mode: 'periodic', retentionMs: 60_000 }, snapshotCount: 10_000, snapshotCatchUpEntries: 5_000 } };

// The host yield is the node hosts' rule (src/host-yield.ts): drains through node's tick queue, as
// complete as an immediate's at a tenth of the cost, with an immediate every TURN_EVERY-th yield.
// `--yield immediate` makes every yield an immediate, to measure what the tick queue saves.
const tickYield = hostYield();
const immediateYield = hostYield(1);
let yieldToHost = tickYield;

async function kernelEventsPerSecond(): Promise<number> {
  const kernel = new Kernel({ seed: 'kernel-micro', yieldToHost });
  const events = 2_000_000;
  let left = events;
  const tick = (): void => {
    if (--left > 0) kernel.scheduleAfter(1, tick);
  };
  for (let i = 0; i < 1000; i += 1) kernel.scheduleAfter(i, tick); // 1,000 pending: a realistic heap depth
  const start = performance.now();
  await kernel.runUntilQuiescent({ maxEvents: events * 2 });
  return kernel.eventsExecuted / ((performance.now() - start) / 1000);
}

async function standardRun(seed: string, minutes: number, progress: (text: string) => void) {
  const clients = 200;
  const ttlSeconds = 15;
  // The run checks nothing at its end, so its lock log's grants are counted, not kept (keepGrants: false):
  // kept, they are the one structure that grows with the run (~200 bytes a grant, 360,000 an hour).
  const world = new World({ seed, yieldToHost, ...workloadPolicy(ttlSeconds, clients), cluster: STANDARD_CLUSTER, keepGrants: false, kernel: { trace: { keepRecords: false, omitKinds: PER_MESSAGE_KINDS } } });
  await world.start();
  const workload = startLockWorkload({ world, clients, ttlSeconds, grantsPerSecond: 100, keys: 1000, holdMs: 50, waitMs: 1000 });
  const simulatedMs = minutes * 60_000;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  const from = world.kernel.now();
  // Resident memory at the end of each simulated minute: flat in a soak (--minutes 60) when every
  // structure the run keeps is bounded (issue 16); a slow leak shows as a slope. With --expose-gc (as the
  // npm scripts run it) a full collection there also gives the retained heap, the leak's own measure
  // (heapUsed alone saw-tooths between collections); its time is left out of wall and CPU seconds.
  const rssMbByMinute: number[] = [];
  const heapMbByMinute: number[] = [];
  const retainedMbByMinute: number[] = [];
  const collect = (globalThis as { gc?: () => void }).gc;
  let collectMs = 0;
  let collectCpu = 0;
  for (let t = from; t < from + simulatedMs; t += 60_000) {
    await world.runUntil(Math.min(from + simulatedMs, t + 60_000));
    const memory = process.memoryUsage();
    rssMbByMinute.push(Math.round(memory.rss / MB));
    heapMbByMinute.push(Math.round(memory.heapUsed / MB));
    if (collect !== undefined) {
      const at = performance.now();
      const cpuAt = process.cpuUsage();
      collect();
      retainedMbByMinute.push(Math.round(process.memoryUsage().heapUsed / MB));
      collectMs += performance.now() - at;
      const spent = process.cpuUsage(cpuAt);
      collectCpu += spent.user + spent.system;
    }
    progress(`bench:sim: ${((world.kernel.now() - from) / 1000).toFixed(0)}/${simulatedMs / 1000} simulated s, ${((performance.now() - start - collectMs) / 1000).toFixed(1)} wall s, ${workload.stats.granted} grants, rss ${rssMbByMinute.at(-1)} MB${collect === undefined ? '' : `, retained ${retainedMbByMinute.at(-1)} MB`}`);
  }
  workload.stop();
  const wallSeconds = (performance.now() - start - collectMs) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  // CPU time (user + system, all threads, GC helpers included) sees through a shared, loaded machine.
  const cpuSeconds = (cpu.user + cpu.system - collectCpu) / 1e6;
  return { simulatedSeconds: simulatedMs / 1000, wallSeconds, cpuSeconds, stats: workload.stats, traceHash: world.kernel.trace.hash(), events: world.kernel.eventsExecuted, rssMbByMinute, heapMbByMinute, retainedMbByMinute: collect === undefined ? undefined : retainedMbByMinute };
}

/** A flag the benchmark cannot run with: said in one line, exit 2. */
class BadInput extends Error {}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { seed: { type: 'string', default: '1' }, minutes: { type: 'string', default: '10' }, json: { type: 'boolean', default: false }, yield: { type: 'string', default: 'tick' }, help: { type: 'boolean', default: false } } });
  if (values.help) {
    process.stdout.write('npm run bench:sim -- [--seed N] [--minutes M] [--json] [--yield tick|immediate]\n  kernel events/s, and the speedup, CPU seconds, peak RSS, and RSS, heap and retained heap per simulated minute of the standard workload (3 members, 1 arbiter, 200 sessions TTL 15 s, 100 grants/s over 1,000 keys); --minutes 60 is the soak form\n');
    return;
  }
  if (values.yield !== 'tick' && values.yield !== 'immediate') throw new BadInput(`--yield ${values.yield}: must be tick or immediate`);
  yieldToHost = values.yield === 'tick' ? tickYield : immediateYield;
  const minutes = Number(values.minutes);
  if (!(minutes > 0)) throw new BadInput(`--minutes ${values.minutes}: must be a positive number of simulated minutes (e.g. --minutes 10, or 60 for the soak)`);
  const progress = (text: string): void => void process.stderr.write(`${text}\n`);
  const kernelRate = await kernelEventsPerSecond();
  progress(`bench:sim: kernel alone ${Math.round(kernelRate).toLocaleString('en')} events/s`);
  const run = await standardRun(`bench-${values.seed}`, minutes, progress);
  const report = {
    kernelEventsPerSecond: Math.round(kernelRate),
    speedup: Math.round((run.simulatedSeconds / run.wallSeconds) * 10) / 10,
    simulatedSeconds: run.simulatedSeconds,
    wallSeconds: Math.round(run.wallSeconds * 100) / 100,
    cpuSeconds: Math.round(run.cpuSeconds * 100) / 100,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    rssMbByMinute: run.rssMbByMinute,
    heapMbByMinute: run.heapMbByMinute,
    // null when the process was started without --expose-gc (the npm scripts pass it).
    retainedMbByMinute: run.retainedMbByMinute ?? null,
    heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / MB),
    traceHash: run.traceHash,
    traceOmits: PER_MESSAGE_KINDS,
    hostYield: values.yield,
    events: run.events,
    grants: run.stats.granted,
    contended: run.stats.contended,
    failed: run.stats.failed,
    errors: run.stats.errors,
  };
  if (values.json) process.stdout.write(`${JSON.stringify(report)}\n`);
  else for (const [name, value] of Object.entries(report)) process.stdout.write(`${name.padEnd(22)} ${typeof value === 'object' ? JSON.stringify(value) : value}\n`);
}

try {
  await main();
} catch (error) {
  // An unknown flag (parseArgs) or a bad value is the caller's to fix; anything else is a bug, with its stack.
  const code = (error as { code?: unknown }).code;
  if (!(error instanceof BadInput) && !(typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))) throw error;
  process.stderr.write(`bench:sim: ${(error as Error).message} (npm run bench:sim -- --help)\n`);
  process.exitCode = 2;
}
