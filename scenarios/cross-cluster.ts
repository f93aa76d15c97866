// Checks that span more than one etcd cluster, which the history checkers cannot state: their token
// order is per cluster (revision spaces differ) and per key, and their exclusion is per (cluster, key).
// - tokensAbove (ADR-02/03): every token one log grants after a restore is above every token the log
//   granted before it, on any key; a restored log reuses revisions, so only the epoch keeps this true.
// - crossClusterExclusion (ADR-09): a key that moved between shards is never held on two at once, in
//   true time (the simulator's knowledge; the log of either shard alone cannot see the other).
import { formatMs } from '../core/numbers.js';
import type { GrantRecord } from '../core/checkers/index.js';
import { unpackToken } from '../core/token.js';
import type { FencingToken } from '../core/units.js';
import type { ScenarioCheck } from './scenario.js';

/** Violations listed in a check (the count is in the detail). */
const MAX_LISTED = 20;

export interface CrossClusterViolation {
  readonly kind: 'token-below-earlier-log' | 'cross-cluster-overlap';
  readonly key: string;
  readonly message: string;
  readonly atMs: number;
  /** Earlier first: the keys and tokens of the two grants compared. */
  readonly keys: readonly string[];
  readonly tokens: readonly string[];
}

/** Every grant of `after` has a token above the highest of `before`. */
export function tokensAbove(name: string, before: readonly GrantRecord[], after: readonly GrantRecord[]): ScenarioCheck {
  const highest = highestGrant(before);
  const found: CrossClusterViolation[] = [];
  for (const grant of after) {
    if (highest === undefined || grant.token > highest.token) continue;
    found.push({
      kind: 'token-below-earlier-log',
      key: grant.key,
      atMs: grant.grantedAtMs,
      keys: [highest.key, grant.key],
      tokens: [String(highest.token), String(grant.token)],
      message:
        `${grant.holder} was granted ${grant.key} by ${grant.cluster ?? 'the log'} at ${formatMs(grant.grantedAtMs)} with token ${describeToken(grant.token)}, ` +
        `not above ${describeToken(highest.token)}, granted to ${highest.holder} on ${highest.key} by ${highest.cluster ?? 'the log'} at ${formatMs(highest.grantedAtMs)} (ADR-02/03)`,
    });
  }
  const checked = `${after.length} grants after against the highest of ${before.length} before (${highest === undefined ? 'none' : describeToken(highest.token)})`;
  return result(name, found, checked);
}

/** Holds of one key granted by different clusters never overlap in true time (a hold still open at the end lasts to the end). */
export function crossClusterExclusion(name: string, grants: readonly GrantRecord[]): ScenarioCheck {
  const byKey = new Map<string, GrantRecord[]>();
  for (const grant of grants) byKey.set(grant.key, [...(byKey.get(grant.key) ?? []), grant]);
  const found: CrossClusterViolation[] = [];
  for (const [key, holds] of [...byKey].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    for (const [i, first] of holds.entries()) {
      for (const second of holds.slice(i + 1)) {
        if (first.cluster === second.cluster) continue; // the exclusion checker orders those by revision
        const [earlier, later] = first.grantedAtMs <= second.grantedAtMs ? [first, second] : [second, first];
        if ((earlier.endedAtMs ?? Number.POSITIVE_INFINITY) <= later.grantedAtMs) continue;
        const until = earlier.endedAtMs === undefined ? 'the end of the run' : `${formatMs(earlier.endedAtMs)}`;
        found.push({
          kind: 'cross-cluster-overlap',
          key,
          atMs: later.grantedAtMs,
          keys: [key, key],
          tokens: [String(earlier.token), String(later.token)],
          message:
            `key ${key}: ${earlier.holder} held it on ${earlier.cluster ?? '?'} from ${formatMs(earlier.grantedAtMs)} until ${until}, ` +
            `but ${later.cluster ?? '?'} granted it to ${later.holder} at ${formatMs(later.grantedAtMs)}: two shards held one key at once (ADR-09)`,
        });
      }
    }
  }
  return result(name, found, `${grants.length} grants on ${byKey.size} keys in ${new Set(grants.map((g) => g.cluster)).size} clusters compared in true time`);
}

export function highestGrant(grants: readonly GrantRecord[]): GrantRecord | undefined {
  let best: GrantRecord | undefined;
  for (const grant of grants) if (best === undefined || grant.token > best.token) best = grant;
  return best;
}

export function lowestGrant(grants: readonly GrantRecord[]): GrantRecord | undefined {
  let best: GrantRecord | undefined;
  for (const grant of grants) if (best === undefined || grant.token < best.token) best = grant;
  return best;
}

/** `5 (epoch 1, revision 5)`: the packed value and what it is made of (ADR-02). */
export function describeToken(token: bigint): string {
  const { epoch, revision } = unpackToken(token as FencingToken);
  return `${token} (epoch ${epoch}, revision ${revision})`;
}

/** A token's parts as metrics (a packed token can exceed what a metric number holds exactly). */
export function tokenMetrics(prefix: string, grant: GrantRecord | undefined): Record<string, number> {
  if (grant === undefined) return { [`${prefix}Epoch`]: -1, [`${prefix}Revision`]: -1 };
  const { epoch, revision } = unpackToken(grant.token as FencingToken);
  return { [`${prefix}Epoch`]: epoch, [`${prefix}Revision`]: Number(revision) };
}

function result(name: string, found: readonly CrossClusterViolation[], checked: string): ScenarioCheck {
  if (found.length === 0) return { name, ok: true, detail: `ok: ${checked}`, violations: [] };
  return { name, ok: false, detail: `${found.length} violation${found.length === 1 ? '' : 's'}: ${checked}; first: ${(found[0] as CrossClusterViolation).message}`, violations: found.slice(0, MAX_LISTED) };
}
