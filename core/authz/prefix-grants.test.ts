import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LockGrant } from '../classes/model.js';
import { PrefixGrants, namespaceGrant } from './prefix-grants.js';

const writer = 'spiffe://example.org/ns/payments/sa/ledger-writer';
const operator = 'spiffe://example.org/ns/payments/sa/operator';
const grants: LockGrant[] = [
  { namespace: 'payments', name: 'ledger-writer', identity: writer, prefixes: ['payments/ledger/', 'payments/settlement/daily/'] },
  { namespace: 'payments', name: 'ledger-archive', identity: writer, prefixes: ['payments/ledger/archive/'] },
  { namespace: 'payments', name: 'operator', identity: operator, prefixes: ['payments/'] },
];

describe('PrefixGrants (ADR-19)', () => {
  const authz = new PrefixGrants(grants);

  it('allows keys under a granted prefix', () => {
    expect(authz.allows(writer, 'payments/ledger/42')).toBe(true);
    expect(authz.allows(writer, 'payments/settlement/daily/2026-11-30')).toBe(true);
    expect(authz.allows(operator, 'payments/anything/at/all')).toBe(true);
  });

  it('denies keys outside the identity\'s prefixes, in its namespace and in others', () => {
    expect(authz.allows(writer, 'payments/settlement/monthly/2026-11')).toBe(false);
    expect(authz.allows(writer, 'payments/')).toBe(false);
    expect(authz.allows(writer, 'billing/ledger/42')).toBe(false);
    expect(authz.allows(operator, 'billing/invoices/1')).toBe(false);
    expect(authz.matchingGrant(writer, 'billing/ledger/42')).toBeUndefined();
  });

  it('denies an identity with no grants, for every key', () => {
    expect(authz.allows('spiffe://example.org/ns/billing/sa/x', 'payments/ledger/42')).toBe(false);
    expect(authz.prefixesOf('spiffe://example.org/ns/billing/sa/x')).toEqual([]);
  });

  it('never lets one identity\'s grants serve another', () => {
    expect(authz.allows(writer.toUpperCase(), 'payments/ledger/42')).toBe(false);
    expect(authz.allows(`${writer}/`, 'payments/ledger/42')).toBe(false);
  });

  it('reports the longest matching prefix and the grant it came from', () => {
    expect(authz.matchingGrant(writer, 'payments/ledger/archive/2019')).toEqual({ prefix: 'payments/ledger/archive/', grant: grants[1] });
    expect(authz.matchingGrant(writer, 'payments/ledger/42')).toEqual({ prefix: 'payments/ledger/', grant: grants[0] });
  });

  it('treats prefixes as plain strings, as etcd RBAC does: payments/ledger covers payments/ledger-archive', () => {
    const plain = new PrefixGrants([{ namespace: 'payments', name: 'g', identity: writer, prefixes: ['payments/ledger'] }]);
    expect(plain.allows(writer, 'payments/ledger/42')).toBe(true);
    expect(plain.allows(writer, 'payments/ledger-archive')).toBe(true);
    expect(plain.allows(writer, 'payments/ledge')).toBe(false);
  });

  it('lists an identity\'s prefixes and the identities in order', () => {
    expect(authz.prefixesOf(writer)).toEqual(['payments/ledger/', 'payments/ledger/archive/', 'payments/settlement/daily/']);
    expect(authz.identities()).toEqual([writer, operator].sort());
  });

  it('agrees with a linear scan of the grants for any identity and key', () => {
    const identities = ['a', 'b', 'c'];
    const segment = fc.string({ unit: fc.constantFrom('x', 'y', '/'), maxLength: 5 });
    const grantArb = fc.record({ identity: fc.constantFrom(...identities), prefixes: fc.array(segment.map((s) => `ns/${s}`), { maxLength: 4 }) });
    fc.assert(
      fc.property(fc.array(grantArb, { maxLength: 8 }), fc.constantFrom(...identities), segment, (specs, identity, path) => {
        const lockGrants = specs.map((spec, i) => ({ namespace: 'ns', name: `g${i}`, ...spec }));
        const key = `ns/${path}`;
        const candidates = lockGrants.filter((g) => g.identity === identity).flatMap((g) => g.prefixes.filter((p) => key.startsWith(p)));
        const longest = candidates.reduce<string | undefined>((best, p) => (best === undefined || p.length > best.length ? p : best), undefined);
        const authz = new PrefixGrants(lockGrants);
        expect(authz.allows(identity, key)).toBe(longest !== undefined);
        expect(authz.matchingGrant(identity, key)?.prefix).toBe(longest);
      }),
      { numRuns: 300 },
    );
  });
});

describe('namespaceGrant', () => {
  it('grants exactly the class\'s namespace, and no namespace that merely starts with its name', () => {
    const grant = namespaceGrant(writer, 'payments');
    expect(grant).toMatchObject({ namespace: 'payments', identity: writer, prefixes: ['payments/'] });
    const authz = new PrefixGrants([grant]);
    expect(authz.allows(writer, 'payments/ledger/1')).toBe(true);
    expect(authz.allows(writer, 'payments-eu/ledger/1')).toBe(false);
    expect(authz.allows(writer, 'payroll/x')).toBe(false);
  });
});
