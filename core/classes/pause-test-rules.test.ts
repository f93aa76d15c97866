import { describe, expect, it } from 'vitest';
import { checkFixture, fencedSpec, lockClassDocument, pauseTestDocument } from './fixtures.js';

describe('PauseTestResult documents (ADR-17)', () => {
  it('accepts a result from today or earlier, passed or failed', () => {
    const result = checkFixture([
      pauseTestDocument({ ranAt: '2026-11-30' }, { name: 'today', namespace: 'payments' }),
      pauseTestDocument({ ranAt: '2019-01-01', passed: false }, { name: 'long-ago', namespace: 'payments' }),
    ]);
    expect(result.problems).toEqual([]);
    expect(result.pauseTests.map((t) => [t.name, t.passed])).toEqual([
      ['today', true],
      ['long-ago', false],
    ]);
  });

  it('accepts ranAt as an RFC 3339 timestamp, the form Kubernetes writes, and counts its age from its UTC day (issue 14)', () => {
    const fenced = lockClassDocument(fencedSpec);
    expect(checkFixture([fenced, pauseTestDocument({ ranAt: '2026-10-01T12:00:00Z' })]).problems).toEqual([]);
    expect(checkFixture([pauseTestDocument({ ranAt: '2026-11-30T23:30:00-02:00' })], '2026-11-30').problems.map((p) => p.message)).toEqual([
      'is 2026-11-30T23:30:00-02:00, after today (2026-11-30); a result cannot come from a run that has not happened',
    ]);
    expect(checkFixture([fenced, pauseTestDocument({ ranAt: '2025-11-30T12:00:00Z' })], '2026-11-30').problems.map((p) => p.message)).toEqual([
      'is fenced, but its newest passing pause test ledger-writes-pause ran on 2025-11-30T12:00:00Z, 365 days before today; results count for 365 days (ADR-17)',
    ]);
  });

  it('reports an invalid result as invalid, and the class it was for as relying on it, not as having none (issue 14)', () => {
    const problems = checkFixture([lockClassDocument(fencedSpec), pauseTestDocument({ ranAt: 'last tuesday' })]).problems;
    expect(problems.map((p) => [p.name, p.field])).toEqual([
      ['ledger-writes', 'spec.enforcement'],
      ['ledger-writes-pause', 'spec.ranAt'],
    ]);
    expect(problems[0]?.message).toBe('is fenced, but its PauseTestResult ledger-writes-pause (classes.yaml:15) is invalid, so cannot back it (ADR-17)');
    expect(problems.some((p) => /no PauseTestResult/.test(p.message))).toBe(false);
  });

  it('still reports a class with no result at all as having none, and a valid current result as enough beside an invalid one', () => {
    expect(checkFixture([lockClassDocument(fencedSpec)]).problems[0]?.message).toMatch(/no PauseTestResult for class payments\/ledger-writes is among the documents checked/);
    const beside = checkFixture([lockClassDocument(fencedSpec), pauseTestDocument(), pauseTestDocument({ passed: 'yes' }, { name: 'typo', namespace: 'payments' })]).problems;
    expect(beside.map((p) => [p.name, p.field])).toEqual([['typo', 'spec.passed']]);
  });

  it('refuses a result dated after today', () => {
    const result = checkFixture([pauseTestDocument({ ranAt: '2026-12-01' })], '2026-11-30');
    expect(result.pauseTests).toEqual([]);
    expect(result.problems).toEqual([expect.objectContaining({ field: 'spec.ranAt', message: expect.stringMatching(/^is 2026-12-01, after today \(2026-11-30\)/) })]);
  });

  it.each([
    ['passed', 'yes', /is "yes"; it must be true or false/],
    ['ranAt', '2026-11-31', /it must be the date or time of the run: YYYY-MM-DD, or an RFC 3339 timestamp/],
    ['ranAt', '2026-10-01T12:00:00', /it must be the date or time of the run/],
    ['class', 'Ledger', /LockClass name/],
    ['resource', '', /^is ""; it must be the resource the test ran against/],
  ])('reports spec.%s = %j', (field, value, message) => {
    const result = checkFixture([pauseTestDocument({ [field]: value })]);
    expect(result.problems.map((p) => p.field)).toEqual([`spec.${field}`]);
    expect(result.problems[0]?.message).toMatch(message);
  });
});
