// The gate's report (issue 15): faults counted per kind and outcome, every kind the real cluster cannot
// inject listed with its reason, --compare-sim's rows in the text, the HTML and the JSON, and the HTML page
// self-contained with the text escaped.
import { describe, expect, it } from 'vitest';
import { type AppliedFault, type FaultEffects, measureFaultEffects } from '../../core/checkers/fault-effects.js';
import { compareDistributions } from '../../core/checkers/distribution-comparison.js';
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

  it('--compare-sim: each side\'s median with its 95% interval and draws, and a verdict per row, in the text, the HTML and the JSON (issue 32)', () => {
    const six = [0, 1, 2, 3, 4, 5];
    const leaderPauses = six.map((i) => pauseOfLeader(i * 10_000, `etcd-${i % 3}`));
    const arbiterCrashes = six.map((i): AppliedFault => ({ atMs: 100_000 + i * 10_000, kind: 'crash', target: 'arbiter-1', named: 'arbiter-1' }));
    const holderPause: AppliedFault = { atMs: 200_000, kind: 'pause', target: 'client-1', named: '@holder' };
    // Real: the leader's pauses cost 1000..1250 ms to the next grant, the arbiter's crashes 100..150 ms, a holder's pause 6 s.
    const measured = effectsOf([...six.map((i) => i * 10_000 + 1_000 + i * 50), ...six.map((i) => 100_000 + i * 10_000 + 100 + i * 10), 206_000], [...leaderPauses, ...arbiterCrashes, holderPause]);
    // Predicted: 1100..1350 ms (within 25%), 2800..2850 ms (28x: differs), and the holder's pause once (too few draws).
    const predicted = effectsOf([...six.map((i) => i * 10_000 + 1_100 + i * 50), ...six.map((i) => 100_000 + i * 10_000 + 2_800 + i * 10), 206_500], [...leaderPauses, ...arbiterCrashes, holderPause]);
    const rows = compareDistributions(measured, predicted);
    const report: GateReport = { ...sample(), comparison: { rows, seeds: ['1', '1/2'], calibration: 'lockstep bench --profile of then', focus: 'pause' } };
    const text = reportText(report);
    expect(text).toMatch(/^ {4}ok {3}pause @leader nextGrant: measured 1100 ms \[1000 ms, 1250 ms\] \(6\), predicted 1200 ms \[1100 ms, 1350 ms\] \(6\) \(1\.09x\)$/m);
    expect(text).toMatch(/^ {4}off {2}crash arbiter nextGrant: measured 120 ms \[100 ms, 150 ms\] \(6\), predicted 2820 ms \[2800 ms, 2850 ms\] \(6\) \(23\.5x\)$/m);
    expect(text).toMatch(/^ {4}few {2}pause @holder nextGrant: measured 6000 ms \(1\), predicted 6500 ms \(1\) \(1\.08x\) too few draws for a 95% interval \(measured 1, predicted 1\)$/m);
    expect(text).toMatch(/simulator beside reality \(2 simulated runs, --focus pause, lockstep bench --profile of then\): \d+ of \d+ rows with enough draws agree/);
    expect(text).toMatch(/it never changes the exit code/);
    const html = reportHtml(report);
    expect(html).toContain('<td>pause @leader</td><td>nextGrant</td><td>1100 ms [1000 ms, 1250 ms] (6)</td><td>1200 ms [1100 ms, 1350 ms] (6)</td><td>1.09x</td><td>agrees</td>');
    expect(html).toContain('<td>crash arbiter</td><td>nextGrant</td><td>120 ms [100 ms, 150 ms] (6)</td><td>2820 ms [2800 ms, 2850 ms] (6)</td><td>23.5x</td><td>differs</td>');
    const json = JSON.parse(JSON.stringify(report)) as GateReport; // report.json and --json are this object
    expect(json.comparison?.rows.find((r) => r.kind === 'pause @leader' && r.figure === 'nextGrant')).toMatchObject({ measuredMedian: 1_100, predictedMedian: 1_200, within: true, verdict: 'agrees', measuredInterval: { low: 1_000, high: 1_250 } });
    expect(reportText(sample())).not.toMatch(/simulator beside reality/); // no --compare-sim, no comparison
  });

  it('--compare-sim: says the arbiter start-ups it replayed (issue 32), and keeps them in the JSON', () => {
    const report: GateReport = { ...sample(), comparison: { rows: [], seeds: ['1'], calibration: 'defaults', startUpsMs: { 'arbiter-1': [2_500, null], 'arbiter-2': [900] } } };
    expect(reportText(report)).toMatch(/simulator beside reality \(1 simulated runs, defaults, 3 arbiter restarts replayed with their measured start-ups, served after 900 ms \(median, longest 2500 ms\), 1 never served \(crashed again first\)\)/);
    expect((JSON.parse(JSON.stringify(report)) as GateReport).comparison?.startUpsMs).toEqual({ 'arbiter-1': [2_500, null], 'arbiter-2': [900] });
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
