import { describe, expect, it } from 'vitest';
import { isLockError } from '../lock-error.js';
import { checkFixture, fencedSpec, lockClassDocument, pauseTestDocument } from './fixtures.js';
import type { LockClass } from './model.js';
import { ClassRegistry } from './registry.js';

const base: LockClass = { namespace: 'payments', name: 'ledger-writes', purpose: 'correctness', enforcement: 'advisory', riskOwner: 'o', waiverExpires: '2099-12-31', ttlSeconds: 30, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' };

describe('ClassRegistry', () => {
  it('finds a class by namespace and name, and nothing under another namespace', () => {
    const registry = new ClassRegistry([base, { ...base, namespace: 'billing', ttlSeconds: 60 }]);
    expect(registry.get('payments', 'ledger-writes')?.ttlSeconds).toBe(30);
    expect(registry.get('billing', 'ledger-writes')?.ttlSeconds).toBe(60);
    expect(registry.get('search', 'ledger-writes')).toBeUndefined();
    expect(registry.get('payments', 'ledger')).toBeUndefined();
  });

  it('lists classes by namespace and then name, whatever the input order', () => {
    const registry = new ClassRegistry([{ ...base, name: 'b' }, { ...base, namespace: 'alpha', name: 'z' }, { ...base, name: 'a' }]);
    expect(registry.list().map((c) => `${c.namespace}/${c.name}`)).toEqual(['alpha/z', 'payments/a', 'payments/b']);
    expect(registry.size).toBe(3);
  });

  it('is not changed by changes to its input or to a returned list', () => {
    const input = [{ ...base }];
    const registry = new ClassRegistry(input);
    input[0]!.ttlSeconds = 300;
    registry.list().pop();
    expect(registry.get('payments', 'ledger-writes')?.ttlSeconds).toBe(30);
    expect(registry.list()).toHaveLength(1);
  });

  it('refuses the same class twice', () => {
    let caught: unknown;
    try {
      new ClassRegistry([base, { ...base }]);
    } catch (error) {
      caught = error;
    }
    expect(isLockError(caught, 'invalid-argument')).toBe(true);
  });

  it('serves what checkDocuments returns', () => {
    const { classes } = checkFixture([lockClassDocument(fencedSpec), pauseTestDocument()]);
    expect(new ClassRegistry(classes).get('payments', 'ledger-writes')?.enforcement).toBe('fenced');
  });
});
