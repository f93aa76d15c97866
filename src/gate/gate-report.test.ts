// The gate's report (issue 15): faults counted per kind and outcome, every kind the real cluster cannot
// inject listed with its reason, and the HTML page self-contained with the text escaped.
import { describe, expect, it } from 'vitest';
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
});

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
