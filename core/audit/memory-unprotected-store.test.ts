import { describe, expect, it } from 'vitest';
import type { UnprotectedRecord } from '../ports/spool.js';
import { MemoryUnprotectedStore } from './memory-unprotected-store.js';

const record = (id: string, atMs: number): UnprotectedRecord => ({ id, kind: 'grant', grantId: id, arbiterId: 'a', key: 'ns/k', namespace: 'ns', className: 'c', identity: 'i', instance: '', atMs });

describe('MemoryUnprotectedStore (ADR-04)', () => {
  it('keeps a record once by id however often it is shipped, and answers since a time in (atMs, id) order', async () => {
    const store = new MemoryUnprotectedStore();
    await store.shipUnprotected([record('a/1/2', 20), record('a/1/1', 10)]);
    await store.shipUnprotected([record('a/1/2', 20), record('a/1/3', 20)]);
    expect(store.records.map((r) => r.id)).toEqual(['a/1/1', 'a/1/2', 'a/1/3']);
    expect([store.offered, store.shipments]).toEqual([4, 2]);
    expect((await store.unprotected(20)).map((r) => r.id)).toEqual(['a/1/2', 'a/1/3']);
  });
});
