import { describe, expect, it } from 'vitest';
import { checkFixture, lockGrantDocument } from './fixtures.js';
import { PrefixGrants } from '../authz/prefix-grants.js';
import { DEFAULT_IDENTITY_LIMITS } from '../limits.js';
import { prefixNamespace } from './grant-rules.js';

describe('LockGrant documents (ADR-19, ADR-24)', () => {
  it('accepts prefixes of the whole namespace and of paths in it', () => {
    const result = checkFixture([lockGrantDocument({ identity: 'spiffe://example.org/ledger', prefixes: ['payments/', 'payments/ledger/', 'payments/ledger-42'] })]);
    expect(result.problems).toEqual([]);
    expect(result.grants[0]?.prefixes).toEqual(['payments/', 'payments/ledger/', 'payments/ledger-42']);
  });

  it.each([
    ['pay', /is "pay"; a prefix must be a namespace, "\/"/],
    ['/payments/', /is "\/payments\/"/],
    ['Payments/', /is "Payments\/"/],
    ['payments/led ger', /is "payments\/led ger"/],
    [42, /is 42/],
  ])('reports the malformed prefix %j on its own list item', (prefix, message) => {
    const result = checkFixture([lockGrantDocument({ identity: 'x', prefixes: ['payments/ok/', prefix] })]);
    expect(result.problems).toEqual([expect.objectContaining({ field: 'spec.prefixes.1', line: 10, message: expect.stringMatching(message) })]);
    expect(result.grants).toEqual([]);
  });

  it('refuses a prefix in another namespace than the grant\'s own', () => {
    const result = checkFixture([lockGrantDocument({ identity: 'x', prefixes: ['billing/invoices/'] })]);
    expect(result.problems).toEqual([
      expect.objectContaining({ field: 'spec.prefixes.0', message: expect.stringMatching(/is in namespace billing, but this grant lives in namespace payments.*\(ADR-24\)/) }),
    ]);
  });

  it.each([
    ['an empty prefix list', { identity: 'x', prefixes: [] }, 'spec.prefixes'],
    ['no prefixes', { identity: 'x' }, 'spec.prefixes'],
    ['an identity with a space', { identity: 'spiffe://example.org/a b', prefixes: ['payments/'] }, 'spec.identity'],
    ['no identity', { prefixes: ['payments/'] }, 'spec.identity'],
  ])('reports %s', (_what, spec, field) => {
    expect(checkFixture([lockGrantDocument(spec)]).problems.map((p) => p.field)).toEqual([field]);
  });
});

describe('prefixNamespace', () => {
  it('finds the namespace segment of a well-formed prefix only', () => {
    expect(prefixNamespace('payments/')).toBe('payments');
    expect(prefixNamespace('payments/ledger/42')).toBe('payments');
    expect(prefixNamespace('payments')).toBeUndefined();
    expect(prefixNamespace('/ledger')).toBeUndefined();
    expect(prefixNamespace('pay ments/')).toBeUndefined();
  });
});

describe('LockGrant prefixes and look-alike keys (issue 18)', () => {
  it('refuses a prefix with a code point no key may contain, by the same rule as keys (core/key-characters.ts)', () => {
    const result = checkFixture([lockGrantDocument({ identity: 'x', prefixes: ['payments/ok/', 'payments/\u202Eregdel/'] })]);
    expect(result.problems).toEqual([
      expect.objectContaining({ field: 'spec.prefixes.1', message: expect.stringContaining('is "payments/\\u202eregdel/": U+202E RIGHT-TO-LEFT OVERRIDE at position 9 is a bidirectional control'), fix: 'remove it from the prefix' }),
    ]);
    expect(result.problems[0]?.message).not.toContain('\u202E');
    expect(checkFixture([lockGrantDocument({ identity: 'x', prefixes: ['payments/regdel/'] })]).problems).toEqual([]);
  });
});

describe('LockGrant limits (issue 28)', () => {
  it('accepts limits that raise or lower quotas, and the identity gets the largest each grant sets', () => {
    const result = checkFixture([
      lockGrantDocument({ identity: 'spiffe://example.org/ledger', prefixes: ['payments/'], limits: { sessions: 512, callsPerSecond: 20_000 } }),
      lockGrantDocument({ identity: 'spiffe://example.org/ledger', prefixes: ['payments/ledger/'], limits: { sessions: 300, holds: 10 } }, { name: 'ledger-second', namespace: 'payments' }),
    ]);
    expect(result.problems).toEqual([]);
    expect(result.grants[0]?.limits).toEqual({ sessions: 512, callsPerSecond: 20_000 });
    const limits = new PrefixGrants(result.grants).limitsOf('spiffe://example.org/ledger');
    expect(limits).toEqual({ ...DEFAULT_IDENTITY_LIMITS, sessions: 512, holds: 10, callsPerSecond: 20_000 });
    expect(new PrefixGrants(result.grants).limitsOf('spiffe://example.org/other')).toEqual(DEFAULT_IDENTITY_LIMITS);
  });

  it.each([
    ['an unknown limit', { sesions: 5 }],
    ['zero', { sessions: 0 }],
    ['a fraction', { holds: 1.5 }],
    ['over the bound', { waiters: 10_000_000 }],
    ['not a mapping', 100],
  ])('refuses %s, naming spec.limits', (_what, limits) => {
    const result = checkFixture([lockGrantDocument({ identity: 'x', prefixes: ['payments/'], limits })]);
    expect(result.problems.map((p) => p.field)).toEqual(['spec.limits']);
    expect(result.problems[0]?.message).toMatch(/sessions, holds, waiters, concurrentCalls, callsPerSecond, callBurst/);
  });
});
