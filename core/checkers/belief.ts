// Belief (ADR-12, "holder in the dark"): a holder's library must stop saying canStart() before the log
// grants the key to anyone else. The simulator knows true time, so each span in which canStart() was
// true is compared with the next grant of the same key after the holder's own. Spans are [fromMs, toMs).
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { type BeliefInterval, type GrantRecord, groupBy, holderLabel } from './run-history.js';

export function checkBelief(grants: readonly GrantRecord[], beliefs: readonly BeliefInterval[]): CheckResult {
  const byKey = new Map(groupBy(grants, (g) => g.key).map(([key, list]) => [key, [...list].sort((a, b) => a.grantedAtMs - b.grantedAtMs)]));
  const found: Violation[] = [];
  for (const belief of beliefs) {
    const violation = judgeBelief(belief, byKey.get(belief.key) ?? []);
    if (violation !== undefined) found.push(violation);
  }
  return checkResult('belief', found, `${plural(beliefs.length, 'belief span')} of ${plural(new Set(beliefs.map((b) => b.holder)).size, 'holder')} checked against ${plural(grants.length, 'grant')}`);
}

function judgeBelief(belief: BeliefInterval, keyGrants: readonly GrantRecord[]): Violation | undefined {
  const own = keyGrants.find((g) => g.token === belief.token);
  const believer = involvedIn(belief);
  const base = { key: belief.key, atMs: belief.fromMs };
  if (own === undefined) {
    const message = `key ${belief.key}: ${holderLabel(belief)} could start work (canStart() true) from ${ms(belief.fromMs)}, but the log never granted that token on this key`;
    return { ...base, kind: 'belief-without-grant', message, involved: [believer] };
  }
  if (belief.fromMs < own.grantedAtMs) {
    const message = `key ${belief.key}: ${holderLabel(belief)} could start work (canStart() true) from ${ms(belief.fromMs)}, before the log granted it at ${ms(own.grantedAtMs)} (revision ${own.revision})`;
    return { ...base, kind: 'belief-before-grant', message, involved: [believer], revisions: [String(own.revision)] };
  }
  const next = keyGrants.find((g) => g.grantedAtMs > own.grantedAtMs && g.token !== own.token);
  const toMs = belief.toMs ?? Number.POSITIVE_INFINITY;
  if (next === undefined || toMs <= next.grantedAtMs) return undefined;
  const until = belief.toMs === undefined ? 'the end of the run' : ms(belief.toMs);
  const overrun = belief.toMs === undefined ? 'to the end of the run' : `for ${ms(belief.toMs - next.grantedAtMs)}`;
  const message =
    `key ${belief.key}: ${holderLabel(belief)} could still start work (canStart() true) until ${until}, but ${holderLabel(next)} was granted the key at ${ms(next.grantedAtMs)} ` +
    `(revision ${next.revision}): ${belief.holder} believed it held the key ${overrun} after it had lost it (ADR-12)`;
  return {
    ...base,
    kind: 'belief-after-later-grant',
    message,
    involved: [believer, involvedIn(next)],
    atMs: Math.max(next.grantedAtMs, belief.fromMs),
    revisions: [String(own.revision), String(next.revision)],
  };
}
