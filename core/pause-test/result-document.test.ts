import { describe, expect, it } from 'vitest';
import { checkDocuments, type LockClass, parseDocuments } from '../classes/index.js';
import type { FencingToken } from '../units.js';
import type { PauseTestReport } from './procedure.js';
import { defaultResultName, pauseTestResultYaml } from './result-document.js';

const lockClass: LockClass = { namespace: 'payments', name: 'ledger-writes', purpose: 'correctness', enforcement: 'fenced', resource: 'postgresql://ledger-db/ledger.entries', ttlSeconds: 10, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };
const CLASS_YAML = `apiVersion: lockstep.dev/v1
kind: LockClass
metadata: {name: ledger-writes, namespace: payments}
spec: {purpose: correctness, enforcement: fenced, resource: "postgresql://ledger-db/ledger.entries", ttlSeconds: 10, tier: entity}
`;
const token = (n: bigint): FencingToken => n as FencingToken;
const passing: PauseTestReport = {
  passed: true,
  summary: 'the resource refused the stale write at 1 pause point (before)',
  durationMs: 21_400,
  trials: [
    { number: 1, point: 'before', verdict: 'pass', reason: 'refused', firstToken: token(281474976710661n), secondToken: token(281474976710663n) },
    { number: 2, point: 'after', verdict: 'pass', reason: 'stands', firstToken: token(281474976710665n), secondToken: token(281474976710667n) },
  ],
};

function check(resultYaml: string, today = '2026-11-02') {
  const documents = [...parseDocuments(CLASS_YAML, 'ledger-writes.yaml').documents, ...parseDocuments(resultYaml, 'pause-test.yaml').documents];
  return checkDocuments(documents, { today });
}

describe('the PauseTestResult a passing run writes (ADR-17)', () => {
  const yaml = pauseTestResultYaml({ lockClass, resource: lockClass.resource as string, ranAt: '2026-11-01T12:00:00Z', report: passing, write: 'PostgreSQL reference fence' });

  it('is accepted by class check for its class and resource, with an RFC 3339 ranAt', () => {
    expect(check(yaml).problems).toEqual([]);
    expect(check(yaml).pauseTests).toEqual([{ namespace: 'payments', name: 'ledger-writes-2026-11-01', class: 'ledger-writes', resource: 'postgresql://ledger-db/ledger.entries', passed: true, ranAt: '2026-11-01T12:00:00Z' }]);
  });

  it('negative control: the same document for another resource does not back the class', () => {
    const elsewhere = pauseTestResultYaml({ lockClass, resource: 'postgresql://staging/ledger.entries', ranAt: '2026-11-01T12:00:00Z', report: passing, write: 'x' });
    expect(check(elsewhere).problems.map((p) => p.message)).toEqual([expect.stringMatching(/its pause tests ran against postgresql:\/\/staging\/ledger.entries, not against postgresql:\/\/ledger-db/)]);
  });

  it('says what the run showed, in comments above the document', () => {
    expect(yaml).toMatch(/^# Written by lockstep pause-test \(ADR-17\) at 2026-11-01T12:00:00Z, in 21.4 s\./);
    expect(yaml).toContain('# Trial 1, paused at "before": pass: refused (first holder token 281474976710661, second 281474976710663).');
    expect(yaml).toContain('ranAt: "2026-11-01T12:00:00Z"');
  });

  it('is never written for a failing run', () => {
    expect(() => pauseTestResultYaml({ lockClass, resource: 'r', ranAt: '2026-11-01T12:00:00Z', report: { ...passing, passed: false }, write: 'x' })).toThrow(/did not pass/);
  });

  it('names itself after the class and the day, cut to a DNS label', () => {
    expect(defaultResultName('ledger-writes', '2026-11-01T12:00:00Z')).toBe('ledger-writes-2026-11-01');
    const long = defaultResultName(`${'a'.repeat(50)}-${'b'.repeat(12)}`, '2026-11-01T12:00:00Z');
    expect([long.length <= 63, long.endsWith('-2026-11-01'), /--/.test(long)]).toEqual([true, true, false]);
  });
});
