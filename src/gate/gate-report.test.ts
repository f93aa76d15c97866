// The gate's report (issue 15): faults counted per kind and outcome, every kind the real cluster cannot
// inject listed with its reason, the measured fault effects per kind, --compare-sim's rows in the text, the
// HTML and the JSON, and the HTML page self-contained with the text escaped.
import { describe, expect, it } from 'vitest';
import { type AppliedFault, type FaultEffects, compareFaultEffects, measureFaultEffects } from '../../core/checkers/fault-effects.js';
import type { HistoryEvent } from '../../core/checkers/history.js';
import { FAULT_KINDS } from '../../scenarios/fault-schedule.js';
import type { FaultLogLine } from './fault-log.js';
import { type GateReport, NOT_RUN, cannotInject, comparisonCells, faultCounts, reportHtml, reportText } from './gate-report.js';

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
    expect(reportText(report)).toMatch(/pause \(2\): next grant 2 \/ 1200 ms \/ 3000 ms/);
    expect(reportText(report)).not.toMatch(/simulator held/); // no --compare-sim, no comparison
  });

  it('--compare-sim: the rows of measured beside predicted are in the text, the HTML and the JSON', () => {
    // The real history: pause faults at 1000 and 10000, next grants 1200 and 3000 ms after; the prediction's: 1300 ms after its one.
    const measured = effectsOf([2_200, 13_000], [{ atMs: 1_000, kind: 'pause', target: 'etcd-0', named: '@leader' }, { atMs: 10_000, kind: 'pause', target: 'etcd-1', named: '@leader' }]);
    const predicted = effectsOf([2_300], [{ atMs: 1_000, kind: 'pause', target: 'etcd-1', named: '@leader' }]);
    const rows = compareFaultEffects(measured, predicted);
    const report: GateReport = { ...sample(), comparison: { calibration: 'lockstep bench --profile (/p.json)', seeds: ['1', '1/2'], tolerance: 0.25, rows } };
    const nextGrant = comparisonCells(report.comparison!).find((cells) => cells[1] === 'next grant');
    // Median of 1200 and 3000 (the lower middle of two) beside 1300: ratio 1.08, within 25%.
    expect(nextGrant).toEqual(['pause', 'next grant', '1200 ms', '1300 ms', '1.08x', 'yes', '']);
    const text = reportText(report);
    expect(text).toMatch(/a report, not a check: it never changes the exit code/);
    expect(text).toMatch(/2 simulated seeds pooled, timing from lockstep bench --profile \(\/p\.json\)/);
    expect(text).toMatch(/pause +next grant +1200 ms +1300 ms +1\.08x +yes/);
    expect(text).toMatch(/grants in 10 s/);
    const html = reportHtml(report);
    expect(html).toContain('<td>pause</td><td>next grant</td><td>1200 ms</td><td>1300 ms</td><td>1.08x</td><td>yes</td>');
    const json = JSON.parse(JSON.stringify(report)) as GateReport;
    expect(json.comparison?.rows.find((r) => r.kind === 'pause' && r.figure === 'nextGrant')).toMatchObject({ measuredMedian: 1_200, predictedMedian: 1_300, within: true });
  });

  it('a predicted figure outside ±25% says no, and a kind only one world had says why', () => {
    const measured = effectsOf([1_100], [{ atMs: 1_000, kind: 'crash', target: 'arbiter-1' }]);
    const predicted = effectsOf([3_800, 5_000], [{ atMs: 1_000, kind: 'crash', target: 'arbiter-1' }, { atMs: 2_000, kind: 'heal' }]);
    const cells = comparisonCells({ calibration: 'defaults', seeds: ['1'], tolerance: 0.25, rows: compareFaultEffects(measured, predicted) });
    expect(cells.find((c) => c[0] === 'crash' && c[1] === 'next grant')).toEqual(['crash', 'next grant', '100 ms', '2800 ms', '28x', 'no', '']);
    expect(cells.find((c) => c[0] === 'heal' && c[1] === 'next grant')?.slice(2)).toEqual(['none', '1800 ms', '', 'no', 'not measured: the real run had no fault of this kind']);
  });
});

/** The effects of `faults` on a history whose only events are grants completing at `grantsAtMs` (measured by the one rule). */
function effectsOf(grantsAtMs: readonly number[], faults: readonly AppliedFault[]): FaultEffects {
  const events: HistoryEvent[] = grantsAtMs.flatMap((at, i) => [
    { process: `client-${i + 1}`, type: 'invoke', f: 'acquire', key: 'k', value: null, time: at - 50 },
    { process: `client-${i + 1}`, type: 'ok', f: 'acquire', key: 'k', value: { token: String(i + 1) }, time: at },
  ] as HistoryEvent[]);
  return measureFaultEffects(events, faults);
}

function sample(): GateReport {
  return {
    ok: false, verdict: 'violation', seed: '1', durationMs: 60_000, workloadStartMs: 3_000,
    setup: { members: 3, arbiters: 2, clients: 3, keys: 2, resource: 'unfenced', etcdBinary: 'etcd 3.4.23', slowHolder: false },
    schedule: 'drawn from seed 1', operations: { ok: 10, fail: 2, info: 1 }, grants: 5, logEvents: 1,
    faults: { counts: faultCounts(lines), lines }, effects: effectsOf([2_200, 13_000], [{ atMs: 1_000, kind: 'pause' }, { atMs: 10_000, kind: 'pause' }]).perKind, cannotInject: cannotInject(),
    checks: [{ name: 'fence', ok: false, verdict: 'violated', detail: '1 violation: ...', violations: [{ kind: 'unfenced-overlap', key: 'k', message: 'two <holders>', involved: [] }] }],
    notRun: NOT_RUN, notDeadlineChecked: { unknownToClients: 0 }, problems: [],
    files: { history: '/o/history.jsonl', faults: '/o/faults.json', report: '/o/report.html', json: '/o/report.json' },
    processes: { pids: [], tempDir: '/tmp/x' },
  };
}
