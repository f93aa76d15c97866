// `lockstep gate`: the release gate on real etcd (issue 15, ADR-23). A real cluster of --members etcd
// processes (Debian's etcd, or --etcd-binary to gate an upgrade), --arbiters `lockstep serve` processes
// and --clients client processes contending for --keys keys through the reference fence, run for
// --duration under a fault schedule drawn from --seed (or --faults FILE), every operation recorded on
// the gate's clock, the log's own record tailed, and the history checked by the simulator's checkers.
// Exit 0 every check holds; 1 a violation (history, schedule and report saved and named); 2 bad input
// (refused before anything starts); 130 interrupted (everything stopped, temp dirs removed).
import type { Command } from 'commander';
import { BadInput } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { type GateFlags, planGate } from '../gate/gate-options.js';
import { GateAborted, runGate } from '../gate/gate-run.js';

const INTERRUPTED = 130;

export function registerGateCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('gate')
    .description(
      'The release gate on real etcd (ADR-23): start a real etcd cluster, lockstep serve arbiters and client processes on loopback, run a ' +
        'workload under faults (pauses, kill -9 and restarts, partitions and slow links through proxies, clock drift and steps with ' +
        'libfaketime), record every operation, and check the history: linearizability (the lock model of lockstep check), exclusion in ' +
        'the log\'s order, token order, the fence, and the ADR-12 deadline. Exit 0 all checks hold; 1 a violation (the history, the fault ' +
        'schedule and an HTML report are saved in --out); 2 bad input, refused before anything starts; 130 interrupted. See docs/gate.md.',
    )
    .option('--members <n>', 'etcd members: 3 or 5', '3')
    .option('--arbiters <n>', 'lockstep serve arbiters (1-5)', '2')
    .option('--clients <n>', 'client processes (1-16)', '3')
    .option('--keys <n>', 'keys they contend for (1-64)', '2')
    .option('--duration <d>', 'how long the workload runs: 60s, 5m (10s to 1h)', '60s')
    .option('--seed <s>', 'seeds the fault schedule and the clients\' choices', '1')
    .option('--faults <file>', 'a fault schedule (JSON list of faults, scenarios/faults.ts) instead of one drawn from --seed')
    .option('--resource <kind>', 'fenced (the reference fence, ADR-16) or unfenced (a plain file: the negative control, which must fail)', 'fenced')
    .option('--slow-holder', 'start client-1 with its clock at x0.3 (libfaketime): past what ADR-12\'s margin covers; the report must show it')
    .option('--compare-sim', 'also run the same schedule and workload in the simulator and set its predicted figures per fault kind beside the measured ones (time to the next grant, to the victim\'s key granted again, to the library fence; grants and refusals in 10 s): the simulator held against reality. A report, not a check: it never changes the exit code')
    .option('--compare-runs <n>', 'with --compare-sim: simulated runs of the schedule pooled into the prediction (1-50)', undefined)
    .option('--bench-profile <file>', 'with --compare-sim: time the simulator by this machine\'s lockstep bench --local 3 --profile FILE (fsync, loopback round trip, CPU costs); default .lockstep-tmp/bench-profile.json when it exists, else the simulator\'s defaults; none: the defaults')
    .option('--focus <kind>', 'draw a schedule of one kind of episode, again and again (pause-leader, crash-arbiter, ...): enough faults of one kind for --compare-sim\'s intervals')
    .option('--etcd-binary <path>', 'the etcd server to gate (default Debian\'s etcd 3.4, installed when missing)')
    .option('--out <dir>', 'where the history, the fault schedule and the report go (default ./lockstep-gate-<seed>)')
    .option('--json', 'print the report as one JSON object')
    .action(async (flags: GateFlags) => {
      setExitCode(await gate(flags, io));
    });
}

async function gate(flags: GateFlags, io: CliIo): Promise<number> {
  let plan;
  try {
    plan = await planGate(flags);
  } catch (error) {
    // With --json the refusal is also the report: one JSON object on stdout, as a passing gate prints.
    if (error instanceof BadInput && flags.json === true) throw new BadInput(error.message, { json: { ok: false, verdict: 'bad-input', error: error.message } });
    throw error;
  }
  const abort = new AbortController();
  const onSignal = (signal: NodeJS.Signals): void => {
    io.err(`lockstep gate: ${signal}: stopping everything it started`);
    abort.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const outcome = await runGate(plan, io, abort.signal, process.stderr);
    io.out(plan.json ? JSON.stringify(outcome.report) : outcome.text);
    return outcome.report.ok ? ExitCode.ok : ExitCode.failed;
  } catch (error) {
    if (error instanceof GateAborted) {
      if (plan.json) io.out(JSON.stringify({ ok: false, verdict: 'interrupted', ...(error.processes === undefined ? {} : { processes: error.processes }) }));
      return INTERRUPTED;
    }
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
