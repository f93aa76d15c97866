import { describe, expect, it } from 'vitest';
import { clusterId, revision } from '../units.js';
import type { AuditRecord } from './events.js';
import { MemoryAuditStore } from './memory-store.js';
import type { AuditBatch, AuditStore } from './store.js';
import { Unwritten } from './unwritten.js';

const ID = clusterId(3n);
const grant = (rev: bigint): AuditRecord => ({ kind: 'grant', revision: revision(rev), key: 'ns/k', clusterId: ID, observedAtMs: 0, timeExact: true });
const checkpoint = (rev: bigint) => () => ({ clusterId: ID, revision: revision(rev), epoch: 1, updatedAtMs: 0 });

describe('Unwritten', () => {
  it('puts everything back, in order, when a write fails, and writes it with the next flush', async () => {
    const inner = new MemoryAuditStore();
    let fail = true;
    const batches: AuditBatch[] = [];
    const store: AuditStore = { write: (b) => (fail ? Promise.reject(new Error('disk full')) : (batches.push(b), inner.write(b))), checkpoint: (id) => inner.checkpoint(id) };
    const unwritten = new Unwritten(store);
    unwritten.addRecords([grant(5n)]);
    await expect(unwritten.flush(checkpoint(5n))).rejects.toThrow('disk full');
    unwritten.addRecords([grant(6n)]);
    fail = false;
    expect(await unwritten.flush(checkpoint(6n))).toMatchObject({ records: 2, gaps: 0 });
    expect(batches.map((b) => b.records.map((r) => r.revision))).toEqual([[5n, 6n]]);
    expect(unwritten.checkpointed).toBe(6n);
  });

  it('writes nothing when nothing changed, or when it may not', async () => {
    const store = new MemoryAuditStore();
    const unwritten = new Unwritten(store);
    expect(await unwritten.flush(checkpoint(4n))).toBeDefined(); // a new checkpoint alone is worth a write
    expect(await unwritten.flush(checkpoint(4n))).toBeUndefined();
    unwritten.addRecords([grant(7n)]);
    expect(await unwritten.flush(() => undefined)).toBeUndefined();
    expect(store.writes).toBe(1);
  });
});
