import { describe, expect, it } from 'vitest';
import type { GrantRecord } from '../core/checkers/index.js';
import { movedKeyTokens } from './moved-key-tokens.js';

const grant = (key: string, cluster: string, token: bigint, grantedAtMs: number): GrantRecord =>
  ({ key, cluster, token, grantedAtMs, holder: 'spiffe://sim/a', session: '1', revision: token }) as unknown as GrantRecord;

describe('movedKeyTokens', () => {
  it('counts a moved key whose first destination token rose above its last source token', () => {
    const grants = [grant('k', 'shard-a', 10n, 1), grant('k', 'shard-a', 12n, 2), grant('k', 'shard-c', 50n, 3), grant('k', 'shard-c', 51n, 4)];
    expect(movedKeyTokens(grants, new Set(['k']), 'shard-c')).toMatchObject({ rose: 1, fell: 0, lastSource: { token: 12n }, firstDestination: { token: 50n } });
  });

  it('its negative control: a token that went backwards across the move counts as fell; an unmoved key not at all', () => {
    const grants = [grant('k', 'shard-a', 40n, 1), grant('k', 'shard-c', 5n, 2), grant('j', 'shard-a', 7n, 1)];
    expect(movedKeyTokens(grants, new Set(['k', 'j']), 'shard-c')).toMatchObject({ rose: 0, fell: 1 });
  });
});
