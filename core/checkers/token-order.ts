// Token order (ADR-02): tokens strictly increase in real time and are never reused. The simulator
// knows when each grant was applied, in true time. Revisions belong to one cluster, so the order is
// checked per cluster; a key that moved between clusters (ADR-09) must also keep increasing, so it is
// checked per key too. Grants at the same instant have no real-time order between them.
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { type GrantRecord, groupBy, holderLabel } from './run-history.js';

type Indexed = { readonly grant: GrantRecord; readonly index: number };

export function checkTokenOrder(grants: readonly GrantRecord[]): CheckResult {
  const indexed = grants.map((grant, index) => ({ grant, index }));
  const reported = new Set<string>();
  const found: Violation[] = [];
  for (const [, group] of groupBy(indexed, (g) => g.grant.cluster ?? '')) {
    found.push(...reusedTokens(group, reported), ...backwards(group, reported));
  }
  for (const [, group] of groupBy(indexed, (g) => g.grant.key)) found.push(...backwards(group, reported));
  const clusters = new Set(grants.map((g) => g.cluster ?? '')).size;
  return checkResult('token-order', found, `${plural(grants.length, 'grant')} in ${plural(clusters, 'cluster')} checked in true-time order`);
}

function reusedTokens(group: readonly Indexed[], reported: Set<string>): Violation[] {
  const first = new Map<bigint, Indexed>();
  const found: Violation[] = [];
  for (const entry of byTime(group)) {
    const earlier = first.get(entry.grant.token);
    if (earlier === undefined) {
      first.set(entry.grant.token, entry);
      continue;
    }
    reported.add(pairKey(earlier, entry));
    const { grant } = entry;
    const message =
      `token ${grant.token} was granted twice${clusterText(grant)}: to ${holderLabel(earlier.grant)} on key ${earlier.grant.key} at ${ms(earlier.grant.grantedAtMs)} ` +
      `and to ${holderLabel(grant)} on key ${grant.key} at ${ms(grant.grantedAtMs)}; a token is never reused (ADR-02)`;
    found.push(violation('token-reused', earlier.grant, grant, message));
  }
  return found;
}

/** Each grant against the highest token granted strictly earlier in true time. */
function backwards(group: readonly Indexed[], reported: Set<string>): Violation[] {
  const ordered = byTime(group);
  const found: Violation[] = [];
  let highest: Indexed | undefined; // over grants strictly before the current instant
  let start = 0;
  while (start < ordered.length) {
    const instant = (ordered[start] as Indexed).grant.grantedAtMs;
    let end = start;
    while (end < ordered.length && (ordered[end] as Indexed).grant.grantedAtMs === instant) end += 1;
    const sameInstant = ordered.slice(start, end);
    for (const entry of sameInstant) {
      if (highest === undefined || entry.grant.token > highest.grant.token || reported.has(pairKey(highest, entry))) continue;
      reported.add(pairKey(highest, entry));
      found.push(tokenWentBack(highest.grant, entry.grant));
    }
    for (const entry of sameInstant) if (highest === undefined || entry.grant.token > highest.grant.token) highest = entry;
    start = end;
  }
  return found;
}

function tokenWentBack(earlier: GrantRecord, later: GrantRecord): Violation {
  const message =
    `key ${later.key}: tokens went backwards in real time${clusterText(later)}: ${holderLabel(earlier)} was granted key ${earlier.key} at ${ms(earlier.grantedAtMs)}, ` +
    `then ${holderLabel(later)} was granted key ${later.key} at ${ms(later.grantedAtMs)}; tokens strictly increase (ADR-02)`;
  return violation('token-not-increasing', earlier, later, message);
}

function violation(kind: 'token-reused' | 'token-not-increasing', earlier: GrantRecord, later: GrantRecord, message: string): Violation {
  return {
    kind,
    key: later.key,
    message,
    involved: [involvedIn(earlier), involvedIn(later)],
    atMs: later.grantedAtMs,
    revisions: [String(earlier.revision), String(later.revision)],
  };
}

function byTime(group: readonly Indexed[]): Indexed[] {
  return [...group].sort((a, b) => a.grant.grantedAtMs - b.grant.grantedAtMs || a.index - b.index);
}

function pairKey(a: Indexed, b: Indexed): string {
  return a.index < b.index ? `${a.index}:${b.index}` : `${b.index}:${a.index}`;
}

function clusterText(grant: GrantRecord): string {
  return grant.cluster === undefined ? '' : ` in cluster ${grant.cluster}`;
}
