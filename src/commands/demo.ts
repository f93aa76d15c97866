// `lockstep demo`: the README's main job, for now: check the example lock classes, then start a
// throwaway etcd on loopback and let several `lockstep lock` processes contend for one key, showing
// that their commands never overlap and their fencing tokens rise. Later issues make the scenario
// suite the main job.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { BadInput } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { runContention } from '../demo/contention.js';
import { initEtcdLog } from '../etcd/index.js';
import { startEtcdCluster } from '../testing/etcd-cluster.js';
import { runClassCheck } from './class-check.js';

const EXAMPLES = 'examples/classes';
const DEMO_CLASS = 'examples/classes/ledger-writes.yaml';

interface DemoOptions {
  members: string;
  processes: string;
  json?: boolean;
}

export function registerDemoCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('demo')
    .description('Check the example lock classes, then run contending `lockstep lock` processes on a throwaway local etcd. Exit 0 when every check holds.')
    .option('--members <n>', 'etcd members to start on loopback: 1 or 3', '3')
    .option('--processes <n>', 'how many `lockstep lock` processes contend for one key', '4')
    .option('--json', 'print one JSON summary on the last line')
    .action(async (options: DemoOptions) => {
      setExitCode(await runDemo(options, io));
    });
}

async function runDemo(options: DemoOptions, io: CliIo): Promise<number> {
  const members = Number(options.members);
  const processes = Number(options.processes);
  if (members !== 1 && members !== 3) throw new BadInput(`--members ${options.members} must be 1 or 3`);
  if (!Number.isInteger(processes) || processes < 2 || processes > 32) throw new BadInput(`--processes ${options.processes} must be a whole number from 2 to 32`);
  const quiet: CliIo = options.json === true ? { out: () => {}, err: io.err } : io;
  const progress = (text: string): void => io.err(`demo: ${text}`);

  progress(`1/2 checking the example lock classes in ${EXAMPLES}/`);
  const files = (await readdir(EXAMPLES)).filter((f) => f.endsWith('.yaml')).sort().map((f) => join(EXAMPLES, f));
  const classesOk = (await runClassCheck(files, {}, quiet)) === ExitCode.ok;

  progress(`2/2 starting a ${members}-member etcd on loopback, then ${processes} \`lockstep lock\` processes contend for payments/invoice-demo`);
  const cluster = await startEtcdCluster({ members });
  let report;
  try {
    await initEtcdLog(cluster.endpoints); // the operator's `lockstep init`, on the demo's own throwaway cluster
    report = await runContention({ endpoints: cluster.endpoints, classFile: DEMO_CLASS, key: 'payments/invoice-demo', processes, holdMs: 300, waitSeconds: 60 });
  } finally {
    await cluster.stop();
  }
  const lockOk = report.allSucceeded && report.overlaps.length === 0 && report.tokensStrictlyIncrease && report.order.length === processes && report.distinctTokens === processes;
  // The tokens themselves are not shown (ADR-22: a token is write authority at its resource): the order
  // of the holders and whether each token rose above the one before say what the demo shows.
  if (options.json === true) {
    const lock = { processes, members, order: report.order, distinctTokens: report.distinctTokens, overlaps: report.overlaps, tokensStrictlyIncrease: report.tokensStrictlyIncrease, exitCodes: report.runs.map((r) => r.exitCode) };
    io.out(JSON.stringify({ ok: classesOk && lockOk, classesOk, lock }));
  } else {
    io.out('');
    io.out(`lock: ${processes} processes took turns on one key, in this order:`);
    for (const [index, identity] of report.order.entries()) io.out(`  ${index + 1}. ${identity}`);
    io.out(`lock: overlapping commands: ${report.overlaps.length === 0 ? 'none' : report.overlaps.join('; ')}`);
    io.out(`lock: ${report.distinctTokens} distinct tokens, each above the one before: ${report.tokensStrictlyIncrease ? 'yes' : 'NO'} (the values are not shown: a token is write authority at its resource, ADR-22)`);
    for (const run of report.runs.filter((r) => r.exitCode !== 0)) io.out(`lock: ${run.identity} exited ${run.exitCode}: ${run.stderr.trim()}`);
    io.out(classesOk && lockOk ? 'demo: ok' : 'demo: FAILED');
  }
  return classesOk && lockOk ? ExitCode.ok : ExitCode.failed;
}
