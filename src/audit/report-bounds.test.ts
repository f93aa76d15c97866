// `audit report` started after the fact (issue 29): a hold whose grant and end were both read while
// catching up was shown as "~1 ms" (the tailer's reading speed). The log keeps no wall times, so its
// duration is unknown and the report says so; a hold with one end seen live is a bound, said as one. The
// control: a hold seen live at both ends keeps its measured duration.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../core/audit/events.js';
import { packToken } from '../../core/token.js';
import { clusterId, leaseId, revision } from '../../core/units.js';
import { runCli } from '../testing/run-cli.js';
import { DuckDbAuditStore } from './duckdb-store.js';

const dir = mkdtempSync(join(tmpdir(), 'lockstep-audit-bounds-'));
const db = join(dir, 'audit.duckdb');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 5, 1, 3, 0);

function event(kind: AuditRecord['kind'], rev: bigint, key: string, grantRev: bigint, atMs: number, timeExact: boolean): AuditRecord {
  return { kind, revision: revision(rev), key, namespace: 'payments', identity: 'spiffe://a', className: 'ledger', sessionId: leaseId(9n), grantRevision: revision(grantRev), epoch: 1, token: packToken(1, grantRev), clusterId: clusterId(1n), observedAtMs: atMs, timeExact };
}

beforeAll(async () => {
  await new DuckDbAuditStore(db).write({
    records: [
      // Read after the fact: 20 s holds whose events arrived 1 ms apart.
      event('grant', 10n, 'payments/late', 10n, T0 + 60_000, false),
      event('release', 11n, 'payments/late', 10n, T0 + 60_001, false),
      // Seen live: 3 s.
      event('grant', 12n, 'payments/live', 12n, T0 + 120_000, true),
      event('release', 13n, 'payments/live', 12n, T0 + 123_000, true),
      // Grant read late, end seen live: at least 2 s.
      event('grant', 14n, 'payments/half', 14n, T0 + 130_000, false),
      event('release', 15n, 'payments/half', 14n, T0 + 132_000, true),
    ],
    gaps: [],
    checkpoint: { clusterId: clusterId(1n), revision: revision(15n), epoch: 1, updatedAtMs: T0 + 132_000 },
  });
});

describe('audit report durations', () => {
  it('says unknown for a hold read while catching up at both ends, a bound for one, and measures the rest', async () => {
    const run = await runCli('audit', 'report', '--db', db, '--since', '2026-06-01T00:00:00Z', '--until', '2026-06-02T00:00:00Z');
    expect(run.code).toBe(0);
    const row = (key: string): string => run.out.find((line) => line.startsWith(key)) ?? '';
    expect(row('payments/late')).toMatch(/unknown \(grant and end read while catching up/);
    expect(row('payments/late')).not.toMatch(/1 ms/);
    expect(row('payments/live')).toMatch(/\b3(\.0)? s\b|3000 ms|3 s/);
    expect(row('payments/half')).toMatch(/≥ /);
    const json = await runCli('audit', 'report', '--db', db, '--since', '2026-06-01T00:00:00Z', '--until', '2026-06-02T00:00:00Z', '--json');
    const report = JSON.parse(json.out.at(-1) ?? '{}') as { classes: { longestHoldKey: string }[]; longestHolds: { key: string; bound: string }[] };
    // The class's longest hold is a measured one, never the unknown.
    expect(report.classes[0]?.longestHoldKey).toBe('payments/live');
    expect(report.longestHolds.map((h) => [h.key, h.bound])).toEqual([['payments/live', 'exact'], ['payments/half', 'at-least'], ['payments/late', 'unknown']]);
  });
});
