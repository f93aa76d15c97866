// `lockstep class register` (ADR-01's risk register) on the example classes and on held-out-style advisory
// classes written here, with exit codes for current, expiring and passed waivers, and --audit over a store
// written through the AuditStore port.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../core/audit/events.js';
import { advisorySpec, fencedSpec, lockClassDocument, yamlFile } from '../../core/classes/fixtures.js';
import { packToken } from '../../core/token.js';
import { clusterId, leaseId, revision } from '../../core/units.js';
import { DuckDbAuditStore } from '../audit/duckdb-store.js';
import { runCli } from '../testing/run-cli.js';
import { WAIVER_EXPIRING_EXIT } from './class-register.js';

const dir = mkdtempSync(join(tmpdir(), 'lockstep-class-register-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const advisory = (namespace: string, name: string, waiverExpires: string, fields: Record<string, unknown> = {}) => lockClassDocument({ ...advisorySpec, waiverExpires, ...fields }, { name, namespace });

/** A class repository of held-out style: several files, advisory and fenced classes mixed. */
const repo = join(dir, 'classes');
mkdirSync(repo);
writeFileSync(join(repo, 'billing.yaml'), yamlFile([advisory('billing', 'invoice-batch', '2027-03-01', { riskOwner: 'team-billing', purpose: 'efficiency' }), advisory('billing', 'dunning', '2026-12-20', { riskOwner: 'oncall-billing' })]));
writeFileSync(join(repo, 'search.yml'), yamlFile([advisory('search', 'reindex', '2026-12-31', { riskOwner: 'team-search' })]));
writeFileSync(join(repo, 'ledger.yaml'), yamlFile([lockClassDocument(fencedSpec, { name: 'ledger-writes', namespace: 'payments' })])); // no pause test: class check's business
writeFileSync(join(repo, 'notes.txt'), 'not a class file\n');

interface Entry {
  namespace: string;
  name: string;
  riskOwner: string;
  waiverExpires: string;
  daysLeft: number;
  status: string;
  held?: { grants: number; longestHoldMs: number | null; overlaps: number };
}

async function register(...args: string[]): Promise<{ code: number; entries: Entry[]; err: string[] }> {
  const run = await runCli('class', 'register', ...args, '--json');
  return { code: run.code, entries: (JSON.parse(run.out.at(-1) ?? '{}') as { entries: Entry[] }).entries, err: run.err };
}

describe('lockstep class register', () => {
  it('lists the example advisory classes with purpose, owner, waiver end and days left; the fenced ones are not waivers', async () => {
    const run = await runCli('class', 'register', 'examples/classes', '--now', '2026-12-06');
    expect(run.code).toBe(0);
    expect(run.out[0]).toMatch(/^class\s+purpose\s+risk owner\s+waiver ends\s+days left\s+status$/);
    expect(run.out.slice(1, 3)).toEqual([
      expect.stringMatching(/^reporting\/statement-export\s+correctness\s+team-reporting\s+2099-12-31\s+26688\s+current$/),
      expect.stringMatching(/^search\/cache-warmer\s+efficiency\s+team-search\s+2099-12-31\s+26688\s+current$/),
    ]);
    expect(run.out.join('\n')).not.toMatch(/ledger-writes|scheduler-leader/);
    expect(run.out.at(-1)).toBe('risk register: 2 advisory classes, 0 waiver(s) passed, 0 end within 30 days (today is 2026-12-06)');
  });

  it('sorts by expiry and exits by the worst waiver: 0 current, 3 within 30 days, 1 passed', async () => {
    const current = await register(repo, '--now', '2026-10-01');
    expect(current.code).toBe(0);
    expect(current.entries.map((e) => [`${e.namespace}/${e.name}`, e.riskOwner, e.waiverExpires, e.status])).toEqual([
      ['billing/dunning', 'oncall-billing', '2026-12-20', 'current'],
      ['search/reindex', 'team-search', '2026-12-31', 'current'],
      ['billing/invoice-batch', 'team-billing', '2027-03-01', 'current'],
    ]);
    const expiring = await register(repo, '--now', '2026-12-01');
    expect(expiring.code).toBe(WAIVER_EXPIRING_EXIT);
    expect(expiring.entries.map((e) => [e.name, e.daysLeft, e.status])).toEqual([['dunning', 19, 'expiring'], ['reindex', 30, 'expiring'], ['invoice-batch', 90, 'current']]);
    const passed = await register(repo, '--now', '2026-12-21');
    expect(passed.code).toBe(1);
    expect(passed.entries.map((e) => [e.name, e.daysLeft, e.status])).toEqual([['dunning', -1, 'expired'], ['reindex', 10, 'expiring'], ['invoice-batch', 70, 'current']]);
    // The fenced class's missing pause test is class check's business: nothing on stderr here.
    expect(passed.err).toEqual([]);
  });

  it('prints a Markdown table for a pull-request comment', async () => {
    const run = await runCli('class', 'register', repo, '--now', '2026-12-21', '--format', 'md');
    expect(run.code).toBe(1);
    expect(run.out.slice(0, 5)).toEqual(['### Risk register (ADR-01)', '', '| class | purpose | risk owner | waiver ends | days left | status |', '| --- | --- | --- | --- | --- | --- |', '| billing/dunning | correctness | oncall-billing | 2026-12-20 | 1 ago | EXPIRED |']);
    expect(run.out.at(-1)).toMatch(/^\*\*risk register: 3 advisory classes, 1 waiver\(s\) passed, 1 end within 30 days/);
  });

  it('fails on an advisory class it cannot read as one (the register would miss it), naming the field', async () => {
    const broken = join(dir, 'broken');
    mkdirSync(broken);
    writeFileSync(join(broken, 'a.yaml'), yamlFile([advisory('ops', 'backup', '2099-01-01', { riskOwner: undefined }), advisory('ops', 'rotate', '2099-01-01')]));
    const run = await register(broken, '--now', '2026-12-06');
    expect(run.code).toBe(1);
    expect(run.entries.map((e) => e.name)).toEqual(['rotate']);
    expect(run.err.join('\n')).toMatch(/ops\/backup: spec.riskOwner: is missing/);
  });

  it.each([
    [['examples/classes', '--now', '2026-13-01'], /--now "2026-13-01" is not a calendar date/],
    [['examples/classes', '--format', 'html'], /--format "html" must be table, md or json/],
    [['examples/classes', '--format', 'md', '--json'], /--json and --format md exclude each other/],
    [[join(dir, 'no-such.yaml')], /no-such.yaml/],
    [['examples/classes', '--audit', join(dir, 'missing.duckdb')], /--audit .*no audit database there/],
    [['examples/classes', '--audit', join(dir, 'missing.duckdb'), '--since', '2026-06-02T00:00:00Z', '--until', '2026-06-01T00:00:00Z'], /the window is empty/],
  ])('refuses %j with exit 2, naming the input', async (args, message) => {
    const run = await runCli('class', 'register', ...args);
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toMatch(message);
  });
});

describe('lockstep class register --audit', () => {
  const db = join(dir, 'audit.duckdb');
  const T0 = Date.UTC(2026, 5, 1, 3, 0);
  const MIN = 60_000;
  const CLUSTER = clusterId(0xabcn);
  const event = (kind: AuditRecord['kind'], rev: bigint, key: string, className: string, grantRev: bigint, atMs: number): AuditRecord => ({
    kind, revision: revision(rev), key, namespace: key.split('/')[0] ?? '', identity: `spiffe://w-${grantRev}`, className, sessionId: leaseId(grantRev), grantRevision: revision(grantRev),
    epoch: 1, token: packToken(1, grantRev), clusterId: CLUSTER, observedAtMs: atMs, timeExact: true,
  });

  beforeAll(async () => {
    await new DuckDbAuditStore(db).write({
      records: [
        // billing/dunning: two holds of one key at once (the second granted before the first ended), and one alone.
        event('grant', 10n, 'billing/customers/1', 'dunning', 10n, T0),
        event('grant', 11n, 'billing/customers/1', 'dunning', 11n, T0 + 2 * MIN),
        event('release', 12n, 'billing/customers/1', 'dunning', 10n, T0 + 5 * MIN),
        event('release', 13n, 'billing/customers/1', 'dunning', 11n, T0 + 6 * MIN),
        // search/reindex: one after the other on one key: no overlap (the negative control).
        event('grant', 14n, 'search/index', 'reindex', 14n, T0),
        event('release', 15n, 'search/index', 'reindex', 14n, T0 + 20 * MIN),
        event('grant', 16n, 'search/index', 'reindex', 16n, T0 + 20 * MIN + 100),
        event('release', 17n, 'search/index', 'reindex', 16n, T0 + 21 * MIN),
      ],
      gaps: [],
      checkpoint: { clusterId: CLUSTER, revision: revision(17n), epoch: 1, updatedAtMs: T0 + 21 * MIN },
    });
  });

  it('adds what each advisory class held in the window: grants, longest hold, overlaps seen', async () => {
    const run = await register(repo, '--now', '2026-10-01', '--audit', db, '--since', '2026-06-01T00:00:00Z', '--until', '2026-06-02T00:00:00Z');
    expect(run.code).toBe(0);
    const held = Object.fromEntries(run.entries.map((e) => [e.name, e.held]));
    expect(held).toEqual({
      dunning: { grants: 2, longestHoldMs: 5 * MIN, overlaps: 1 },
      reindex: { grants: 2, longestHoldMs: 20 * MIN, overlaps: 0 },
      'invoice-batch': { grants: 0, longestHoldMs: null, overlaps: 0 },
    });
    const text = await runCli('class', 'register', repo, '--now', '2026-10-01', '--audit', db, '--since', '2026-06-01T00:00:00Z', '--until', '2026-06-02T00:00:00Z');
    expect(text.out[0]).toMatch(/status\s+grants\s+longest hold\s+overlaps$/);
    expect(text.out[1]).toMatch(/^billing\/dunning\s.*current\s+2\s+5 min\s+1$/);
  });

  it('counts nothing outside the window', async () => {
    const run = await register(repo, '--now', '2026-10-01', '--audit', db, '--since', '2026-07-01T00:00:00Z', '--until', '2026-07-02T00:00:00Z');
    expect(run.entries.every((e) => e.held?.grants === 0 && e.held.overlaps === 0)).toBe(true);
  });
});
