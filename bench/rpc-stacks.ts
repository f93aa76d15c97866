// `npm run bench:rpc -- [--rounds N] [--slice 1s] [--warmup 250ms] [--period D] [--json | --md]`: the RPC stack alone
// (issue 30). lock.v1's Acquire, answered with a canned response by no arbiter at all, through lockstep's
// fast path and UnaryChannel (as shipped), Connect-ES on both sides, @grpc/grpc-js on both sides, the
// mixed pairs, and a bare node:http2 echo of the same bytes (the floor), each plaintext and mTLS, at c=1
// and c=64, in one interleaved run (rpc-stacks-run.ts): p50/p99, calls/s and the CPU per call of the
// server process and of the client process. The ratios within one run are the figures (the machine is
// shared); progress goes to stderr, the report to stdout.
import { Command } from 'commander';
import { BadInput } from '../src/cli-errors.js';
import { type CliIo, processIo } from '../src/cli-io.js';
import { withErrorBoundary } from '../src/cli.js';
import { parseDuration } from '../src/duration.js';
import { formatRpcMarkdown, formatRpcText, rpcStacksReport } from './rpc-stacks-report.js';
import { runRpcStacks } from './rpc-stacks-run.js';

/** Issue 30: one call alone and 64 at once on one connection (the bench's service workload shares one client). */
const CONCURRENCIES = [1, 64] as const;
const MAX_ROUNDS = 100;
const SLICE_MS = { min: 50, max: 60_000 };
const WARMUP_MAX_MS = 10_000;
/** --period: a call every 100 ms is 10 a second, well below any rate issue 30 compares. */
const PERIOD_MAX_MS = 100;

interface RpcFlags {
  readonly rounds: string;
  readonly slice: string;
  readonly warmup: string;
  readonly period: string;
  readonly json?: boolean;
  readonly md?: boolean;
}

interface RpcSettings {
  readonly rounds: number;
  readonly sliceMs: number;
  readonly warmupMs: number;
  readonly periodMs: number;
  readonly format: 'text' | 'json' | 'md';
}

/** Every flag checked before anything starts; a problem is BadInput naming the flag, the rule and the fix. */
function parseRpcFlags(flags: RpcFlags): RpcSettings {
  const rounds = Number(flags.rounds);
  if (!/^\d+$/.test(flags.rounds) || rounds < 1 || rounds > MAX_ROUNDS) throw new BadInput(`--rounds ${JSON.stringify(flags.rounds)} must be a whole number from 1 to ${MAX_ROUNDS}, e.g. --rounds 5`);
  const duration = (text: string, flag: string): number => {
    try {
      return parseDuration(text, flag);
    } catch (error) {
      throw new BadInput((error as Error).message);
    }
  };
  const sliceMs = duration(flags.slice, '--slice');
  if (sliceMs < SLICE_MS.min || sliceMs > SLICE_MS.max) throw new BadInput(`--slice ${flags.slice} must be between 50ms and 60s; the issue's slices are 1s`);
  const warmupMs = duration(flags.warmup, '--warmup');
  if (warmupMs > WARMUP_MAX_MS) throw new BadInput(`--warmup ${flags.warmup} must be at most 10s (it is paid before every slice)`);
  const periodMs = duration(flags.period, '--period');
  if (periodMs > PERIOD_MAX_MS) throw new BadInput(`--period ${flags.period} must be at most 100ms (a call every 100 ms is 10 a second); 0 for back to back`);
  if (flags.json === true && flags.md === true) throw new BadInput('--json and --md exclude each other; choose one');
  return { rounds, sliceMs, warmupMs, periodMs, format: flags.json === true ? 'json' : flags.md === true ? 'md' : 'text' };
}

function program(io: CliIo, setExitCode: (code: number) => void): Command {
  return new Command('bench:rpc')
    .description('The RPC stack alone (issue 30): lock.v1 Acquire with a canned answer through lockstep\'s fast path + UnaryChannel, Connect-ES, @grpc/grpc-js, the mixed pairs and a bare node:http2 echo, plaintext and mTLS, c=1 and c=64, in one interleaved run; server and client each in a process of its own, their CPU per call read from /proc.')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .option('--rounds <n>', 'rounds of slices; each round gives every stack, transport and concurrency one slice', '5')
    .option('--slice <duration>', 'measured time of one slice', '1s')
    .option('--warmup <duration>', 'unmeasured time before each slice', '250ms')
    .option('--period <duration>', "each worker starts a call at most this often (0: back to back); at serve's own rate the RPC stack's CPU per call is what serve pays (issue 30: CPU per call rises as the rate falls)", '0')
    .option('--json', 'print the report as one JSON line')
    .option('--md', 'print the report as markdown')
    .action(async (flags: RpcFlags) => {
      const settings = parseRpcFlags(flags);
      const options = { rounds: settings.rounds, sliceMs: settings.sliceMs, warmupMs: settings.warmupMs, periodMs: settings.periodMs, concurrencies: CONCURRENCIES };
      const run = await runRpcStacks({ ...options, progress: (line) => io.err(line) });
      const report = rpcStacksReport(run, options);
      io.out(settings.format === 'json' ? JSON.stringify(report) : settings.format === 'md' ? formatRpcMarkdown(report) : formatRpcText(report));
      setExitCode(report.rows.some((r) => r.errors > 0) ? 1 : 0);
    });
}

process.exitCode = await withErrorBoundary(process.argv.slice(2), processIo, program);
