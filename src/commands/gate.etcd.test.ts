// `lockstep gate` on real etcd 3.4 (issue 15, ADR-23): a short gate (3 members, 2 arbiters, 3 clients,
// a holder's pause, a member's kill -9 and restart, the leader's isolation) passes with every check
// listed ok; the negative control, the unfenced resource under holder pauses, fails, and its saved
// history is refused by `lockstep check --model lock --resource fenced`. Each run's own pids and temp
// dir (from its --json report) are gone afterwards: another gate running at the same time is not ours.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GateReport } from '../gate/gate-report.js';
import { REPO_ROOT } from '../repo-root.js';
import { runLockstep, startLockstep } from '../testing/lockstep-process.js';
import { processAlive } from '../testing/process-reaper.js';

const scratch = mkdtempSync(join(tmpdir(), 'lockstep-gate-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

async function gate(args: readonly string[]): Promise<{ code: number | null; report: GateReport; stderr: string }> {
  const run = await runLockstep(['gate', '--json', ...args]);
  let report: GateReport;
  try {
    report = JSON.parse(run.stdout) as GateReport;
  } catch {
    throw new Error(`lockstep gate printed no JSON report (exit ${run.code}); stderr:\n${run.stderr}`);
  }
  // Nothing this run started outlives it.
  expect(report.processes.pids.length).toBeGreaterThan(5);
  expect(report.processes.pids.filter((pid) => processAlive(pid))).toEqual([]);
  expect(existsSync(report.processes.tempDir)).toBe(false);
  return { code: run.code, report, stderr: run.stderr };
}

describe('lockstep gate on a real 3-member etcd cluster', () => {
  it('a short gate under pauses, kills and a partition passes, every check listed ok', { timeout: 240_000 }, async () => {
    const out = join(scratch, 'pass');
    const { code, report, stderr } = await gate(['--duration', '50s', '--seed', 'gate-test', '--compare-sim', '--compare-runs', '1', '--out', out]);
    expect(code, `${JSON.stringify(report.checks, null, 1)}\n${stderr.slice(-3000)}`).toBe(0);
    expect(report.checks.map((c) => c.name)).toEqual(['exclusion', 'token-order', 'fence', 'linearizability', 'deadline']);
    expect(report.checks.every((c) => c.ok)).toBe(true);
    for (const kind of ['pause', 'crash', 'restart', 'partition', 'heal']) expect(report.faults.counts[kind]?.injected ?? 0, kind).toBeGreaterThan(0);
    expect(report.operations.ok).toBeGreaterThan(50);
    expect(report.grants).toBeGreaterThan(10);
    expect(stderr).toMatch(/ops \(\d+ ok/); // the progress line
    for (const file of Object.values(report.files)) expect(existsSync(file), file).toBe(true);
    // --compare-sim: the same schedule in the simulator, measured by the same rule, beside the real figures.
    const nextGrants = report.comparison?.rows.filter((r) => r.figure === 'nextGrant') ?? [];
    expect(nextGrants.length).toBeGreaterThan(2);
    expect(nextGrants.some((r) => r.measuredMedian !== undefined && r.predictedMedian !== undefined)).toBe(true);
    // A row for every kind of the schedule that acted (a pause's own resume is a line of its pause, not a fault of the schedule).
    const compared = new Set(report.comparison?.rows.map((r) => r.kind.split(' ')[0]));
    const scheduled = new Set((JSON.parse(readFileSync(report.files.faults, 'utf8')) as { kind: string }[]).map((f) => f.kind));
    const injected = [...scheduled].filter((kind) => kind !== 'clock-drift' && (report.faults.counts[kind]?.injected ?? 0) > 0);
    expect(injected.length).toBeGreaterThan(3);
    for (const kind of injected) expect(compared, kind).toContain(kind);
    expect(stderr).toMatch(/simulating seed 1 of 1/); // the progress line while it simulates
  });

  it('the negative control: an unfenced resource under holder pauses fails, and its history is refused as fenced', { timeout: 240_000 }, async () => {
    // The README's negative control, as it is written there: the shipped schedule, three 8 s holder pauses.
    // Three, not two: a pause that lands in the gap between two holds is skipped (nobody holds then), and
    // one that lands on a write or a release makes no stale writer; under npm test's load two pauses both
    // missed once, and the control passed.
    const faults = join(REPO_ROOT, 'examples', 'faults', 'holder-pauses.json');
    const out = join(scratch, 'unfenced');
    const { code, report } = await gate(['--duration', '32s', '--keys', '1', '--resource', 'unfenced', '--faults', faults, '--out', out]);
    expect(code).toBe(1);
    expect(report.verdict).toBe('violation');
    const failed = report.checks.filter((c) => !c.ok).map((c) => c.name);
    expect(failed).toEqual(expect.arrayContaining(['linearizability', 'fence']));
    expect(report.checks.find((c) => c.name === 'fence')?.violations.map((v) => v.kind)).toContain('unfenced-overlap');
    const checked = await runLockstep(['check', '--model', 'lock', '--resource', 'fenced', report.files.history]);
    expect(checked.code, checked.stdout).toBe(1);
    expect(checked.stdout).toMatch(/violation: 1 of 1 key not linearizable/);
  });
});

describe('lockstep gate with a holder whose clock runs slow', () => {
  it('a holder at x0.3 (--slow-holder), its keepalives cut short by arbiter pauses, is reported by the deadline check', { timeout: 240_000 }, async () => {
    // client-1's library renews every TTL/3 and fences at TTL - 1 s after its last good keepalive, on a
    // clock at x0.3: 5.6 s and 13.3 s of real time. With both arbiters paused for 6 s every session's
    // lease runs out (5 s); a library on a true clock fences 4 s after its last good keepalive, before
    // that, and client-1's only at 13.3 s, long after. Three rounds of pauses, not two: a round catches
    // client-1 only while it holds with its acquire answered (an acquire of unknown outcome has no handle
    // to fence, and is not checked), and under npm test's load, and under two CPU hogs each time, two
    // rounds missed and the control passed; three rounds were caught under the same hogs, twice of twice,
    // and missed once more in a full npm test (stop 27): four rounds, 3 s apart; four missed once more in a
    // full npm test (stop 31, the lead's typecheck running beside it): six rounds now.
    const faults = join(scratch, 'arbiter-pauses.json');
    writeFileSync(faults, JSON.stringify([4_000, 13_000, 22_000, 31_000, 40_000, 49_000].flatMap((atMs) => ['arbiter-1', 'arbiter-2'].map((target) => ({ atMs, kind: 'pause', target, forMs: 6_000 })))));
    const { code, report } = await gate(['--duration', '58s', '--clients', '2', '--keys', '2', '--slow-holder', '--faults', faults, '--out', join(scratch, 'slow')]);
    expect(code).toBe(1);
    const deadline = report.checks.find((c) => c.name === 'deadline');
    expect(deadline?.ok).toBe(false);
    expect(deadline?.violations.every((v) => v.involved.every((i) => i.holder === 'client-1'))).toBe(true); // only the slow one
    expect(report.checks.filter((c) => c.name !== 'deadline').every((c) => c.ok)).toBe(true); // the fence refused its stale writes
  });
});

describe('lockstep gate interrupted', () => {
  it('SIGINT mid-run exits 130 and leaves none of its processes or its temp dir behind', { timeout: 180_000 }, async () => {
    const run = startLockstep(['gate', '--json', '--duration', '5m', '--seed', 'interrupt', '--out', join(scratch, 'interrupted')]);
    await run.waitForStderr(/running for/, 120_000);
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // faults and clients under way
    run.child.kill('SIGINT');
    const { code } = await run.exited;
    expect(code, run.stderr().slice(-2000)).toBe(130);
    const answer = JSON.parse(run.stdout()) as { verdict: string; processes: GateReport['processes'] };
    expect(answer.verdict).toBe('interrupted');
    expect(answer.processes.pids.length).toBeGreaterThan(5);
    expect(answer.processes.pids.filter((pid) => processAlive(pid))).toEqual([]);
    expect(existsSync(answer.processes.tempDir)).toBe(false);
    expect(existsSync(join(scratch, 'interrupted'))).toBe(false); // no half-written report
  });
});
