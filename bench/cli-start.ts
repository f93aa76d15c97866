// `npm run bench:cli -- [--runs N] [--json]`: how fast the `lockstep` command starts (issues 16 and 30).
// Medians of N runs (default 10), interleaved, of the wall time and the CPU time (the process and every
// child it waited for: lock's fence supervisor and its command too) of `node -e 0`, `lockstep --version`,
// `lockstep class check` of one file, `lockstep lock -- true` against a local etcd in both modes (an
// arbiter in process, --endpoints; through a `lockstep serve`, --arbiter) and `etcdctl lock k true` beside
// them; each as a ratio to `node -e 0`, and lock's to etcdctl's. And `serveReady`: a `lockstep serve` as the gate
// starts its arbiters (plaintext on loopback over that etcd), from exec to its "serving" line, with the CPU
// it spent until then (servestart: a restarted arbiter is unavailable until it serves, ADR-18). The ratio, not the absolute
// time, is the figure (the machine is shared; node's own start is the yardstick), and the load average
// is printed with it. Goals: --version within 4x, class check within 6x; lock within 3x wall, 0.4 s CPU.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { percentile } from '../core/planner/percentiles.js';
import { REPO_ROOT } from '../src/repo-root.js';
import { freePorts } from '../src/testing/free-port.js';
import { startLockstep } from '../src/testing/lockstep-process.js';
import { type StartCommand, lockCommands } from './cli-lock-start.js';

const BIN = join(REPO_ROOT, 'bin', 'lockstep.mjs');
const CLASS_FILE = join(REPO_ROOT, 'examples', 'classes', 'ledger-writes.yaml');
const node = (args: readonly string[]): StartCommand => ({ program: process.execPath, args });
const GOALS = { version: { wallX: 4 }, classCheck: { wallX: 6 }, lock: { wallX: 3, cpuMs: 400 }, lockArbiter: { wallX: 3, cpuMs: 400 } };
const LOCK_ROWS = ['lock', 'lockArbiter'] as const;

/** Linux's USER_HZ: /proc times are in 1/100 s. */
const CLOCK_TICKS_PER_S = 100;

/** Two CPU times of a /proc stat file, in ms: the fields `at` and `at + 1` after the command's name. */
function statCpuMs(path: string, at: number): number {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[at]) + Number(fields[at + 1])) * 1000) / CLOCK_TICKS_PER_S;
}

/** CPU of this process's waited-for children so far (cutime + cstime), in ms. */
const childrenCpuMs = (): number => statCpuMs('/proc/self/stat', 13);

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
}

