import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import { checkDocuments } from './check.js';
import { documentFromValue, parseDocuments } from './documents.js';
import { advisorySpec, checkFixture, fencedSpec, lockClassDocument, lockGrantDocument, pauseTestDocument } from './fixtures.js';

const fieldsOf = (result: { problems: { field: string }[] }): string[] => result.problems.map((p) => p.field);

describe('checkDocuments: a valid set', () => {
  it('returns every valid class, pause test and grant, with defaults filled in', () => {
    const result = checkFixture([
      lockClassDocument(fencedSpec),
      pauseTestDocument(),
      lockGrantDocument({ identity: 'spiffe://example.org/ledger', prefixes: ['payments/ledger/'] }),
    ]);
    expect(result.problems).toEqual([]);
    expect(result.classes).toEqual([
      {
        namespace: 'payments',
        name: 'ledger-writes',
        purpose: 'correctness',
        enforcement: 'fenced',
        resource: 'postgresql://ledger-db/ledger.entries',
        ttlSeconds: 15,
        tier: 'entity',
        onQuorumLoss: 'closed',
        fairness: 'memory',
      },
    ]);
    expect(result.pauseTests).toEqual([
      { namespace: 'payments', name: 'ledger-writes-pause', class: 'ledger-writes', resource: fencedSpec.resource, passed: true, ranAt: '2026-11-01' },
    ]);
    expect(result.grants).toEqual([{ namespace: 'payments', name: 'ledger-writer', identity: 'spiffe://example.org/ledger', prefixes: ['payments/ledger/'] }]);
  });

  it('defaults ttlSeconds to 15 only when the field is absent; an explicit value is kept', () => {
    expect(checkFixture([lockClassDocument(fencedSpec), pauseTestDocument()]).classes[0]?.ttlSeconds).toBe(15);
    expect(checkFixture([lockClassDocument({ ...fencedSpec, ttlSeconds: 7 }), pauseTestDocument()]).classes[0]?.ttlSeconds).toBe(7);
  });

  it('leaves optional fields absent rather than undefined', () => {
    const [lockClass] = checkFixture([lockClassDocument(fencedSpec), pauseTestDocument()]).classes;
    expect(Object.keys(lockClass!)).not.toContain('riskOwner');
    expect(Object.keys(lockClass!)).not.toContain('waiverExpires');
  });

  it('refuses a today that is not a calendar date, as a programming error', () => {
    let caught: unknown;
    try {
      checkDocuments([], { today: '2026-02-30' });
    } catch (error) {
      caught = error;
    }
    expect(isLockError(caught, 'invalid-argument')).toBe(true);
  });
});

describe('checkDocuments: envelope and metadata', () => {
  it.each([
    ['apiVersion', { apiVersion: 'lockstep/v2' }, 'apiVersion', /must be lockstep\.dev\/v1/],
    ['apiVersion', { apiVersion: 'lockstep/v1' }, 'apiVersion', /is "lockstep\/v1"; it must be lockstep\.dev\/v1/],
    ['kind', { kind: 'LockClas' }, 'kind', /one of LockClass, PauseTestResult, LockGrant/],
    ['metadata', { metadata: undefined }, 'metadata', /missing/],
    ['spec', { spec: 'fenced' }, 'spec', /is "fenced"; it must be a mapping/],
    ['a top-level field', { status: {} }, 'status', /not a field of a lockstep document/],
  ])('reports a wrong %s', (_what, change, field, message) => {
    const document = { ...lockClassDocument(advisorySpec), ...change };
    const result = checkFixture([document]);
    expect(fieldsOf(result)).toEqual([field]);
    expect(result.problems[0]?.message).toMatch(message);
    expect(result.classes).toEqual([]);
  });

  it.each([
    ['name', { name: 'Ledger_Writes', namespace: 'payments' }, 'metadata.name'],
    ['name', { name: `a${'b'.repeat(63)}`, namespace: 'payments' }, 'metadata.name'],
    ['name', { name: '-ledger', namespace: 'payments' }, 'metadata.name'],
    ['namespace', { name: 'ledger-writes', namespace: 'pay/ments' }, 'metadata.namespace'],
    ['namespace', { name: 'ledger-writes' }, 'metadata.namespace'],
    ['metadata field', { name: 'ledger-writes', namespace: 'payments', labels: {} }, 'metadata.labels'],
  ])('reports a bad %s: %j', (_what, metadata, field) => {
    const result = checkFixture([lockClassDocument(advisorySpec, metadata)]);
    expect(fieldsOf(result)).toEqual([field]);
  });

  it('accepts DNS labels of 1 and 63 characters', () => {
    const result = checkFixture([
      lockClassDocument(advisorySpec, { name: 'a', namespace: 'x' }),
      lockClassDocument(advisorySpec, { name: `a${'b'.repeat(62)}`, namespace: 'team-2' }),
    ]);
    expect(result.problems).toEqual([]);
    expect(result.classes.map((c) => c.name.length)).toEqual([1, 63]);
  });

  it('names the namespace and name in every problem, with ? when the document gives none', () => {
    const result = checkFixture([{ apiVersion: 'lockstep.dev/v1', kind: 'LockClass', spec: advisorySpec }]);
    expect(result.problems.map((p) => [p.namespace, p.name, p.field])).toEqual([['?', '?', 'metadata']]);
  });

  it('reports a document that is not a mapping at all', () => {
    const result = checkDocuments(parseDocuments('just a sentence\n', 'note.yaml').documents, { today: '2026-11-30' });
    expect(result.problems).toEqual([
      expect.objectContaining({ source: 'note.yaml', line: 1, field: '(document)', message: expect.stringMatching(/must be a mapping/) }),
    ]);
  });
});

