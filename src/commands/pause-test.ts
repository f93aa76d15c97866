// `lockstep pause-test`: the pause test kit on real processes (ADR-17). Checks every input before it
// touches etcd or the resource (exit 2), runs core's procedure (src/pause-test/run-kit.ts), prints each
// step with its time, and on a pass writes the PauseTestResult (--out, atomically) that `lockstep class
// check` accepts for the class and its resource. Exit 0 pass, 1 fail (or inconclusive), 2 bad input.
import { bigintAsDecimal } from '../../core/json-text.js';
import { access } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Command } from 'commander';
import { type LockClass, checkDocuments } from '../../core/classes/index.js';
import { DEFAULT_FENCE_MODE, FENCE_MODES, type FenceMode, describeFenceMode, isFenceMode } from '../../core/fence/index.js';
import { isLockError } from '../../core/lock-error.js';
import { parseLockKey } from '../../core/lock-key.js';
import { type PauseTestReport, type PauseTestStep, pauseTestResultYaml } from '../../core/pause-test/index.js';
import { BadInput } from '../cli-errors.js';
import { type CliIo, ExitCode } from '../cli-io.js';
import { readDocumentFiles, refuseUnreadable, todayUtc } from '../policy-files.js';
import { type WriteSpec, describeWrite, redactUrl } from '../pause-test/guarded-write.js';
import { killAllHolders } from '../pause-test/process-holder.js';
import { runKit } from '../pause-test/run-kit.js';
import { writeFileAtomically } from '../pause-test/write-atomically.js';
import { formatProblem } from './class-check.js';

