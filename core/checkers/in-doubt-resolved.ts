// Liveness (issue 11): every in-doubt outcome is resolved. A grant or release whose answer was lost (a
// timeout after the txn committed) leaves the caller not knowing whether it holds the key; the arbiter
// must find out (read the holder key, ADR-15's grant txn is idempotent for the same session) and the
// library must end a hold nobody was handed. Two rules:
// - a hold the log granted to a holder during an acquire that was answered with a definite refusal
//   (`wait-timeout`, `contended`, ...) while the hold was still in the log is a wrong resolution at once:
//   the caller was told it does not hold a key it holds (L2). A refusal answered after the hold had ended
//   (the session expired while the answer travelled to a paused client) is the truth by then, and a
//   `session-expired` answer is one once the lease's revoke lands, within the bound;
// - a hold no task was handed (its acquire answered `indeterminate`, or granted after the answer), and a
//   hold whose release was answered `indeterminate`, must leave the log within a TTL plus the bound of
//   the answer, unless a disturbance delays it (L1's deadlock and L2's leak keep it for ever).
import { type CheckResult, type Violation, checkResult, involvedIn, ms, plural } from './check-result.js';
import { deadlineAfter, holdEndMs, lastInterestEndMs, ownersOf } from './liveness-time.js';
import { type GrantRecord, type HolderOutage, type Interest, type LivenessRun, holderLabel } from './run-history.js';

export function checkInDoubtResolved(grants: readonly GrantRecord[], run: LivenessRun, outages: readonly HolderOutage[] = []): CheckResult {
  const found: Violation[] = [];
  let judged = 0;
  for (const grant of grants) {
    const owners = ownersOf(grant, run.interests);
    const violation = owners.length === 0 ? judgeUnhanded(grant, run) : judgeReleasedInDoubt(grant, owners, run, outages);
    if (violation === 'not-judged') continue;
    judged += 1;
    if (violation !== undefined) found.push(violation);
  }
  const inDoubt = run.interests.filter((i) => i.outcome === 'in-doubt' || i.release === 'in-doubt').length;
  return checkResult('in-doubt-resolved', found, `${plural(judged, 'hold')} of in-doubt or unreported grants and releases checked (${plural(inDoubt, 'answer')} in doubt in the run)`);
}

