// `lockstep bench [--endpoints H:P,.. | --local 1|3] [--duration 30s] [--concurrency 1,8,64] [--out FILE]
// [--profile FILE] [--json|--md] [--compare-sim]`: the fsync-bound grant latency of the operator's own
// hardware (bench/), with raw etcd as the limit and the etcd3 package's Lock as the peer, in one run.
import type { Command } from 'commander';
import { BenchInterrupted, type BenchTarget, type CapacitySettings, runBench } from '../../bench/run-bench.js';
import { formatMarkdown, formatText } from '../../bench/format.js';
import type { BenchReport } from '../../bench/report.js';
import { BadInput, Refusal } from '../cli-errors.js';
import { type CliIo, ExitCode, processIo } from '../cli-io.js';
import { parseDuration } from '../duration.js';
import { writeFileAtomically } from '../files/atomic-write.js';
import { outputFileProblem } from '../files/output-path.js';

interface BenchFlags {
  endpoints?: string;
  local?: string;
  duration: string;
  concurrency: string;
  sessions?: string;
  out?: string;
  profile?: string;
  json?: boolean;
  md?: boolean;
  compareSim?: boolean;
  capacity?: string;
  capacityRenew: string;
}

export interface BenchSettings {
  readonly target: BenchTarget;
  readonly durationMs: number;
  readonly concurrency: number[];
  readonly keepaliveSessions?: number;
  readonly out?: string;
  readonly profile?: string;
  readonly format: 'text' | 'json' | 'md';
  readonly compareSim: boolean;
  readonly capacity?: CapacitySettings;
}

const MIN_DURATION_MS = 500;
const MAX_DURATION_MS = 3_600_000;
const MAX_CONCURRENCY = 1024;
/** Exit code of a run stopped by Ctrl-C, as shells report SIGINT. */
export const INTERRUPTED_EXIT_CODE = 130;
/** A non-TTY stderr gets a live progress line at most this often. */
const PLAIN_PROGRESS_EVERY_MS = 5_000;

export function registerBenchCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('bench')
    .description('Measure fsync-bound grant latency on this hardware: the disk floor, raw etcd txns, lockstep grants and the etcd3 Lock, side by side in one run. Exit 0 when every run completed; 1 when a run had errors; 2 bad input; 130 interrupted.')
    .option('--endpoints <list>', 'an existing etcd cluster, host:port[,host:port...]; writes (and deletes) keys under /bench/ and /l/bench/, opens and revokes leases, and creates the epoch record /sys/epoch if it is absent')
    .option('--local <n>', 'start a throwaway etcd cluster of n members (1 or 3) on loopback, data dirs under $TMPDIR, and stop it afterwards')
    .option('--duration <duration>', 'measured time per workload and concurrency', '30s')
    .option('--concurrency <list>', 'closed-loop workers per run, comma-separated', '1,8,64')
    .option('--sessions <n>', 'sessions the keepalive cost renews (default max(64, 4 x the highest concurrency))')
    .option('--out <file>', 'also write the JSON report to this file (atomically)')
    .option('--profile <file>', 'write the measured profile (fdatasync and loopback RTT distributions, CPU per write) for the simulator and the planners')
    .option('--json', 'print the report as one JSON line (the last line)')
    .option('--md', 'print the report as markdown')
    .option('--capacity <SESSIONSxHOLDS>', 'also run the capacity check through a lockstep serve process: open SESSIONS sessions holding HOLDS keys each and renew them all at TTL/3 (the issue\'s goal: 1000x10)')
    .option('--capacity-renew <duration>', 'with --capacity: how long every session is renewed', '45s')
    .option('--compare-sim', 'simulate the grant workload with the measured costs and print predicted against measured percentiles')
    .action(async (flags: BenchFlags) => {
      setExitCode(await runBenchCommand(flags, io));
    });
}

/** Every flag checked before anything starts; a problem names the flag and the fix. */
export function parseBenchFlags(flags: BenchFlags): BenchSettings | string {
  if (flags.endpoints !== undefined && flags.local !== undefined) return '--endpoints and --local exclude each other; give --local 1|3 for a throwaway cluster or --endpoints for yours';
  let target: BenchTarget;
  if (flags.local !== undefined) {
    if (flags.local !== '1' && flags.local !== '3') return `--local ${JSON.stringify(flags.local)} must be 1 or 3 (members of the throwaway cluster)`;
    target = { kind: 'local', members: flags.local === '1' ? 1 : 3 };
  } else if (flags.endpoints !== undefined) {
    const endpoints = flags.endpoints.split(',').map((e) => e.trim()).filter((e) => e !== '');
    if (endpoints.length === 0) return '--endpoints is empty; give host:port of at least one etcd member';
    const bad = endpoints.find((e) => !/^(http:\/\/)?[^\s/:]+:\d{1,5}$/.test(e));
    if (bad !== undefined) return `--endpoints: ${JSON.stringify(bad)} is not host:port (TLS endpoints are not supported yet)`;
    target = { kind: 'endpoints', endpoints };
  } else {
    return 'say which etcd to measure: --local 1|3 starts a throwaway cluster on this machine, --endpoints H:P,.. uses yours';
  }
  let durationMs: number;
  try {
    durationMs = parseDuration(flags.duration, '--duration');
  } catch (error) {
    return (error as Error).message;
  }
  if (durationMs < MIN_DURATION_MS || durationMs > MAX_DURATION_MS) return `--duration ${flags.duration} must be between 500ms and 1h`;
  const parts = flags.concurrency.split(',').map((c) => c.trim());
  if (parts.some((c) => !/^\d+$/.test(c) || Number(c) < 1 || Number(c) > MAX_CONCURRENCY)) {
    return `--concurrency ${JSON.stringify(flags.concurrency)} must be whole numbers from 1 to ${MAX_CONCURRENCY}, comma-separated, e.g. 1,8,64`;
  }
  const concurrency = [...new Set(parts.map(Number))].sort((a, b) => a - b);
  let keepaliveSessions: number | undefined;
  if (flags.sessions !== undefined) {
    keepaliveSessions = Number(flags.sessions);
    if (!/^\d+$/.test(flags.sessions) || keepaliveSessions < 1 || keepaliveSessions > 10_000) return `--sessions ${JSON.stringify(flags.sessions)} must be a whole number from 1 to 10000`;
  }
  const capacity = parseCapacity(flags);
  if (typeof capacity === 'string') return capacity;
  if (flags.json === true && flags.md === true) return '--json and --md exclude each other; choose one (--out FILE writes the JSON as well)';
  return {
    target,
    durationMs,
    concurrency,
    ...(keepaliveSessions === undefined ? {} : { keepaliveSessions }),
    ...(flags.out === undefined ? {} : { out: flags.out }),
    ...(flags.profile === undefined ? {} : { profile: flags.profile }),
    format: flags.json === true ? 'json' : flags.md === true ? 'md' : 'text',
    compareSim: flags.compareSim === true,
    ...(capacity === undefined ? {} : { capacity }),
  };
}

