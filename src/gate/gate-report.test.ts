// The gate's report (issue 15): faults counted per kind and outcome, every kind the real cluster cannot
// inject listed with its reason, --compare-sim's rows in the text, the HTML and the JSON, and the HTML page
// self-contained with the text escaped.
import { describe, expect, it } from 'vitest';
import { type AppliedFault, type FaultEffects, compareFaultEffects, measureFaultEffects } from '../../core/checkers/fault-effects.js';
import type { HistoryEvent } from '../../core/checkers/history.js';
import { gateGroupOf } from '../../scenarios/gate-comparison.js';
import { FAULT_KINDS } from '../../scenarios/fault-schedule.js';
import type { FaultLogLine } from './fault-log.js';
import { type GateReport, NOT_RUN, cannotInject, faultCounts, reportHtml, reportText } from './gate-report.js';

const lines: FaultLogLine[] = [
  { atMs: 10, kind: 'pause', outcome: 'injected', what: 'pause client-1 (@holder) for 8000 ms' },
  { atMs: 20, kind: 'pause', outcome: 'skipped', what: 'pause @holder: nobody holds that role now' },
  { atMs: 30, kind: 'resume', outcome: 'injected', what: 'resume client-1' },
  { atMs: 40, kind: 'restart', outcome: 'skipped', what: 'restart etcd-1: it is running' },
  { atMs: 50, kind: 'restart', outcome: 'injected', what: 'restart etcd-0' },
  { atMs: 60, kind: 'clock-step', outcome: 'failed', what: 'arbiter-1 <did not> start steppable' },
];

describe('gate report', () => {
  it('counts faults per kind: injected, skipped and failed apart', () => {
    expect(faultCounts(lines)).toEqual({
      pause: { injected: 1, skipped: 1, failed: 0 },
      resume: { injected: 1, skipped: 0, failed: 0 },
      restart: { injected: 1, skipped: 1, failed: 0 },
      'clock-step': { injected: 0, skipped: 0, failed: 1 },
    });
  });

  it('lists every kind the simulator knows and the real cluster cannot inject, each with why', () => {
    const cannot = cannotInject();
    expect(cannot.map((c) => c.kind)).toContain('stall-disk');
    for (const c of cannot) expect(FAULT_KINDS).toContain(c.kind);
    for (const c of cannot) expect(c.why.length).toBeGreaterThan(20);
    expect(cannot.map((c) => c.kind)).not.toContain('pause');
  });

  it('the HTML escapes what processes and checkers wrote, and loads nothing from elsewhere', () => {
    const report = sample();
    const html = reportHtml(report);
    expect(html).toContain('arbiter-1 &lt;did not&gt; start steppable');
    expect(html).not.toMatch(/<script|src=|href=/);
    expect(html).toContain('VIOLATION');
    expect(reportText(report)).toMatch(/FAIL fence: 1 violation/);
    expect(reportText(report)).toMatch(/pause: 1 injected, 1 skipped/);
    expect(reportText(report)).toMatch(/fault to next grant \(median \/ longest\): pause @holder 1200 ms \/ 1200 ms/);
  });

  it('--compare-sim: measured beside predicted per kind and figure, in the text, the HTML and the JSON; a figure off by more than 25% says so', () => {
    // Real: pauses of the leader at 1000 and 10000, grants 1200 and 3000 ms after; an arbiter crash at 20000, a grant 100 ms after.
    const measured = effectsOf([2_200, 13_000, 20_100], [pauseOfLeader(1_000, 'etcd-0'), pauseOfLeader(10_000, 'etcd-1'), { atMs: 20_000, kind: 'crash', target: 'arbiter-1', named: 'arbiter-1' }]);
    // Predicted: the pause's next grant 1300 ms after, the crash's 2800 ms after.
    const predicted = effectsOf([2_300, 22_800], [pauseOfLeader(1_000, 'etcd-2'), { atMs: 20_000, kind: 'crash', target: 'arbiter-1', named: 'arbiter-1' }]);
    const rows = compareFaultEffects(measured, predicted);
    const report: GateReport = { ...sample(), comparison: { rows, seeds: ['1', '1/2'], calibration: 'lockstep bench --profile of then' } };
    const text = reportText(report);
    // The measured median of 1200 and 3000 is the lower middle (fault-effects' percentile): 1200; 1300 / 1200 = 1.08.
    expect(text).toMatch(/^ {4}ok {2}pause @leader nextGrant: measured 1200 ms, predicted 1300 ms \(1\.08x\)$/m);
    expect(text).toMatch(/^ {4}off crash arbiter nextGrant: measured 100 ms, predicted 2800 ms \(28x\)$/m);
    expect(text).toMatch(/simulator beside reality \(2 simulated runs, lockstep bench --profile of then\)/);
    expect(text).toMatch(/it never changes the exit code/);
    const html = reportHtml(report);
    expect(html).toContain('<td>pause @leader</td><td>nextGrant</td><td>1200 ms</td><td>1300 ms</td><td>1.08x</td><td>yes</td>');
    expect(html).toContain('<td>crash arbiter</td><td>nextGrant</td><td>100 ms</td><td>2800 ms</td><td>28x</td><td>no</td>');
    const json = JSON.parse(JSON.stringify(report)) as GateReport; // report.json and --json are this object
    expect(json.comparison?.rows.find((r) => r.kind === 'pause @leader' && r.figure === 'nextGrant')).toMatchObject({ measuredMedian: 1_200, predictedMedian: 1_300, within: true });
    expect(reportText(sample())).not.toMatch(/simulator beside reality/); // no --compare-sim, no comparison
  });
});

