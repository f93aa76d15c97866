// One `lockstep gate` run (issue 15): start the real cluster, tail the log, run the workload under the
// fault schedule for the duration, bring everything back, stop the clients, let the log's record catch
// up, check, and write the history, the schedule and the report into --out. Everything started here is
// stopped and its temporary directory removed before this returns, also when it is aborted (Ctrl-C).
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { formatMs, formatSeconds } from '../../core/numbers.js';
import { formatFaultSchedule } from '../../scenarios/fault-schedule.js';
import type { CliIo } from '../cli-io.js';
import { writeFileAtomically } from '../files/atomic-write.js';
import { yieldToHost } from '../host-yield.js';
import { measureFaultEffects } from '../../core/checkers/fault-effects.js';
import { type TargetFaultRun, runTargetFaults } from '../../scenarios/apply-target-fault.js';
import { UNMEASURED_KINDS, compareWithSimulator, gateGroupOf } from '../../scenarios/gate-comparison.js';
import type { StartUpsMs } from '../../scenarios/start-up-target.js';
import { FaultLog } from './fault-log.js';
import { checkGate } from './gate-checks.js';
import type { GatePlan } from './gate-options.js';
import { type GateReport, NOT_RUN, cannotInject, faultCounts, reportHtml, reportText } from './gate-report.js';
import { LogTail } from './history/log-tail.js';
import { HistoryRecorder } from './history/recorder.js';
import { RealCluster } from './real-cluster.js';
import { RealFaultTarget } from './real-fault-target.js';

const SETTLE_MS = 3_000;
const CATCH_UP_MS = 15_000;
const PROGRESS_EVERY_MS = 1_000;
const PROGRESS_LINE_EVERY_MS = 10_000; // off a terminal: a line now and then, not a redraw

export class GateAborted extends Error {
  /** What the run had started (all stopped by the time this reaches the command), for the --json answer. */
  processes: { readonly pids: readonly number[]; readonly tempDir: string } | undefined;

  constructor() {
    super('aborted');
  }
}

export interface GateOutcome {
  readonly report: GateReport;
  readonly text: string;
}

type Stderr = { isTTY?: boolean; write(text: string): unknown };

export async function runGate(plan: GatePlan, io: CliIo, abort: AbortSignal, stderr: Stderr): Promise<GateOutcome> {
  const started = performance.now();
  const now = (): number => performance.now() - started;
  const say = (line: string): void => io.err(`lockstep gate: ${line}`);
  const recorder = new HistoryRecorder(now);
  const aborted = new Promise<never>((_, reject) => {
    if (abort.aborted) reject(new GateAborted());
    abort.addEventListener('abort', () => reject(new GateAborted()), { once: true });
  });
  aborted.catch(() => undefined);
  const real = await startCluster(plan, recorder, say, aborted);
  let tail: LogTail | undefined;
  let target: RealFaultTarget | undefined;
  let stopProgress: (() => void) | undefined;
  try {
    tail = new LogTail(real.memberEndpoints, now);
    await tail.start();
    const workloadStart = now();
    target = new RealFaultTarget(real, () => now() - workloadStart, (client) => recorder.holding(client), now);
    await target.refreshLeader();
    target.watchLeader();
    const faultLog = new FaultLog(() => now() - workloadStart);
    const faultRun = runTargetFaults(target, plan.faults, { onLog: faultLog.onLog }); // the shared schedule (scenarios/apply-target-fault.ts)
    say(`running for ${formatMs(plan.durationMs)} under ${plan.faults.length} faults (${plan.scheduleSource})`);
    stopProgress = showProgress(plan, recorder, faultLog, () => now() - workloadStart, stderr, say);
    await Promise.race([new Promise((r) => setTimeout(r, plan.durationMs)), aborted]);
    stopProgress();
    say('the workload is over: healing, resuming, restarting what is down; stopping the clients');
    await bringBack(real, target, faultRun, tail, aborted);
    say('checking the history');
    const checks = checkGate({ recorder, grants: tail.grants, outages: target.outages, resource: plan.resource });
    const comparison = await compareIfAsked(plan, { events: checks.events, fences: recorder.fences, applied: faultRun.applied, originMs: workloadStart }, real.startUpsMs, stderr, say, aborted);
    const report = gateReportOf(plan, { real, tail, recorder, faultLog, faultRun, checks, comparison, workloadStart });
    await writeGateFiles(plan, report, checks.events);
    return { report, text: reportText(report) };
  } catch (error) {
    if (error instanceof GateAborted) error.processes = { pids: real.allPids(), tempDir: real.rootDir };
    throw error;
  } finally {
    stopProgress?.();
    target?.cancelAll();
    await tail?.stop();
    await real.stop();
  }
}

