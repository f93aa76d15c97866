import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkExclusion } from './exclusion.js';
import type { GrantRecord } from './run-history.js';

const grant = (holder: string, revision: number, ended: number | undefined, extra: Partial<GrantRecord> = {}): GrantRecord => ({
  key: 'payments/ledger',
  token: (1n << 48n) + BigInt(revision),
  holder,
  revision: BigInt(revision),
  grantedAtMs: revision * 10,
  ...(ended === undefined ? {} : { endedAtRevision: BigInt(ended), endedAtMs: ended * 10, endReason: 'release' as const }),
  ...extra,
});

/** Holds granted one after another per key, interleaved across keys, on one revision counter. */
const legalGrants = fc.array(fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 5 }), fc.boolean()), { maxLength: 40 }).map((plan) => {
  let revision = 1;
  const open = new Map<number, GrantRecord>();
  const grants: GrantRecord[] = [];
  plan.forEach(([key, gap, handover], i) => {
    const previous = open.get(key);
    if (previous !== undefined) {
      revision += gap;
      grants[grants.indexOf(previous)] = { ...previous, endedAtRevision: BigInt(revision), endedAtMs: revision * 10, endReason: 'expiry' };
    }
    if (!handover || previous === undefined) revision += gap;
    const next: GrantRecord = { key: `k${key}`, token: BigInt(revision), holder: `h${i}`, revision: BigInt(revision), grantedAtMs: revision * 10 };
    grants.push(next);
    open.set(key, next);
  });
  return grants;
});

describe('exclusion: no two holds of a key overlap in the applied order', () => {
  it('passes holds that end before (or in the same txn as) the next grant', () => {
    const result = checkExclusion([grant('a', 5, 8), grant('b', 9, 12), grant('c', 12, undefined)]);
    expect(result).toEqual({ name: 'exclusion', ok: true, verdict: 'ok', detail: 'ok: 3 grants on 1 key checked in applied order', violations: [] });
  });

  it('names the key, both holders and the revisions of an overlap', () => {
    const result = checkExclusion([grant('a', 5, 12, { endReason: 'expiry' }), grant('b', 9, 14)]);
    expect(result.ok).toBe(false);
    expect(result.violations).toEqual([
      {
        kind: 'overlap',
        key: 'payments/ledger',
        message: `key payments/ledger: holds overlap in the log: holder a (token ${(1n << 48n) + 5n}) was granted at revision 5 (50 ms) and held it until revision 12 (expiry) at 120 ms, but holder b (token ${(1n << 48n) + 9n}) was granted at revision 9 (90 ms)`,
        involved: [
          { holder: 'a', token: String((1n << 48n) + 5n) },
          { holder: 'b', token: String((1n << 48n) + 9n) },
        ],
        atMs: 90,
        revisions: ['5', '12', '9'],
      },
    ]);
    expect(result.detail).toMatch(/^1 violation: 2 grants on 1 key checked in applied order; first: key payments\/ledger: holds overlap/);
  });

  it('finds a hold never ended under every later grant, and each overlapping pair once', () => {
    const result = checkExclusion([grant('a', 5, undefined), grant('b', 9, 10), grant('c', 11, undefined)]);
    expect(result.violations.map((v) => v.involved.map((i) => i.holder).join('+'))).toEqual(['a+b', 'a+c']);
    expect(result.violations[0]?.message).toMatch(/still held it when the run ended/);
  });

  it('compares grants in the order of their revisions, not the order given', () => {
    expect(checkExclusion([grant('b', 9, 12), grant('a', 5, 8)]).ok).toBe(true);
  });

  it('keeps keys and clusters apart', () => {
    expect(checkExclusion([grant('a', 5, undefined), grant('b', 9, undefined, { key: 'other' })]).ok).toBe(true);
    expect(checkExclusion([grant('a', 5, undefined, { cluster: 'east' }), grant('b', 9, undefined, { cluster: 'west' })]).ok).toBe(true);
  });

  it('refuses a hold that ends before its own grant: a recording error', () => {
    expect(() => checkExclusion([grant('a', 5, 5)])).toThrow(/ends at revision 5, not after its grant at revision 5/);
  });

  it('passes random legal logs, and fails once one hold is stretched over the next grant of its key', () => {
    fc.assert(
      fc.property(legalGrants, fc.nat(), (grants, pick) => {
        expect(checkExclusion(grants).violations).toEqual([]);
        const ended = grants.filter((g) => g.endedAtRevision !== undefined);
        fc.pre(ended.length > 0);
        const victim = ended[pick % ended.length]!;
        const next = grants.filter((g) => g.key === victim.key && g.revision > victim.revision).sort((a, b) => Number(a.revision - b.revision))[0]!;
        const stretched = grants.map((g) => (g === victim ? { ...g, endedAtRevision: next.revision + 1n } : g));
        const result = checkExclusion(stretched);
        expect(result.violations.map((v) => [v.key, v.involved.map((i) => i.holder)])).toEqual([[victim.key, [victim.holder, next.holder]]]);
      }),
      { numRuns: 300 },
    );
  });
});