describe('checkDocuments: unknown fields', () => {
  it('refuses a misspelt field instead of defaulting, and suggests the right name', () => {
    const result = checkFixture([lockClassDocument({ ...advisorySpec, ttlSecond: 120 })]);
    expect(result.problems).toEqual([
      expect.objectContaining({ field: 'spec.ttlSecond', message: expect.stringMatching(/did you mean ttlSeconds\?/), fix: 'rename it to ttlSeconds' }),
    ]);
    expect(result.classes).toEqual([]);
  });

  it('lists the known fields when nothing is close', () => {
    const result = checkFixture([lockClassDocument({ ...advisorySpec, colour: 'blue' })]);
    expect(result.problems[0]?.fix).toMatch(/^remove it; a LockClass spec has only purpose, enforcement, resource/);
  });

  it('reports unknown fields in pause tests and grants too', () => {
    const result = checkFixture([
      pauseTestDocument({ passd: true }),
      lockGrantDocument({ identity: 'x', prefixes: ['payments/'], prefix: 'payments/' }),
    ]);
    expect(fieldsOf(result)).toEqual(['spec.passd', 'spec.prefix']);
  });
});

describe('checkDocuments: every wrong field at once', () => {
  it('reports each bad field of one document, in line order, with file and line', () => {
    const text = [
      'apiVersion: lockstep.dev/v1',
      'kind: LockClass',
      'metadata:',
      '  name: ledger-writes',
      '  namespace: payments',
      'spec:',
      '  purpose: safety',
      '  enforcement: advisory',
      '  ttlSeconds: 4',
      '  tier: global',
      '  fairness: strict',
      '',
    ].join('\n');
    const result = checkDocuments(parseDocuments(text, 'bad.yaml').documents, { today: '2026-11-30' });
    expect(result.problems.map((p) => [p.line, p.field])).toEqual([
      [6, 'spec.riskOwner'],
      [6, 'spec.waiverExpires'],
      [7, 'spec.purpose'],
      [9, 'spec.ttlSeconds'],
      [10, 'spec.tier'],
      [11, 'spec.fairness'],
    ]);
    expect(result.problems.every((p) => p.source === 'bad.yaml' && p.namespace === 'payments' && p.name === 'ledger-writes')).toBe(true);
    expect(result.problems[2]).toMatchObject({ message: 'is "safety"; it must be correctness (two holders at once cause damage) or efficiency (two holders only waste work) (ADR-01)' });
  });

  it.each([
    ['ttlSeconds', 4, /is 4; it must be a whole number of seconds in 5\.\.300 \(ADR-11\)/],
    ['ttlSeconds', 301, /is 301/],
    ['ttlSeconds', 30.5, /is 30.5/],
    ['ttlSeconds', '60', /is "60"/],
    ['waiverExpires', '2099-02-30', /calendar date/],
    ['riskOwner', '  ', /is " {2}"/],
    ['onQuorumLoss', 'fail-open', /closed .* or open/],
    ['enforcement', 'fence', /fenced .* or advisory/],
  ])('reports spec.%s = %j', (field, value, message) => {
    const result = checkFixture([lockClassDocument({ ...advisorySpec, [field]: value })]);
    expect(fieldsOf(result)).toEqual([`spec.${field}`]);
    expect(result.problems[0]?.message).toMatch(message);
  });

  it.each([5, 30, 300])('accepts ttlSeconds %d at the edges of the range', (ttlSeconds) => {
    const advisoryOrFenced = ttlSeconds < 30 ? [lockClassDocument({ ...fencedSpec, ttlSeconds }), pauseTestDocument()] : [lockClassDocument({ ...advisorySpec, ttlSeconds })];
    expect(checkFixture(advisoryOrFenced).classes[0]?.ttlSeconds).toBe(ttlSeconds);
  });

  it.each(['purpose', 'enforcement', 'tier'])('requires spec.%s', (field) => {
    const spec: Record<string, unknown> = { ...advisorySpec };
    delete spec[field];
    const result = checkFixture([lockClassDocument(spec)]);
    expect(fieldsOf(result)).toEqual([`spec.${field}`]);
    expect(result.problems[0]?.message).toMatch(/^is missing; it is required/);
  });
});

