import { describe, expect, it } from 'vitest';
import { MemoryUnprotectedStore } from '../audit/memory-unprotected-store.js';
import type { Spool, UnprotectedRecord } from '../ports/spool.js';
import { endOf, orphanedGrants, shipSpool } from './unprotected-shipping.js';

const grant = (id: string): UnprotectedRecord => ({ id, kind: 'grant', grantId: id, arbiterId: 'a', key: 'cache/k', namespace: 'cache', className: 'warm', identity: 'i', instance: '', atMs: 1 });

function arraySpool(records: UnprotectedRecord[]): Spool & { records: UnprotectedRecord[] } {
  return {
    records,
    append(record) {
      this.records.push(record);
      return Promise.resolve();
    },
    read() {
      return Promise.resolve([...this.records]);
    },
    truncate(throughId) {
      this.records = this.records.slice(this.records.findIndex((r) => r.id === throughId) + 1);
      return Promise.resolve();
    },
  };
}

describe('shipping the spool (ADR-04)', () => {
  it('finds the grants with no end that nobody holds any more', () => {
    const records = [grant('a/1/1'), endOf(grant('a/1/1'), 'a/1/2', 2, 'release'), grant('a/1/3'), grant('a/1/4')];
    expect(orphanedGrants(records, new Set(['a/1/4'])).map((r) => r.id)).toEqual(['a/1/3']);
  });

  it('ends the lost grants, ships everything, truncates, and a repeat ships nothing new', async () => {
    const spool = arraySpool([grant('a/1/1')]);
    const store = new MemoryUnprotectedStore();
    const deps = { spool, store, stillHeld: new Set<string>(), endLost: (g: UnprotectedRecord) => spool.append(endOf(g, 'a/2/1', 9, 'recovery')) };
    expect(await shipSpool(deps)).toBe(2);
    expect(spool.records).toEqual([]);
    expect(store.records.map((r) => [r.id, r.endReason ?? ''])).toEqual([['a/1/1', ''], ['a/2/1', 'recovery']]);
    expect(await shipSpool(deps)).toBe(0);
    expect(store.shipments).toBe(1);
  });
});