async function startCluster(plan: GatePlan, recorder: HistoryRecorder, say: (line: string) => void, aborted: Promise<never>): Promise<RealCluster> {
  const starting = RealCluster.start({ ...plan, clocks: plan.clocks, ...(plan.etcdBinary === undefined ? {} : { etcdBinary: plan.etcdBinary }) }, recorder, say);
  try {
    return await Promise.race([starting, aborted]);
  } catch (error) {
    // Aborted mid-start: what has started is stopped once the start settles (or, past a few seconds, by
    // the process reaper when the gate exits: src/testing/process-reaper.ts).
    if (error instanceof GateAborted) await Promise.race([starting.then((r) => r.stop(), () => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    throw error;
  }
}

/** The progress line while the workload runs; the returned function stops it (and ends a drawn line). */
function showProgress(plan: GatePlan, recorder: HistoryRecorder, faultLog: FaultLog, elapsedMs: () => number, stderr: Stderr, say: (line: string) => void): () => void {
  let lastLine = 0;
  let drawn = false;
  const progress = setInterval(() => {
    const elapsed = elapsedMs();
    const ops = recorder.operations;
    const injected = faultLog.lines.filter((l) => l.outcome === 'injected').length;
    const line = `${formatSeconds(Math.min(elapsed, plan.durationMs), 0)} of ${formatSeconds(plan.durationMs, 0)}, ${ops.ok + ops.fail + ops.info} ops (${ops.ok} ok, ${ops.fail} fail, ${ops.info} unknown), ${injected} faults injected`;
    if (stderr.isTTY === true) {
      stderr.write(`\rlockstep gate: ${line}\u001b[K`);
      drawn = true;
    } else if (elapsed - lastLine >= PROGRESS_LINE_EVERY_MS) {
      lastLine = elapsed;
      say(line);
    }
  }, PROGRESS_EVERY_MS);
  return () => {
    clearInterval(progress);
    if (drawn) stderr.write('\n');
    drawn = false;
  };
}

/** After the workload: heal, resume, restart what is down, stop the clients and let the log's record catch up. */
async function bringBack(real: RealCluster, target: RealFaultTarget, faultRun: TargetFaultRun, tail: LogTail, aborted: Promise<never>): Promise<void> {
  target.cancelAll();
  await faultRun.healAll();
  await Promise.race([faultRun.settled(), new Promise((r) => setTimeout(r, SETTLE_MS * 10))]);
  real.resumeAll();
  for (const process of real.processes.values()) {
    if (process.state === 'crashed' && process.role !== 'client') await real.restart(process.name).catch((error: unknown) => real.problems.push(`could not restart ${process.name} at the end: ${(error as Error).message}`));
  }
  await Promise.race([new Promise((r) => setTimeout(r, SETTLE_MS)), aborted]);
  await Promise.race([real.stopClients(), aborted]);
  const caughtUp = await Promise.race([tail.caughtUp(CATCH_UP_MS), aborted]);
  if (!caughtUp) real.problems.push(`the gate's watch of the log did not catch up with the members within ${CATCH_UP_MS / 1000} s; the log's record may be short`);
  await tail.stop();
}

type Measured = Parameters<typeof compareWithSimulator>[0];

async function compareIfAsked(plan: GatePlan, measured: Measured, startUpsMs: StartUpsMs, stderr: Stderr, say: (line: string) => void, aborted: Promise<never>): Promise<GateReport['comparison']> {
  if (plan.compareRuns <= 0) return undefined;
  say(`--compare-sim: ${plan.compareRuns} simulated runs of the same schedule`);
  const compared = await Promise.race([aborted, compareWithSimulator(
    measured,
    plan,
    plan.faults,
    {
      simulatedRuns: plan.compareRuns,
      ...(plan.calibration === undefined ? {} : { calibration: plan.calibration }),
      startUpsMs, // the real restarts' start-ups, replayed (issue 32)
      yieldToHost,
      // The progress line while the simulated runs go (a 5 m gate's run takes seconds each).
      onSeed: (k, of) => (stderr.isTTY === true ? void stderr.write(`\rlockstep gate: simulating seed ${k} of ${of}\u001b[K${k === of ? '\n' : ''}`) : say(`simulating seed ${k} of ${of}`)),
    },
  )]);
  return { rows: compared.rows, seeds: compared.seeds, calibration: compared.calibration, startUpsMs: Object.fromEntries(startUpsMs), ...(plan.focus === undefined ? {} : { focus: plan.focus }) };
}

interface RunParts {
  readonly real: RealCluster;
  readonly tail: LogTail;
  readonly recorder: HistoryRecorder;
  readonly faultLog: FaultLog;
  readonly faultRun: TargetFaultRun;
  readonly checks: ReturnType<typeof checkGate>;
  readonly comparison: GateReport['comparison'];
  readonly workloadStart: number;
}

function gateReportOf(plan: GatePlan, run: RunParts): GateReport {
  const { real, tail, recorder, faultLog, faultRun, checks, comparison, workloadStart } = run;
  const ok = checks.results.every((r) => r.ok);
  const out = resolve(plan.out);
  return {
    ok,
    verdict: ok ? 'pass' : 'violation',
    seed: plan.seed,
    durationMs: plan.durationMs,
    workloadStartMs: Math.round(workloadStart),
    setup: { members: plan.members, arbiters: plan.arbiters, clients: plan.clients, keys: plan.keys, resource: plan.resource, etcdBinary: `etcd ${real.etcdVersion}${plan.etcdBinary === undefined ? '' : ` (${plan.etcdBinary})`}`, slowHolder: plan.slowHolder },
    schedule: plan.scheduleSource,
    operations: recorder.operations,
    grants: checks.grants.length,
    logEvents: checks.logEvents,
    faults: { counts: faultCounts(faultLog.lines), lines: faultLog.lines },
    // The measured half of --compare-sim (core/checkers/fault-effects.ts, the rule the simulator's prediction is measured by).
    effects: measureFaultEffects(checks.events, faultRun.applied.filter((f) => !UNMEASURED_KINDS.includes(f.kind)), { originMs: workloadStart, fences: recorder.fences, groupOf: gateGroupOf }).perKind,
    ...(comparison === undefined ? {} : { comparison }),
    cannotInject: cannotInject(),
    checks: checks.results.map((r) => ({ name: r.name, ok: r.ok, verdict: r.verdict, detail: r.detail, violations: r.violations })),
    notRun: NOT_RUN,
    notDeadlineChecked: checks.notDeadlineChecked,
    problems: [...real.problems, ...tail.problems],
    files: { history: join(out, 'history.jsonl'), faults: join(out, 'faults.json'), report: join(out, 'report.html'), json: join(out, 'report.json') },
    processes: { pids: real.allPids(), tempDir: real.rootDir },
  };
}

async function writeGateFiles(plan: GatePlan, report: GateReport, events: ReturnType<typeof checkGate>['events']): Promise<void> {
  await mkdir(resolve(plan.out), { recursive: true });
  const files = report.files;
  await writeFileAtomically(files.history, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  await writeFileAtomically(files.faults, `${formatFaultSchedule(plan.faults)}\n`);
  await writeFileAtomically(files.report, reportHtml(report));
  await writeFileAtomically(files.json, `${JSON.stringify(report, null, 1)}\n`);
}
