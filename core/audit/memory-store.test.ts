import { describe, expect, it } from 'vitest';
import { clusterId, revision } from '../units.js';
import type { AuditRecord } from './events.js';
import { MemoryAuditStore } from './memory-store.js';

const ID = clusterId(7n);
const grant = (rev: bigint, identity = 'spiffe://a', observedAtMs = 1): AuditRecord => ({ kind: 'grant', revision: revision(rev), key: 'ns/k', identity, clusterId: ID, observedAtMs, timeExact: true });
const checkpoint = (rev: bigint) => ({ clusterId: ID, revision: revision(rev), epoch: 1, updatedAtMs: 0 });

describe('MemoryAuditStore', () => {
  it('keeps the first reading of an event, counts a different second reading as a conflict, and ignores when it was seen', async () => {
    const store = new MemoryAuditStore();
    await store.write({ records: [grant(5n)], gaps: [], checkpoint: checkpoint(5n) });
    await store.write({ records: [grant(5n, 'spiffe://a', 99)], gaps: [], checkpoint: checkpoint(5n) });
    expect(store.conflicts).toEqual([]);
    await store.write({ records: [grant(5n, 'spiffe://b')], gaps: [], checkpoint: checkpoint(5n) });
    expect(store.records).toEqual([grant(5n)]);
    expect(store.conflicts.map((c) => c.offered.identity)).toEqual(['spiffe://b']);
  });

  it('never moves a checkpoint back, and keeps one gap per start', async () => {
    const store = new MemoryAuditStore();
    const gap = { clusterId: ID, fromRevision: revision(3n), toRevision: revision(8n), detectedAtMs: 0 };
    await store.write({ records: [], gaps: [gap], checkpoint: checkpoint(9n) });
    await store.write({ records: [], gaps: [gap], checkpoint: checkpoint(4n) });
    expect(await store.checkpoint(ID)).toEqual(checkpoint(9n));
    expect(store.gaps).toEqual([gap]);
  });
});
