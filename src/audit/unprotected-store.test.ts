import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { UnprotectedRecord } from '../../core/ports/spool.js';
import { prepareAuditDb, withAuditDb } from './duckdb-file.js';
import { DuckDbUnprotectedStore, unprotectedGrantsIn } from './unprotected-store.js';

const dir = mkdtempSync(join(tmpdir(), 'lockstep-unprotected-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 11, 6, 7, 0);

function record(seq: number, kind: 'grant' | 'end', grantSeq = seq, arbiterId = 'arbiter-a'): UnprotectedRecord {
  const id = `${arbiterId}/1/${seq}`;
  return { id, kind, grantId: `${arbiterId}/1/${grantSeq}`, arbiterId, key: 'cache/warm-7', namespace: 'cache', className: 'warmer', identity: 'spiffe://example.org/warmer', instance: 'pod-1', atMs: T0 + seq * 1000, ...(kind === 'end' ? { endReason: 'release' as const } : {}) };
}

describe('DuckDbUnprotectedStore', () => {
  it('stores each record once however often it is shipped, and reads back since a time in order', async () => {
    const store = new DuckDbUnprotectedStore(join(dir, 'ship.duckdb'));
    await store.shipUnprotected([record(1, 'grant'), record(2, 'grant'), record(2, 'grant')]); // a record twice in one shipment
    await store.shipUnprotected([record(1, 'grant'), record(2, 'grant'), record(3, 'end', 1)]); // a crash mid-ship, shipped again
    expect(await store.unprotected(0)).toEqual([record(1, 'grant'), record(2, 'grant'), record(3, 'end', 1)]);
    expect(await store.unprotected(T0 + 2000)).toEqual([record(2, 'grant'), record(3, 'end', 1)]);
    const count = await withAuditDb(store.path, 'read', async (c) => (await c.runAndReadAll('SELECT count(*) AS n FROM audit_unprotected')).getRowObjects());
    expect(count).toEqual([{ n: 3n }]);
  });

  it('reads nothing from a store made before the table existed, and adds the table on its first shipment', async () => {
    const path = join(dir, 'older.duckdb');
    await prepareAuditDb(path, 'write');
    await withAuditDb(path, 'write', (c) => c.run('DROP TABLE audit_unprotected'));
    const store = new DuckDbUnprotectedStore(path);
    expect(await store.unprotected(0)).toEqual([]);
    await store.shipUnprotected([record(1, 'grant')]);
    expect(await store.unprotected(0)).toEqual([record(1, 'grant')]);
  });

  it('lists the grants that touch a window, with their ends, and not those that ended before it', async () => {
    const store = new DuckDbUnprotectedStore(join(dir, 'window.duckdb'));
    // grant 1 ends at 3 (before the window), grant 2 ends at 6 (inside), grant 4 never ends, grant 9 starts after it.
    await store.shipUnprotected([record(1, 'grant'), record(2, 'grant'), record(3, 'end', 1), record(4, 'grant'), record(6, 'end', 2), record(9, 'grant')]);
    const inWindow = await withAuditDb(store.path, 'read', (c) => unprotectedGrantsIn(c, T0 + 5000, T0 + 8000, 100));
    expect(inWindow.map((r) => r.id)).toEqual(['arbiter-a/1/2', 'arbiter-a/1/4', 'arbiter-a/1/6']);
    const limited = await withAuditDb(store.path, 'read', (c) => unprotectedGrantsIn(c, 0, T0 + 100_000, 1));
    expect(limited.map((r) => r.id)).toEqual(['arbiter-a/1/1', 'arbiter-a/1/3']);
  });
});
