import { describe, expect, it } from 'vitest';
import type { GrantRecord } from '../core/checkers/index.js';
import { packToken } from '../core/token.js';
import { crossClusterExclusion, tokensAbove } from './cross-cluster.js';

function grant(cluster: string, key: string, epoch: number, revision: number, grantedAtMs: number, endedAtMs?: number): GrantRecord {
  return {
    key,
    cluster,
    holder: `h-${cluster}-${revision}`,
    token: packToken(epoch, BigInt(revision)),
    revision: BigInt(revision),
    grantedAtMs,
    ...(endedAtMs === undefined ? {} : { endedAtMs, endedAtRevision: BigInt(revision + 1) }),
  };
}

describe('tokensAbove', () => {
  const before = [grant('log', 'k/a', 1, 40, 100), grant('log', 'k/b', 1, 55, 200)];

  it('passes when every later token is above the highest earlier one, on any key', () => {
    const result = tokensAbove('restore-token-order', before, [grant('log/restored-1', 'k/c', 2, 41, 300)]);
    expect(result.ok).toBe(true);
    expect(result.detail).toMatch(/^ok: 1 grants after against the highest of 2 before \(\d+ \(epoch 1, revision 55\)\)/);
  });

  it('fails on a later token at or below an earlier one, even on a key the earlier grant never had', () => {
    const reused = grant('log/restored-1', 'k/b', 1, 55, 300);
    const lower = grant('log/restored-1', 'k/c', 1, 41, 310);
    const result = tokensAbove('restore-token-order', before, [reused, lower, grant('log/restored-1', 'k/a', 2, 42, 320)]);
    expect(result.ok).toBe(false);
    expect(result.violations).toHaveLength(2);
    expect(result.violations[1]).toMatchObject({ kind: 'token-below-earlier-log', key: 'k/c', keys: ['k/b', 'k/c'] });
    expect(result.detail).toMatch(/^2 violations: .*first: h-log\/restored-1-55 was granted k\/b/);
  });

  it('has nothing to compare with when nothing came before', () => {
    expect(tokensAbove('t', [], [grant('x', 'k', 1, 2, 1)]).ok).toBe(true);
  });
});

describe('crossClusterExclusion', () => {
  it('passes when a moved key\'s hold on one shard ends before another shard grants it', () => {
    const result = crossClusterExclusion('x', [grant('shard-a', 'k', 1, 90, 100, 500), grant('shard-c', 'k', 2, 5, 500, 900)]);
    expect(result.ok).toBe(true);
  });

  it('fails when two shards hold one key at once, including a hold still open at the end', () => {
    const grants = [grant('shard-a', 'k', 1, 90, 100, 600), grant('shard-c', 'k', 2, 5, 500, 900), grant('shard-b', 'j', 1, 7, 50), grant('shard-c', 'j', 2, 9, 2_000)];
    const result = crossClusterExclusion('cross-shard-exclusion', grants);
    expect(result.ok).toBe(false);
    expect(result.violations.map((v) => (v as { key: string }).key)).toEqual(['j', 'k']);
    expect(result.detail).toMatch(/first: key j: h-shard-b-7 held it on shard-b from 50 ms until the end of the run, but shard-c granted it/);
  });

  it('leaves holds of one cluster to the exclusion checker (it orders them by revision)', () => {
    const sameCluster = [grant('shard-a', 'k', 1, 10, 100, 600), grant('shard-a', 'k', 1, 12, 300, 700)];
    expect(crossClusterExclusion('x', sameCluster).ok).toBe(true);
  });
});