function parseCapacity(flags: BenchFlags): CapacitySettings | string | undefined {
  if (flags.capacity === undefined) return undefined;
  const match = /^(\d+)x(\d+)$/.exec(flags.capacity.trim());
  const sessions = Number(match?.[1]);
  const holdsPerSession = Number(match?.[2]);
  if (match === null || sessions < 1 || sessions > 100_000 || holdsPerSession < 1 || holdsPerSession > 1000) {
    return `--capacity ${JSON.stringify(flags.capacity)} must be SESSIONSxHOLDS (holds per session), e.g. 1000x10; sessions 1 to 100000, holds 1 to 1000`;
  }
  let renewForMs: number;
  try {
    renewForMs = parseDuration(flags.capacityRenew, '--capacity-renew');
  } catch (error) {
    return (error as Error).message;
  }
  if (renewForMs < MIN_DURATION_MS || renewForMs > MAX_DURATION_MS) return `--capacity-renew ${flags.capacityRenew} must be between 500ms and 1h`;
  return { sessions, holdsPerSession, renewForMs };
}

async function runBenchCommand(flags: BenchFlags, io: CliIo): Promise<number> {
  const settings = parseBenchFlags(flags);
  if (typeof settings === 'string') throw new BadInput(settings);
  for (const [flag, path] of [['--out', settings.out], ['--profile', settings.profile]] as const) {
    const problem = path === undefined ? undefined : await outputFileProblem(path);
    if (problem !== undefined) throw new BadInput(`${flag} ${path}: ${problem}`);
  }
  const controller = new AbortController();
  const onSignal = () => {
    if (controller.signal.aborted) {
      io.err('lockstep bench: interrupted again; exiting now (the local cluster is killed on exit)');
      process.exit(INTERRUPTED_EXIT_CODE); // process-reaper's exit hook kills the members and removes their dirs
    }
    io.err('lockstep bench: interrupted; stopping the workers and the local cluster (Ctrl-C again to exit at once)');
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = progressPrinter(io);
  try {
    const { report, profile } = await runBench({
      target: settings.target,
      durationMs: settings.durationMs,
      concurrency: settings.concurrency,
      ...(settings.keepaliveSessions === undefined ? {} : { keepaliveSessions: settings.keepaliveSessions }),
      compareSim: settings.compareSim,
      fitTarget: settings.profile !== undefined,
      ...(settings.capacity === undefined ? {} : { capacity: settings.capacity }),
      signal: controller.signal,
      progress: progress.print,
    });
    progress.clear();
    if (settings.out !== undefined) await writeFileAtomically(settings.out, `${JSON.stringify(report, null, 2)}\n`);
    if (settings.profile !== undefined) await writeFileAtomically(settings.profile, `${JSON.stringify(profile)}\n`);
    io.out(settings.format === 'json' ? JSON.stringify(report) : settings.format === 'md' ? formatMarkdown(report) : formatText(report));
    return completeAndClean(report) ? ExitCode.ok : ExitCode.failed;
  } catch (error) {
    progress.clear();
    if (error instanceof BenchInterrupted) throw new Refusal(error.message, INTERRUPTED_EXIT_CODE);
    throw error; // the CLI's error boundary: one line, exit 70 (src/cli.ts)
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** Every run did some work and none failed: otherwise the figures are not to be trusted. */
export function completeAndClean(report: BenchReport): boolean {
  const runs = [report.rawTxn, report.grant, report.peerLock, report.keepalive].flatMap((w) => w.runs);
  return runs.length > 0 && runs.every((run) => run.errors === 0 && run.operations > 0);
}

/** A live line on a terminal; elsewhere (a pipe, a test) every final line and a live one now and then. */
function progressPrinter(io: CliIo): { print: (line: string, final: boolean) => void; clear: () => void } {
  const live = io === processIo && process.stderr.isTTY === true;
  let shown = false;
  let lastPlainMs = 0;
  const clear = () => {
    if (shown) process.stderr.write('\r\x1b[K');
    shown = false;
  };
  return {
    clear,
    print(line, final) {
      if (live) {
        clear();
        if (final) io.err(line);
        else {
          process.stderr.write(line.slice(0, (process.stderr.columns || 120) - 1));
          shown = true;
        }
        return;
      }
      const nowMs = performance.now();
      if (final || nowMs - lastPlainMs >= PLAIN_PROGRESS_EVERY_MS) {
        lastPlainMs = nowMs;
        io.err(line);
      }
    },
  };
}
