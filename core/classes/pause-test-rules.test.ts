import { describe, expect, it } from 'vitest';
import { checkFixture, pauseTestDocument } from './fixtures.js';

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

  it('refuses a result dated after today', () => {
    const result = checkFixture([pauseTestDocument({ ranAt: '2026-12-01' })], '2026-11-30');
    expect(result.pauseTests).toEqual([]);
    expect(result.problems).toEqual([expect.objectContaining({ field: 'spec.ranAt', message: expect.stringMatching(/^is 2026-12-01, after today \(2026-11-30\)/) })]);
  });

  it.each([
    ['passed', 'yes', /is "yes"; it must be true or false/],
    ['ranAt', '2026-11-31', /it must be the date of the run, YYYY-MM-DD/],
    ['class', 'Ledger', /LockClass name/],
    ['resource', '', /^is ""; it must be the resource the test ran against/],
  ])('reports spec.%s = %j', (field, value, message) => {
    const result = checkFixture([pauseTestDocument({ [field]: value })]);
    expect(result.problems.map((p) => p.field)).toEqual([`spec.${field}`]);
    expect(result.problems[0]?.message).toMatch(message);
  });
});