function run(command: StartCommand): Sample {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const result = spawnSync(command.program, command.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const wallMs = performance.now() - start;
  if (result.status !== 0) throw new Error(`${command.program} ${command.args.join(' ')} exited ${String(result.status)}: ${result.stderr.toString().slice(-500)}`);
  return { wallMs, cpuMs: childrenCpuMs() - cpuBefore };
}

/** A `lockstep serve` (`args`, on `port`) from exec to its "serving" line, and its own CPU (utime + stime) by then; then it is stopped. */
async function serveReady(args: readonly string[], port: number): Promise<Sample> {
  const start = performance.now();
  const serve = startLockstep([...args, '--listen', `127.0.0.1:${String(port)}`]);
  try {
    await serve.waitForStderr(/serving lock\.v1/);
    return { wallMs: performance.now() - start, cpuMs: statCpuMs(`/proc/${String(serve.pid)}/stat`, 11) };
  } finally {
    serve.child.kill('SIGTERM');
    await serve.exited;
  }
}

function median(samples: readonly Sample[], field: keyof Sample): number {
  return percentile(samples.map((s) => s[field]), 0.5);
}

function report(samples: Record<string, Sample[]>, runs: number, json: boolean): void {
  const medians = Object.fromEntries(Object.entries(samples).map(([name, s]) => [name, { wallMs: median(s, 'wallMs'), cpuMs: median(s, 'cpuMs') }]));
  const nodeMs = medians.node?.wallMs ?? 1;
  const ratioToNode = Object.fromEntries(Object.entries(medians).filter(([name]) => name !== 'node').map(([name, m]) => [name, m.wallMs / nodeMs]));
  const etcdctl = medians.etcdctlLock;
  const lockToEtcdctl = Object.fromEntries(LOCK_ROWS.map((row) => [row, { wall: (medians[row]?.wallMs ?? 0) / (etcdctl?.wallMs ?? 1), cpu: (medians[row]?.cpuMs ?? 0) / (etcdctl?.cpuMs || 1) }]));
  const loadAverage = loadavg().map((l) => Number(l.toFixed(2)));
  if (json) {
    process.stdout.write(`${JSON.stringify({ runs, loadAverage, nodeExtraCaCerts: process.env.NODE_EXTRA_CA_CERTS ?? null, medianMs: medians, ratioToNode, lockToEtcdctl, goals: GOALS })}\n`);
    return;
  }
  process.stdout.write(`median of ${runs} interleaved runs; load average ${loadAverage.join(' ')}\n`);
  // Node parses NODE_EXTRA_CA_CERTS's file (and its own root certificates) before any JavaScript runs: on
  // this VM with Debian's bundle, ~60 ms of a `node -e 0`'s ~125 ms CPU. Every row here pays it but the
  // fence supervisor, which lockstep starts without it (issue 30); an environment without it starts faster.
  if (process.env.NODE_EXTRA_CA_CERTS !== undefined) process.stdout.write(`NODE_EXTRA_CA_CERTS is set (${process.env.NODE_EXTRA_CA_CERTS}): each node start parses it\n`);
  for (const [name, m] of Object.entries(medians)) {
    const ratio = name === 'node' ? '' : `, ${(m.wallMs / nodeMs).toFixed(2)}x node -e 0`;
    process.stdout.write(`${name.padEnd(12)} wall ${m.wallMs.toFixed(0).padStart(6)} ms${ratio}; CPU ${m.cpuMs.toFixed(0).padStart(5)} ms\n`);
  }
  for (const [row, ratio] of Object.entries(lockToEtcdctl)) process.stdout.write(`${row} -- true / etcdctl lock: ${ratio.wall.toFixed(1)}x wall, ${ratio.cpu.toFixed(1)}x CPU\n`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' }, json: { type: 'boolean', default: false } } });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 1000) throw new Error(`--runs ${values.runs}: give a whole number of runs from 1 to 1000, e.g. --runs 10`);
  const locks = await lockCommands(BIN);
  try {
    const commands: Record<string, StartCommand> = {
      node: node(['-e', '0']),
      version: node([BIN, '--version']),
      classCheck: node([BIN, 'class', 'check', '--now', '2026-12-01', CLASS_FILE]),
      lock: locks.lock,
      lockArbiter: locks.lockArbiter,
      etcdctlLock: locks.etcdctlLock,
    };
    run(commands.version as StartCommand); // a first run builds dist/js if it is stale; it is not measured
    // And one of each lock (and a serve) warms the page cache for its bundle, its code cache and etcd's first transactions.
    for (const row of LOCK_ROWS) run(locks[row]);
    const [servePort] = await freePorts(1);
    await serveReady(locks.serveArgs, servePort as number);
    const samples: Record<string, Sample[]> = Object.fromEntries([...Object.keys(commands), 'serveReady'].map((name) => [name, []]));
    // Interleaved, so a burst of load on the shared machine hits every command alike.
    for (let i = 0; i < runs; i += 1) {
      for (const [name, command] of Object.entries(commands)) samples[name]?.push(run(command));
      samples.serveReady?.push(await serveReady(locks.serveArgs, servePort as number));
    }
    report(samples, runs, values.json === true);
  } finally {
    await locks.stop();
  }
}

await main();
