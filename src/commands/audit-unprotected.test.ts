// `lockstep audit unprotected` through the compiled CLI, over a store the arbiters' spools shipped into.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UnprotectedRecord } from '../../core/ports/spool.js';
import { prepareAuditDb } from '../audit/duckdb-file.js';
import { DuckDbUnprotectedStore } from '../audit/unprotected-store.js';
import { runLockstep } from '../testing/lockstep-process.js';

const dir = mkdtempSync(join(tmpdir(), 'lockstep-audit-unprotected-'));
const db = join(dir, 'audit.duckdb');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T0 = Date.UTC(2026, 11, 6, 3, 0);
const S = 1_000;

function grant(arbiterId: string, seq: number, atMs: number, key = 'cache/warm-7'): UnprotectedRecord {
  const id = `${arbiterId}/1/${seq}`;
  return { id, kind: 'grant', grantId: id, arbiterId, key, namespace: 'cache', className: 'warmer', identity: 'spiffe://example.org/warmer', instance: `pod-${seq}`, atMs };
}
function end(of: UnprotectedRecord, seq: number, atMs: number, endReason: 'release' | 'expiry' | 'recovery'): UnprotectedRecord {
  return { ...of, id: `${of.arbiterId}/1/${seq}`, kind: 'end', atMs, endReason };
}

const a1 = grant('arbiter-a', 1, T0);
const b1 = grant('arbiter-b', 1, T0 + 10 * S); // the same key from another arbiter while a1 held it
const a2 = grant('arbiter-a', 3, T0 + 60 * S, 'cache/other');

beforeAll(async () => {
  await new DuckDbUnprotectedStore(db).shipUnprotected([a1, end(a1, 2, T0 + 30 * S, 'release'), b1, end(b1, 2, T0 + 90 * S, 'recovery'), a2]);
});

describe('lockstep audit unprotected', () => {
  it('lists every unprotected grant with holder, key, class, arbiter, start and end, and the overlap between arbiters', async () => {
    const run = await runLockstep(['audit', 'unprotected', '--db', db, '--since', '2026-12-06T02:00:00Z', '--until', '2026-12-06T04:00:00Z']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = run.stdout.split('\n');
    expect(lines[0]).toMatch(/^3 unprotected grants from 2026-12-06 02:00:00.000Z to 2026-12-06 04:00:00.000Z/);
    expect(lines.find((l) => l.includes('(pod-1)') && l.includes('arbiter-a'))).toMatch(/^spiffe:\/\/example.org\/warmer \(pod-1\)\s+cache\/warm-7\s+cache\/warmer\s+arbiter-a\s+2026-12-06 03:00:00.000Z\s+2026-12-06 03:00:30.000Z\s+release\s+30 s$/);
    expect(lines.find((l) => l.includes('(pod-3)'))).toMatch(/cache\/other\s+cache\/warmer\s+arbiter-a\s+2026-12-06 03:01:00.000Z\s+open\s+open\s+-$/);
    expect(run.stdout).toContain('1 overlap: two arbiters granted one key');
    expect(lines.find((l) => l.startsWith('cache/warm-7  arbiter-a:'))).toMatch(/arbiter-b: spiffe:\/\/example.org\/warmer \(pod-1\)\s+2026-12-06 03:00:10.000Z\s+2026-12-06 03:00:30.000Z\s+20 s$/);
  });

  it('prints the same as one JSON object, and leaves out grants that ended before the window', async () => {
    const run = await runLockstep(['audit', 'unprotected', '--db', db, '--since', '2026-12-06T03:00:45Z', '--until', '2026-12-06T04:00:00Z', '--json']);
    expect(run.code).toBe(0);
    const answer = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as { grants: { grantId: string; endReason: string; endMs?: number }[]; overlaps: unknown[]; truncated: boolean };
    expect(answer.grants.map((g) => [g.grantId, g.endReason, g.endMs])).toEqual([
      ['arbiter-b/1/1', 'recovery', T0 + 90 * S],
      ['arbiter-a/1/3', 'open', undefined],
    ]);
    expect(answer.overlaps).toEqual([]);
    expect(answer.truncated).toBe(false);
  });

  it('says when a window holds no unprotected grant, and refuses bad input with exit 2', async () => {
    const empty = join(dir, 'empty.duckdb');
    await prepareAuditDb(empty, 'write');
    const none = await runLockstep(['audit', 'unprotected', '--db', empty]);
    expect(none.code).toBe(0);
    expect(none.stdout).toMatch(/^no unprotected grant from .* every grant in it came from etcd with a token/);
    const badLimit = await runLockstep(['audit', 'unprotected', '--db', db, '--limit', '0']);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain('lockstep audit unprotected: --limit "0" must be a whole number from 1 to 1000000');
    const badSince = await runLockstep(['audit', 'unprotected', '--db', db, '--since', 'yesterday']);
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain('--since "yesterday" is neither a duration back from now');
    const missing = await runLockstep(['audit', 'unprotected', '--db', join(dir, 'missing.duckdb')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no audit database there');
  });
});