describe('checkDocuments: several documents and files', () => {
  it('judges documents from several files together and keeps each problem\'s source', () => {
    const classes = parseDocuments('apiVersion: lockstep.dev/v1\nkind: LockClass\nmetadata: {name: a, namespace: ns}\nspec: {purpose: correctness, enforcement: fenced, resource: r, tier: coord}\n', 'classes.yaml');
    const tests = parseDocuments('apiVersion: lockstep.dev/v1\nkind: PauseTestResult\nmetadata: {name: a-pause, namespace: ns}\nspec: {class: a, resource: r, passed: true, ranAt: 2026-11-29}\n', 'tests.yaml');
    const broken = parseDocuments('apiVersion: lockstep.dev/v1\nkind: LockGrant\nmetadata: {name: g, namespace: ns}\nspec: {identity: x}\n', 'grants.yaml');
    const result = checkDocuments([...classes.documents, ...tests.documents, ...broken.documents], { today: '2026-11-30' });
    expect(result.classes.map((c) => c.name)).toEqual(['a']);
    expect(result.problems.map((p) => [p.source, p.line, p.field])).toEqual([['grants.yaml', 4, 'spec.prefixes']]);
  });

  it('reports every copy of a class defined twice, across files, and returns neither', () => {
    const one = parseDocuments(`apiVersion: lockstep.dev/v1\nkind: LockClass\nmetadata: {name: a, namespace: ns}\nspec: {purpose: efficiency, enforcement: advisory, riskOwner: o, waiverExpires: 2099-01-01, ttlSeconds: 30, tier: coord}\n`, 'one.yaml');
    const two = parseDocuments(`# copy\napiVersion: lockstep.dev/v1\nkind: LockClass\nmetadata:\n  name: a\n  namespace: ns\nspec: {purpose: efficiency, enforcement: advisory, riskOwner: o, waiverExpires: 2099-01-01, ttlSeconds: 60, tier: coord}\n`, 'two.yaml');
    const result = checkDocuments([...one.documents, ...two.documents], { today: '2026-11-30' });
    expect(result.classes).toEqual([]);
    expect(result.problems.map((p) => [p.source, p.line, p.field])).toEqual([
      ['one.yaml', 3, 'metadata.name'],
      ['two.yaml', 5, 'metadata.name'],
    ]);
    expect(result.problems[0]?.message).toMatch(/defined 2 times \(also at two\.yaml:5\)/);
    expect(result.problems[1]?.message).toMatch(/also at one\.yaml:3/);
  });

  it('does not confuse a class and a grant of the same name, or classes of one name in two namespaces', () => {
    const result = checkFixture([
      lockClassDocument(advisorySpec, { name: 'ledger', namespace: 'payments' }),
      lockClassDocument(advisorySpec, { name: 'ledger', namespace: 'billing' }),
      lockGrantDocument({ identity: 'x', prefixes: ['payments/'] }, { name: 'ledger', namespace: 'payments' }),
    ]);
    expect(result.problems).toEqual([]);
    expect(result.classes).toHaveLength(2);
  });

  it('omits the line for documents built in code', () => {
    const result = checkDocuments([documentFromValue(lockClassDocument({ ...advisorySpec, tier: 'x' }), 'scenario')], { today: '2026-11-30' });
    expect(result.problems).toHaveLength(1);
    expect(result.problems[0]).not.toHaveProperty('line');
    expect(result.problems[0]?.source).toBe('scenario');
  });
});
