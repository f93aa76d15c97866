// The gate's checks over constructed evidence (issue 15): the log's expiries reach the history as bounded
// expire events, the deadline is held only to holds a client was told of, a late fence while running is
// a violation and one while paused is excused, and an unfenced resource's stale write fails the model.
import { describe, expect, it } from 'vitest';
import { checkGate, type GateEvidence } from './gate-checks.js';
import type { LogGrant } from './history/log-tail.js';
import { HistoryRecorder } from './history/recorder.js';
import { identityOf } from './real-cluster.js';

const KEY = 'payments/gate-0';
const T1 = 281474976710661n;
const T2 = 281474976710670n;
const T3 = 281474976710680n;

function run(options: { fenceAtMs?: number; pausedUntilMs?: number; resource?: 'fenced' | 'unfenced' }): ReturnType<typeof checkGate> {
  let now = 0;
  const recorder = new HistoryRecorder(() => now);
  const at = (ms: number, act: () => void): void => {
    now = ms;
    act();
  };
  at(0, () => recorder.invoke('client-1', 'acquire', KEY, null));
  at(1, () => recorder.complete('client-1', 'ok', { token: String(T1) }));
  at(2, () => recorder.invoke('client-1', 'write', KEY, { token: String(T1) }));
  at(3, () => recorder.complete('client-1', 'ok', null));
  if (options.fenceAtMs !== undefined) at(options.fenceAtMs, () => recorder.fence('client-1', KEY, String(T1)));
  at(12, () => recorder.invoke('client-2', 'acquire', KEY, null));
  at(14, () => recorder.complete('client-2', 'ok', { token: String(T2) }));
  at(15, () => recorder.invoke('client-2', 'write', KEY, { token: String(T2) }));
  at(16, () => recorder.complete('client-2', 'ok', null));
  at(17, () => recorder.invoke('client-1', 'write', KEY, { token: String(T1) })); // the stale writer wakes
  at(18, () => recorder.complete('client-1', options.resource === 'unfenced' ? 'ok' : 'fail', null));
  at(21, () => recorder.invoke('client-3', 'acquire', 'payments/gate-1', null));
  at(30, () => recorder.complete('client-3', 'info', { error: 'indeterminate' }));
  const grants: LogGrant[] = [
    { key: KEY, token: T1, identity: identityOf('client-1'), session: 1n, revision: 5n, seenAtMs: 1, end: { revision: 9n, kind: 'expiry', seenAtMs: 20 } },
    { key: KEY, token: T2, identity: identityOf('client-2'), session: 2n, revision: 10n, seenAtMs: 13 },
    // A grant no client was told of (an acquire of unknown outcome), expired later: not deadline-checked.
    { key: 'payments/gate-1', token: T3, identity: identityOf('client-3'), session: 3n, revision: 20n, seenAtMs: 25, end: { revision: 30n, kind: 'expiry', seenAtMs: 40 } },
  ];
  const outages = options.pausedUntilMs === undefined ? [] : [{ holder: 'client-1', kind: 'pause' as const, fromMs: 4, toMs: options.pausedUntilMs }];
  const evidence: GateEvidence = { recorder, grants, outages, resource: options.resource ?? 'fenced' };
  return checkGate(evidence);
}

const verdicts = (checks: ReturnType<typeof checkGate>): Record<string, string> => Object.fromEntries(checks.results.map((r) => [r.name, r.verdict]));

describe('checkGate', () => {
  it('a holder fenced before its expiry: every check holds; the expiry is in the history at its bound', () => {
    const checks = run({ fenceAtMs: 8 });
    expect(verdicts(checks)).toEqual({ exclusion: 'ok', 'token-order': 'ok', fence: 'ok', linearizability: 'ok', deadline: 'ok' });
    expect(checks.events.filter((e) => e.process === 'log').map((e) => [e.key, e.time])).toEqual([[KEY, 14], ['payments/gate-1', 40]]);
    expect(checks.notDeadlineChecked).toEqual({ unknownToClients: 1 });
  });

  it('a holder fenced only after the expiry while it ran is a deadline violation; while paused, excused', () => {
    expect(run({ fenceAtMs: 19 }).results.find((r) => r.name === 'deadline')?.violations.map((v) => v.kind)).toEqual(['fence-after-expiry']);
    expect(run({ fenceAtMs: 19, pausedUntilMs: 16 }).results.find((r) => r.name === 'deadline')?.ok).toBe(true);
    expect(run({}).results.find((r) => r.name === 'deadline')?.violations.map((v) => v.kind)).toEqual(['fence-never-called']);
  });

  it('the negative control: the stale write taken by an unfenced resource fails the model and the fence check', () => {
    const checks = run({ fenceAtMs: 8, resource: 'unfenced' });
    expect(verdicts(checks)).toMatchObject({ linearizability: 'violated', fence: 'violated' });
  });
});