interface PauseTestOptions {
  endpoints: string;
  class: string[];
  className?: string;
  key?: string;
  identity: string;
  postgres?: string;
  table?: string;
  record?: string;
  file?: string;
  readCommand?: string;
  fenceMode?: string;
  points?: string;
  out?: string;
  name?: string;
  json?: boolean;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

const HELP_AFTER = `
The kit (ADR-17): the first holder, a process of its own, acquires the key, asks canStart() and runs the
guarded write, stopping at a pause point; the kit freezes it with SIGSTOP until its hold has expired; the
second holder is granted the key and writes; the first is resumed and finishes its write with its old
token. The trial passes when the record, read back from the resource, still holds the second holder's
value. One trial at "before" the write, then at every pause point a write passed ("between" its
statements, "after" it). A pass needs the resource to have refused a stale write.

The guarded write, one of:
  --postgres URL --table T [--record ID]   the PostgreSQL reference fence (docs/fences/postgresql.sql):
                                           UPDATE T SET value = $3, fence = $2 WHERE id = $1 AND fence < $2
  --file DIR                               the file register (src/fences/file-register.ts), one record
  --read-command CMD -- <command...>       your own write: it gets LOCKSTEP_TOKEN, LOCKSTEP_KEY and
                                           LOCKSTEP_VALUE; to be frozen between statements it writes
                                           "pause-point NAME" to fd 3 and reads a line back:
                                             echo "pause-point between" >&3; read -r _ <&3
                                           CMD (run by sh) prints the value the record holds.

--fence-mode: ${FENCE_MODES.map((m) => `${m}: ${describeFenceMode(m)}`).join('; ')}. ADR-16's strict form is
the default: with it a holder writes a record once per grant.

Run it against staging, commit the result beside the class, and check both in the pull request:
  lockstep pause-test --endpoints 127.0.0.1:2379 --class ledger-writes.yaml \\
    --postgres postgresql://staging-db/ledger --table lockstep_fenced --out ledger-writes.pause-test.yaml
  lockstep class check ledger-writes.yaml ledger-writes.pause-test.yaml`;

export function registerPauseTestCommand(program: Command, io: CliIo, setExitCode: (code: number) => void): void {
  program
    .command('pause-test')
    .description('The pause test kit (ADR-17): freeze a holder past its TTL inside its write and check that the resource refuses its stale write. Exit 0 pass, 1 fail, 2 bad input.')
    .argument('[command...]', 'your guarded write command (after --), with --read-command')
    .requiredOption('--endpoints <list>', 'etcd client endpoints, host:port[,host:port...] (initialised: lockstep init)')
    .requiredOption('--class <file>', 'YAML file with the LockClass under test (repeatable); fenced or advisory, it must name its resource', collect, [])
    .option('--class-name <name>', 'which LockClass, when the files hold several')
    .option('--key <key>', 'the lock key to test with, namespace/path (default <namespace>/pause-test/<class>)')
    .option('--identity <id>', 'the holders are <id>/first and <id>/second', 'spiffe://lockstep/pause-test')
    .option('--postgres <url>', 'the PostgreSQL reference fence on this database')
    .option('--table <name>', 'with --postgres: the fenced table (docs/fences/postgresql.sql)')
    .option('--record <id>', 'with --postgres: the record to write (default: the key)')
    .option('--file <dir>', 'the file register reference fence in this directory')
    .option('--read-command <cmd>', 'with a command: prints the record\'s value (run by sh)')
    .option('--fence-mode <mode>', `with --postgres or --file: ${FENCE_MODES.join(' or ')}`, DEFAULT_FENCE_MODE)
    .option('--points <list>', 'test only these pause points, in order (default: before, then each the write passes)')
    .option('--out <file>', 'on a pass, write the PauseTestResult here (atomically)')
    .option('--name <name>', 'metadata.name of the result (default <class>-<date>)')
    .option('--json', 'print one JSON object with the verdict, the trials and the steps; steps go to stderr as they happen')
    .addHelpText('after', HELP_AFTER)
    .action(async (command: string[], options: PauseTestOptions) => {
      setExitCode(await runPauseTestCommand(command, options, io));
    });
}

interface Setup {
  readonly endpoints: string[];
  readonly lockClass: LockClass;
  readonly resource: string;
  readonly key: string;
  readonly write: WriteSpec;
  readonly points?: readonly string[];
}

export async function runPauseTestCommand(command: readonly string[], options: PauseTestOptions, io: CliIo): Promise<number> {
  const setup = await loadSetup(command, options, io);
  const steps: PauseTestStep[] = [];
  const show = (line: string): void => (options.json === true ? io.err(line) : io.out(line));
  show(`lockstep pause-test: ${setup.lockClass.namespace}/${setup.lockClass.name} (TTL ${setup.lockClass.ttlSeconds} s) on ${setup.resource}; write under test: ${redactUrl(describeWrite(setup.write))}`);
  let report: PauseTestReport;
  // A detached group gets no Ctrl-C of its own, and node skips 'exit' handlers when a signal kills it:
  // an interrupted kit kills its first holder (frozen or not) before it goes.
  const interrupted = (signal: NodeJS.Signals) => () => {
    io.err(`lockstep pause-test: ${signal}: stopping the first holder; no result written`);
    killAllHolders();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  };
  const onInt = interrupted('SIGINT');
  const onTerm = interrupted('SIGTERM');
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  try {
    report = await runKit({
      endpoints: setup.endpoints,
      lockClass: setup.lockClass,
      key: setup.key,
      identity: options.identity,
      write: setup.write,
      ...(setup.points === undefined ? {} : { points: setup.points }),
      onStep: (step) => {
        steps.push(step);
        show(formatStep(step));
      },
    });
  } catch (error) {
    throw new BadInput(`could not run the kit: ${redactUrl(error instanceof Error ? error.message : String(error))}; check --endpoints (an initialised etcd: lockstep init) and the resource options`);
  } finally {
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
  }
  const ranAt = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  let written: string | undefined;
  if (report.passed && options.out !== undefined) {
    const yaml = pauseTestResultYaml({ lockClass: setup.lockClass, resource: setup.resource, ranAt, report, write: redactUrl(describeWrite(setup.write)), ...(options.name === undefined ? {} : { name: options.name }) });
    await writeFileAtomically(options.out, yaml);
    written = options.out;
    show(`wrote ${options.out}: commit it beside the class, and run lockstep class check on both in the pull request`);
  } else if (!report.passed && options.out !== undefined) {
    show(`wrote nothing to ${options.out}: only a passing run leaves a PauseTestResult`);
  }
  if (options.json === true) io.out(JSON.stringify({ ok: report.passed, passed: report.passed, summary: report.summary, durationMs: Math.round(report.durationMs), class: `${setup.lockClass.namespace}/${setup.lockClass.name}`, resource: setup.resource, key: setup.key, ranAt, out: written ?? null, trials: report.trials, steps }, bigintAsDecimal));
  return report.passed ? ExitCode.ok : ExitCode.failed;
}

export function formatStep(step: PauseTestStep): string {
  const at = `[${(step.atMs / 1000).toFixed(1).padStart(6)} s]`;
  return step.trial === undefined ? `${at} ${step.text}` : `${at} trial ${step.trial}: ${step.text}`;
}

/** Everything checked before anything touches etcd or the resource: bad input exits 2 having done nothing. */
async function loadSetup(command: readonly string[], options: PauseTestOptions, io: CliIo): Promise<Setup> {
  const endpoints = options.endpoints.split(',').map((e) => e.trim()).filter((e) => e.length > 0);
  if (endpoints.length === 0) throw new BadInput('--endpoints is empty; give host:port of at least one etcd member');
  const write = writeSpecOf(command, options);
  if (typeof write === 'string') throw new BadInput(write);
  const { documents, unreadable } = await readDocumentFiles(options.class, io);
  refuseUnreadable(unreadable);
  // The kit produces the result a fenced class needs, so that rule waits for it (ADR-17).
  const checked = checkDocuments(documents, { today: todayUtc(), skipPauseTestRule: true });
  if (checked.problems.length > 0) throw new BadInput(`--class ${options.class.join(', ')}: ${checked.problems.length} problem(s); fix them (lockstep class check) and run again`, { lines: checked.problems.map(formatProblem) });
  const candidates = checked.classes.filter((c) => options.className === undefined || c.name === options.className);
  if (candidates.length !== 1) {
    const found = candidates.map((c) => `${c.namespace}/${c.name}`).join(', ') || 'none';
    throw new BadInput(`--class ${options.class.join(', ')} must hold exactly one LockClass${options.className === undefined ? '' : ` named ${options.className}`}, and holds ${found}; choose one with --class-name`);
  }
  const lockClass = candidates[0] as LockClass;
  if (lockClass.resource === undefined) throw new BadInput(`class ${lockClass.namespace}/${lockClass.name} names no spec.resource; the result is for one resource (ADR-17): set spec.resource to the store you are testing`);
  const key = options.key ?? `${lockClass.namespace}/pause-test/${lockClass.name}`;
  try {
    if (parseLockKey(key).namespace !== lockClass.namespace) throw new BadInput(`--key ${key} is not in namespace ${lockClass.namespace}, the class's; give a key under ${lockClass.namespace}/`);
  } catch (error) {
    if (!isLockError(error)) throw error;
    throw new BadInput(`--key ${key}: ${error.message}`);
  }
  const points = options.points?.split(',').map((p) => p.trim()).filter((p) => p.length > 0);
  if (points !== undefined && (points.length === 0 || points.some((p) => /\s/.test(p)))) throw new BadInput(`--points ${JSON.stringify(options.points)} is not a comma-separated list of pause point names, e.g. before,between,after`);
  if (options.out !== undefined) {
    try {
      await access(dirname(options.out));
    } catch {
      throw new BadInput(`--out ${options.out}: the directory ${dirname(options.out)} does not exist; give a file in a directory that does`);
    }
  }
  const withKey = write.kind === 'command' ? { ...write, key } : write.kind === 'postgres' ? { ...write, record: options.record ?? key } : write;
  return { endpoints, lockClass, resource: lockClass.resource, key, write: withKey, ...(points === undefined ? {} : { points }) };
}

/** The guarded write the options name, or what is wrong with them. */
function writeSpecOf(command: readonly string[], options: PauseTestOptions): WriteSpec | string {
  const chosen = [options.postgres !== undefined && '--postgres', options.file !== undefined && '--file', command.length > 0 && 'a command after --'].filter((c): c is string => c !== false);
  if (chosen.length !== 1) {
    return `${chosen.length === 0 ? 'no guarded write given' : `${chosen.join(' and ')} given together`}; choose one of --postgres URL --table T, --file DIR, or --read-command CMD -- <command...>`;
  }
  const mode = options.fenceMode ?? DEFAULT_FENCE_MODE;
  if (!isFenceMode(mode)) return `--fence-mode ${JSON.stringify(mode)} is not one of ${FENCE_MODES.join(', ')}`;
  const fenceMode: FenceMode = mode;
  if (options.postgres !== undefined) {
    if (options.table === undefined) return '--postgres needs --table T, the fenced table (create it with docs/fences/postgresql.sql)';
    if (!/^postgres(ql)?:\/\//.test(options.postgres)) return `--postgres ${JSON.stringify(redactUrl(options.postgres))} is not a postgresql:// URL; give one such as postgresql://user@host:5432/db`;
    return { kind: 'postgres', url: options.postgres, table: options.table, record: options.record ?? '', mode: fenceMode };
  }
  if (options.table !== undefined || options.record !== undefined) return '--table and --record go with --postgres';
  if (options.file !== undefined) return { kind: 'file', dir: options.file, mode: fenceMode };
  if (options.readCommand === undefined) return 'a command after -- needs --read-command CMD, which prints the value the record holds: the kit judges by the record, not by exit codes';
  if (options.fenceMode !== undefined && options.fenceMode !== DEFAULT_FENCE_MODE) return '--fence-mode is for the reference fences (--postgres, --file); your command applies its own rule';
  return { kind: 'command', command: [...command], read: options.readCommand, key: '' };
}
