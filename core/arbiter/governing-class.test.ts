import { describe, expect, it } from 'vitest';
import { ClassRegistry } from '../classes/registry.js';
import type { LockClass } from '../classes/model.js';
import { LockError } from '../lock-error.js';
import { parseLockKey } from '../lock-key.js';
import { governingClass } from './governing-class.js';

const cls = (namespace: string, name: string, ttlSeconds = 15): LockClass => ({ namespace, name, purpose: 'correctness', enforcement: 'fenced', resource: 'db://x', ttlSeconds, tier: 'entity', onQuorumLoss: 'closed', fairness: 'memory' });
const registry = new ClassRegistry([cls('orders', 'writes'), cls('billing', 'runs', 30), cls('billing', 'exports', 60)]);

function refusal(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof LockError) return { code: error.code, message: error.message };
  }
  throw new Error('expected a LockError');
}

describe('governingClass (issue 29, ADR-24)', () => {
  it('answers the namespace\'s only class when none is named, and the named one otherwise', () => {
    expect(governingClass(registry, parseLockKey('orders/o-1'), '').name).toBe('writes');
    expect(governingClass(registry, parseLockKey('billing/b-1'), 'exports').ttlSeconds).toBe(60);
  });

  it('refuses to guess between several classes, naming them, and names a class that does not exist', () => {
    const several = refusal(() => governingClass(registry, parseLockKey('billing/b-1'), ''));
    expect(several.code).toBe('invalid-argument');
    expect(several.message).toContain('exports, runs');
    expect(refusal(() => governingClass(registry, parseLockKey('orders/o-1'), 'nope')).code).toBe('unknown-class');
    expect(refusal(() => governingClass(registry, parseLockKey('inventory/i-1'), '')).code).toBe('unknown-class');
  });
});
