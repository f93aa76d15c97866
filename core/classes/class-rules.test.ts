import { describe, expect, it } from 'vitest';
import { advisorySpec, checkFixture, fencedSpec, lockClassDocument, pauseTestDocument } from './fixtures.js';

const problemsOf = (...args: Parameters<typeof checkFixture>) => checkFixture(...args).problems.map((p) => ({ field: p.field, message: p.message }));

describe('fenced needs a resource (ADR-17)', () => {
  it('accepts a fenced class with its resource and pause test', () => {
    expect(problemsOf([lockClassDocument(fencedSpec), pauseTestDocument()])).toEqual([]);
  });

  it('reports a fenced class without a resource once, on spec.resource', () => {
    const { resource: _resource, ...spec } = fencedSpec;
    expect(problemsOf([lockClassDocument(spec)])).toEqual([{ field: 'spec.resource', message: expect.stringMatching(/^is missing; a fenced class must name the resource/) }]);
  });

  it('lets an advisory class omit the resource', () => {
    const { resource: _resource, ...spec } = advisorySpec as Record<string, unknown>;
    expect(problemsOf([lockClassDocument(spec)])).toEqual([]);
  });
});

describe('fenced needs a passing pause test under a year old (ADR-17)', () => {
  const fenced = lockClassDocument(fencedSpec);

  it('reports a fenced class with no pause test at all', () => {
    expect(problemsOf([fenced])).toEqual([
      { field: 'spec.enforcement', message: 'is fenced, but no PauseTestResult for class payments/ledger-writes is among the documents checked (ADR-17)' },
    ]);
  });

  it.each([
    ['2025-12-01', 364, true],
    ['2025-11-30', 365, false],
    ['2026-11-30', 0, true],
  ])('a result from %s, %d days before 2026-11-30, counts: %s', (ranAt, _ageDays, counts) => {
    const problems = problemsOf([fenced, pauseTestDocument({ ranAt })], '2026-11-30');
    if (counts) expect(problems).toEqual([]);
    else expect(problems).toEqual([{ field: 'spec.enforcement', message: expect.stringContaining(`ran on ${ranAt}, 365 days before today; results count for 365 days`) }]);
  });

  it('measures the year across a leap day by calendar days (2024-02-29 to 2025-02-28 is 365 days)', () => {
    expect(problemsOf([fenced, pauseTestDocument({ ranAt: '2024-03-01' })], '2025-02-28')).toEqual([]);
    expect(problemsOf([fenced, pauseTestDocument({ ranAt: '2024-02-29' })], '2025-02-28')).toHaveLength(1);
  });

  it('uses the newest passing result when there are several', () => {
    const old = pauseTestDocument({ ranAt: '2024-01-10' }, { name: 'old', namespace: 'payments' });
    const fresh = pauseTestDocument({ ranAt: '2026-06-01' }, { name: 'fresh', namespace: 'payments' });
    expect(problemsOf([fenced, old, fresh])).toEqual([]);
  });

  it('refuses a result for another resource, and says which one it tested', () => {
    const problems = problemsOf([fenced, pauseTestDocument({ resource: 'postgresql://staging/ledger.entries' })]);
    expect(problems).toEqual([{ field: 'spec.enforcement', message: expect.stringMatching(/ran against postgresql:\/\/staging\/ledger\.entries, not against postgresql:\/\/ledger-db\/ledger\.entries/) }]);
  });

  it('refuses a failed result, and says it failed', () => {
    const problems = problemsOf([fenced, pauseTestDocument({ passed: false })]);
    expect(problems).toEqual([{ field: 'spec.enforcement', message: expect.stringMatching(/pause test ledger-writes-pause failed on 2026-11-01: the resource accepted a stale write/) }]);
  });

  it('refuses a result for another class, or from another namespace', () => {
    expect(problemsOf([fenced, pauseTestDocument({ class: 'ledger-reads' })])).toHaveLength(1);
    expect(problemsOf([fenced, pauseTestDocument({}, { name: 'ledger-writes-pause', namespace: 'billing' })])).toHaveLength(1);
  });

  it('does not count a result that is itself invalid (dated after today)', () => {
    const problems = checkFixture([fenced, pauseTestDocument({ ranAt: '2026-12-01' })], '2026-11-30').problems;
    expect(problems.map((p) => [p.name, p.field])).toEqual([
      ['ledger-writes', 'spec.enforcement'],
      ['ledger-writes-pause', 'spec.ranAt'],
    ]);
  });

  it('asks nothing of an advisory class', () => {
    expect(problemsOf([lockClassDocument(advisorySpec)])).toEqual([]);
  });
});

