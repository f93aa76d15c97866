import { describe, expect, it } from 'vitest';
import { checkRun } from './check-run.js';
import { MAX_VIOLATIONS } from './check-result.js';
import { checkExclusion } from './exclusion.js';
import { history, lockOps as L, tokenOf } from './fixtures.js';
import type { RunHistory } from './run-history.js';

const run: RunHistory = {
  grants: [
    { key: 'k', token: tokenOf(5), holder: 'a', revision: 5n, grantedAtMs: 2, endedAtRevision: 8n, endedAtMs: 10, endReason: 'expiry' },
    { key: 'k', token: tokenOf(9), holder: 'b', revision: 9n, grantedAtMs: 12 },
  ],
  beliefs: [
    { holder: 'a', key: 'k', token: tokenOf(5), fromMs: 2, toMs: 9 },
    { holder: 'b', key: 'k', token: tokenOf(9), fromMs: 12 },
  ],
  writes: [
    { resource: 'db', key: 'k', holder: 'a', token: tokenOf(5), atMs: 3, accepted: true },
    { resource: 'db', key: 'k', holder: 'b', token: tokenOf(9), atMs: 13, accepted: true },
    { resource: 'db', key: 'k', holder: 'a', token: tokenOf(5), atMs: 14, accepted: false },
  ],
  resources: [{ name: 'db', fenced: true }],
  fences: [{ holder: 'a', key: 'k', token: tokenOf(5), atMs: 9 }],
  events: history(L.acquire('a', 5, [0, 2]), L.write('a', 5, [3, 4]), L.expire(5, 10), L.acquire('b', 9, [11, 12]), L.write('b', 9, [13, 14]), L.write('a', 5, [14, 15], 'fail')),
};

describe('checkRun', () => {
  it('runs every checker the run has data for, in a fixed order', () => {
    const results = checkRun(run);
    expect(results.map((r) => [r.name, r.verdict])).toEqual([
      ['exclusion', 'ok'],
      ['token-order', 'ok'],
      ['belief', 'ok'],
      ['fence', 'ok'],
      ['deadline', 'ok'],
      ['linearizability', 'ok'],
    ]);
    expect(checkRun({ grants: run.grants }).map((r) => r.name)).toEqual(['exclusion', 'token-order']);
  });

  it('runs the deadline checker over the recorded fences and outages', () => {
    const late = checkRun({ ...run, fences: [{ holder: 'a', key: 'k', token: tokenOf(5), atMs: 11 }] });
    expect(late.find((r) => r.name === 'deadline')?.violations.map((v) => v.kind)).toEqual(['fence-after-expiry']);
    const paused = checkRun({ ...run, fences: [{ holder: 'a', key: 'k', token: tokenOf(5), atMs: 11 }], outages: [{ holder: 'a', kind: 'pause', fromMs: 8, toMs: 11 }] });
    expect(paused.find((r) => r.name === 'deadline')?.ok).toBe(true);
  });

  it('gives plain JSON: tokens and revisions as strings', () => {
    const broken: RunHistory = { ...run, grants: [{ ...run.grants[0]!, endedAtRevision: 10n }, run.grants[1]!] };
    const results = checkRun(broken);
    expect(results.find((r) => r.name === 'exclusion')?.ok).toBe(false);
    expect(() => JSON.stringify(results)).not.toThrow();
  });

  it('reports a double grant in the events as a linearizability violation', () => {
    const results = checkRun({ grants: [], events: history(L.acquire('a', 5, [0, 2]), L.acquire('b', 9, [3, 4])) });
    expect(results.at(-1)).toMatchObject({ name: 'linearizability', ok: false, verdict: 'violated', violations: [{ kind: 'not-linearizable', key: 'k' }] });
  });

  it('throws on malformed recorded events: a bug in the recorder, not a finding', () => {
    expect(() => checkRun({ grants: [], events: [{ process: 'a', type: 'ok', f: 'acquire', key: 'k', value: null, time: 0 }] })).toThrow(/recorded events are malformed: event 1: process a completes acquire/);
  });

  it(`lists at most ${MAX_VIOLATIONS} violations and says how many there were`, () => {
    const grants = Array.from({ length: 2 * MAX_VIOLATIONS }, (_, i) => ({ key: 'k', token: BigInt(i + 1), holder: `h${i}`, revision: BigInt(i + 1), grantedAtMs: i }));
    const result = checkExclusion([{ ...grants[0]! }, ...grants.slice(1, MAX_VIOLATIONS + 2)]);
    expect(result.violations).toHaveLength(MAX_VIOLATIONS);
    expect(result.detail).toMatch(/^\d+ violations \(the first 100 listed\)/);
  });
});