const pauseOfLeader = (atMs: number, target: string): AppliedFault => ({ atMs, kind: 'pause', target, named: '@leader' });

/** The effects of `faults` on a history whose only events are grants completing at `grantsAtMs`, measured by the one rule, grouped as the gate groups them. */
function effectsOf(grantsAtMs: readonly number[], faults: readonly AppliedFault[]): FaultEffects {
  const events = grantsAtMs.flatMap((at, i): HistoryEvent[] => [
    { process: `client-${i + 1}`, type: 'invoke', f: 'acquire', key: 'k', value: null, time: at - 50 },
    { process: `client-${i + 1}`, type: 'ok', f: 'acquire', key: 'k', value: { token: String(i + 1) }, time: at },
  ]);
  return measureFaultEffects(events, faults, { groupOf: gateGroupOf });
}

function sample(): GateReport {
  return {
    ok: false, verdict: 'violation', seed: '1', durationMs: 60_000, workloadStartMs: 3_000,
    setup: { members: 3, arbiters: 2, clients: 3, keys: 2, resource: 'unfenced', etcdBinary: 'etcd 3.4.23', slowHolder: false },
    schedule: 'drawn from seed 1', operations: { ok: 10, fail: 2, info: 1 }, grants: 5, logEvents: 1,
    faults: { counts: faultCounts(lines), lines }, effects: [{ kind: 'pause @holder', faults: 1, nextGrant: { count: 1, min: 1200, median: 1200, max: 1200 }, victimKeyGrant: undefined, fence: undefined, grants: undefined, refusals: undefined, writesAccepted: undefined, writesRefused: undefined }], cannotInject: cannotInject(),
    checks: [{ name: 'fence', ok: false, verdict: 'violated', detail: '1 violation: ...', violations: [{ kind: 'unfenced-overlap', key: 'k', message: 'two <holders>', involved: [] }] }],
    notRun: NOT_RUN, notDeadlineChecked: { unknownToClients: 0 }, problems: [],
    files: { history: '/o/history.jsonl', faults: '/o/faults.json', report: '/o/report.html', json: '/o/report.json' },
    processes: { pids: [], tempDir: '/tmp/x' },
  };
}