describe('advisory needs a risk owner and a current waiver (ADR-01)', () => {
  it.each(['riskOwner', 'waiverExpires'])('reports an advisory class without %s', (field) => {
    const spec: Record<string, unknown> = { ...advisorySpec };
    delete spec[field];
    expect(problemsOf([lockClassDocument(spec)])).toEqual([{ field: `spec.${field}`, message: expect.stringMatching(/^is missing; an advisory class .*\(ADR-01\)$/) }]);
  });

  it('applies to efficiency classes too, as the ADR\'s admission webhook does', () => {
    const { riskOwner: _owner, ...spec } = { ...advisorySpec, purpose: 'efficiency' };
    expect(problemsOf([lockClassDocument(spec)]).map((p) => p.field)).toEqual(['spec.riskOwner']);
  });

  it('accepts a waiver through its last day, and refuses it the day after', () => {
    const spec = { ...advisorySpec, waiverExpires: '2026-11-30' };
    expect(problemsOf([lockClassDocument(spec)], '2026-11-30')).toEqual([]);
    expect(problemsOf([lockClassDocument(spec)], '2026-12-01')).toEqual([
      { field: 'spec.waiverExpires', message: 'is 2026-11-30, which has passed (today is 2026-12-01); an advisory class needs a current waiver (ADR-01)' },
    ]);
  });
});

describe('TTL: platform range with an advisory floor (ADR-11)', () => {
  it('accepts an advisory class at exactly 30 s and refuses 29 s', () => {
    expect(problemsOf([lockClassDocument({ ...advisorySpec, ttlSeconds: 30 })])).toEqual([]);
    expect(problemsOf([lockClassDocument({ ...advisorySpec, ttlSeconds: 29 })])).toEqual([
      { field: 'spec.ttlSeconds', message: expect.stringMatching(/^is 29 s below the 30 s floor for advisory classes/) },
    ]);
  });

  it('refuses an advisory class relying on the 15 s default, and says the default is why', () => {
    const { ttlSeconds: _ttl, ...spec } = advisorySpec;
    expect(problemsOf([lockClassDocument(spec)])).toEqual([
      { field: 'spec.ttlSeconds', message: expect.stringMatching(/^is not set, so it takes the 15 s default, which is below the 30 s floor/) },
    ]);
  });

  it('lets a fenced class go as short as 5 s', () => {
    expect(problemsOf([lockClassDocument({ ...fencedSpec, ttlSeconds: 5 }), pauseTestDocument()])).toEqual([]);
  });
});

describe('onQuorumLoss: open only for efficiency, never fenced (ADR-04)', () => {
  it('accepts open on an advisory efficiency class', () => {
    const result = checkFixture([lockClassDocument({ ...advisorySpec, purpose: 'efficiency', onQuorumLoss: 'open' })]);
    expect(result.problems).toEqual([]);
    expect(result.classes[0]?.onQuorumLoss).toBe('open');
  });

  it('refuses open on a correctness class', () => {
    expect(problemsOf([lockClassDocument({ ...advisorySpec, onQuorumLoss: 'open' })])).toEqual([
      { field: 'spec.onQuorumLoss', message: expect.stringMatching(/^is open, but a correctness class must fail closed: .*\(ADR-04\)$/) },
    ]);
  });

  it('refuses open on a fenced efficiency class', () => {
    expect(problemsOf([lockClassDocument({ ...fencedSpec, purpose: 'efficiency', onQuorumLoss: 'open' }), pauseTestDocument()])).toEqual([
      { field: 'spec.onQuorumLoss', message: expect.stringMatching(/never allowed with enforcement: fenced/) },
    ]);
  });

  it('reports both rules for a fenced correctness class that fails open', () => {
    expect(problemsOf([lockClassDocument({ ...fencedSpec, onQuorumLoss: 'open' }), pauseTestDocument()]).map((p) => p.field)).toEqual(['spec.onQuorumLoss', 'spec.onQuorumLoss']);
  });

  it('accepts closed explicitly on any class', () => {
    expect(problemsOf([lockClassDocument({ ...fencedSpec, onQuorumLoss: 'closed', fairness: 'durable' }), pauseTestDocument()])).toEqual([]);
  });
});