/** A hold no task was handed: the acquire that asked for it must not have been refused, and the hold must go. */
function judgeUnhanded(grant: GrantRecord, run: LivenessRun): Violation | undefined | 'not-judged' {
  const asked = run.interests.filter((i) => i.holder === grant.holder && i.key === grant.key && i.fromMs <= grant.grantedAtMs);
  // Several tasks of one client may ask for one key (issue 11's tasks per client): the grant answers one
  // still waiting when it was made, not a later try-lock that was told `contended` before it; failing
  // that, one answered `indeterminate` before it (its request may still have been at the arbiter, whose
  // grant then landed after the caller stopped waiting); and only failing both, a refusal before it.
  // Among those still open, the likeliest first: an answer in doubt or still to come, then a session
  // that expired, then a wait refused, and a try-lock refused last (it could be granted only on arrival,
  // and its answer may have travelled long after it was decided: a slow link, swarm seed 520).
  const open = asked.filter((i) => i.outcome === 'pending' || (i.answeredMs ?? Number.POSITIVE_INFINITY) >= grant.grantedAtMs);
  const inDoubt = asked.filter((i) => i.outcome === 'in-doubt');
  const candidates = open.length > 0 ? open : inDoubt.length > 0 ? inDoubt : asked;
  const latest = candidates.reduce<Interest | undefined>((a, b) => {
    if (a === undefined) return b;
    const [rankA, rankB] = [likelihoodRank(a), likelihoodRank(b)];
    return rankB < rankA || (rankB === rankA && b.fromMs >= a.fromMs) ? b : a;
  }, undefined);
  if (latest?.outcome === 'pending') return 'not-judged'; // its answer is still on its way, or its process died
  // A refusal answered after the hold was over tells the caller the truth; `session-expired` says the hold
  // goes with its lease (the leader's revoke may come a little later): it must then be gone within the bound.
  if (latest?.outcome === 'refused' && holdEndMs(grant) <= (latest.answeredMs ?? Number.POSITIVE_INFINITY)) return undefined;
  if (latest?.outcome === 'refused' && latest.code === 'session-expired') return unresolved(grant, latest.answeredMs ?? grant.grantedAtMs, `${latest.task}'s acquire was answered session-expired`, run);
  if (latest?.outcome === 'refused') {
    const message =
      `key ${grant.key}: the log granted ${holderLabel(grant)} at ${ms(grant.grantedAtMs)} (revision ${grant.revision}), but ${latest.task}'s acquire, sent at ${ms(latest.fromMs)}, ` +
      `was answered ${latest.code ?? 'a refusal'}${latest.answeredMs === undefined ? '' : ` at ${ms(latest.answeredMs)}`}: an outcome in doubt reported as a definite one, so the holder never knew it held the key`;
    return { kind: 'in-doubt-misreported', key: grant.key, message, involved: [involvedIn(grant)], atMs: grant.grantedAtMs, revisions: [String(grant.revision)] };
  }
  const fromMs = Math.max(grant.grantedAtMs, latest?.answeredMs ?? grant.grantedAtMs);
  const how = latest === undefined ? 'no acquire of its holder asked for it' : `${latest.task}'s acquire was answered ${latest.outcome === 'in-doubt' ? (latest.code ?? 'indeterminate') : `with token ${String(latest.token)}`}`;
  return unresolved(grant, fromMs, `nobody was handed it (${how})`, run);
}

/** How likely an acquire is to be the one a grant answered: lower is likelier. */
function likelihoodRank(interest: Interest): number {
  if (interest.outcome !== 'refused') return 0;
  if (interest.code === 'session-expired') return 1;
  return interest.waitMs > 0 ? 2 : 3;
}

/** A hold whose release was answered `indeterminate`: once its last owner let go, it must go. */
function judgeReleasedInDoubt(grant: GrantRecord, owners: readonly Interest[], run: LivenessRun, outages: readonly HolderOutage[]): Violation | undefined | 'not-judged' {
  const inDoubt = owners.find((o) => o.release === 'in-doubt');
  if (inDoubt === undefined) return 'not-judged';
  const gaveUpMs = lastInterestEndMs(owners, outages);
  if (gaveUpMs === undefined) return 'not-judged';
  return unresolved(grant, Math.max(gaveUpMs, inDoubt.releaseAnsweredMs ?? gaveUpMs), `${inDoubt.task}'s release was answered indeterminate`, run);
}

function unresolved(grant: GrantRecord, fromMs: number, why: string, run: LivenessRun): Violation | undefined {
  const { ttlMs, boundMs, endedAtMs } = run.bounds;
  const deadlineMs = deadlineAfter(fromMs, ttlMs + boundMs, run.disturbances);
  if (holdEndMs(grant) <= deadlineMs || deadlineMs > endedAtMs) return undefined;
  const ended = grant.endedAtMs === undefined ? `was still in the log when the run ended at ${ms(endedAtMs)}` : `stayed in the log until ${ms(grant.endedAtMs)}`;
  const message =
    `key ${grant.key}: ${holderLabel(grant)}, granted at ${ms(grant.grantedAtMs)} (revision ${grant.revision}): ${why}, and the hold ${ended}, ` +
    `past ${ms(deadlineMs)} (a TTL, ${ms(ttlMs)}, and the bound, ${ms(boundMs)}, after ${ms(fromMs)}), no fault to excuse it: the doubt was never resolved`;
  return { kind: 'in-doubt-unresolved', key: grant.key, message, involved: [involvedIn(grant)], atMs: deadlineMs, revisions: [String(grant.revision)] };
}
