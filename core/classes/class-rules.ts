// The rules that tie LockClass fields together, each from its ADR. They run on a draft whose fields
// were checked one by one (schemas.ts); a rule whose inputs were already reported as wrong stays quiet,
// so one mistake produces one problem.
import { formatCivilDate, parseCivilDate } from './civil-date.js';
import { newerFirst, parseRanAt } from './ran-at.js';
import type { FieldProblem } from './fields.js';
import { ADVISORY_TTL_FLOOR_SECONDS, type LockClass, PAUSE_TEST_VALID_DAYS, type PauseTestResult } from './model.js';
import type { LockClassDraft } from './read-document.js';

export type ClassRuleContext = {
  /** Day number of "today" (civil-date.ts). */
  todayDays: number;
  /** Every valid PauseTestResult among the documents checked, from any file. */
  pauseTests: readonly PauseTestResult[];
  /** The PauseTestResult documents that have problems of their own, by the class and namespace they name. */
  invalidPauseTests: readonly InvalidPauseTest[];
  /** The pause test kit checks a class before any result for it exists: the rule that asks for one is not applied. */
  skipPauseTestRule?: boolean;
  /** The risk register lists an advisory class whose waiver has passed (and fails on it) rather than dropping it (ADR-01). */
  skipWaiverExpiry?: boolean;
};

/** A PauseTestResult with problems: where it is, and the class its spec names (as written, if a string). */
export type InvalidPauseTest = { namespace: string; name: string; className: string | undefined; location: string };

export function classRuleProblems(draft: LockClassDraft, context: ClassRuleContext): FieldProblem[] {
  return [
    ...fencedNeedsResource(draft),
    ...advisoryNeedsCurrentWaiver(draft, context.skipWaiverExpiry === true ? Number.NEGATIVE_INFINITY : context.todayDays),
    ...advisoryTtlFloor(draft),
    ...quorumLossPosture(draft),
    ...fencedNeedsPauseTest(draft, context),
  ];
}

// ADR-17: a fence is proven against one resource, so a fenced class must name it.
function fencedNeedsResource({ spec, given }: LockClassDraft): FieldProblem[] {
  if (spec.enforcement !== 'fenced' || given.has('resource')) return [];
  return [{
    field: 'spec.resource',
    message: 'is missing; a fenced class must name the resource whose writes are fenced, the one its pause test ran against (ADR-17)',
    fix: 'set resource to the guarded store, e.g. postgresql://ledger-db/ledger.entries, or declare enforcement: advisory',
  }];
}

// ADR-01: an unfenced class carries a named risk owner and a waiver with an end date.
function advisoryNeedsCurrentWaiver({ spec, given }: LockClassDraft, todayDays: number): FieldProblem[] {
  if (spec.enforcement !== 'advisory') return [];
  const problems: FieldProblem[] = [];
  if (!given.has('riskOwner')) {
    problems.push({
      field: 'spec.riskOwner',
      message: 'is missing; an advisory class needs a named risk owner, who answers for two holders acting at once (ADR-01)',
      fix: 'set riskOwner to the accountable person or team, e.g. team-payments',
    });
  }
  if (!given.has('waiverExpires')) {
    problems.push({
      field: 'spec.waiverExpires',
      message: 'is missing; an advisory class is a waiver, and every waiver has an end date (ADR-01)',
      fix: 'set waiverExpires to the last day of the waiver, e.g. 2027-06-30',
    });
  } else if (spec.waiverExpires !== undefined) {
    const expiresDays = parseCivilDate(spec.waiverExpires);
    if (expiresDays !== undefined && expiresDays < todayDays) {
      problems.push({
        field: 'spec.waiverExpires',
        message: `is ${spec.waiverExpires}, which has passed (today is ${formatCivilDate(todayDays)}); an advisory class needs a current waiver (ADR-01)`,
        fix: 'fence the resource and declare enforcement: fenced, or renew the waiver on the record by moving waiverExpires forward with the risk owner',
      });
    }
  }
  return problems;
}

// ADR-11: a false expiry on an unfenced resource can let two writers act, so advisory TTLs start at 30 s.
function advisoryTtlFloor({ spec, given }: LockClassDraft): FieldProblem[] {
  if (spec.enforcement !== 'advisory' || spec.ttlSeconds === undefined || spec.ttlSeconds >= ADVISORY_TTL_FLOOR_SECONDS) return [];
  const what = given.has('ttlSeconds') ? `is ${spec.ttlSeconds} s` : `is not set, so it takes the ${spec.ttlSeconds} s default, which is`;
  return [{
    field: 'spec.ttlSeconds',
    message: `${what} below the ${ADVISORY_TTL_FLOOR_SECONDS} s floor for advisory classes: on an unfenced resource a false expiry can let two writers act (ADR-11)`,
    fix: `set ttlSeconds: ${ADVISORY_TTL_FLOOR_SECONDS} or more, or fence the resource and declare enforcement: fenced`,
  }];
}

// ADR-04: failing open grants from memory with token zero, acceptable only where two holders merely
// waste work, and meaningless for a fence that orders writes by token.
function quorumLossPosture({ spec }: LockClassDraft): FieldProblem[] {
  if (spec.onQuorumLoss !== 'open') return [];
  const problems: FieldProblem[] = [];
  if (spec.purpose === 'correctness') {
    problems.push({
      field: 'spec.onQuorumLoss',
      message: 'is open, but a correctness class must fail closed: without a quorum it may not grant at all (ADR-04)',
      fix: 'set onQuorumLoss: closed (or omit it); if two holders only waste work, declare purpose: efficiency instead',
    });
  }
  if (spec.enforcement === 'fenced') {
    problems.push({
      field: 'spec.onQuorumLoss',
      message: 'is open, which is never allowed with enforcement: fenced: open grants carry token zero, which the fence cannot order (ADR-04)',
      fix: 'set onQuorumLoss: closed (or omit it), or declare enforcement: advisory',
    });
  }
  return problems;
}

// ADR-17: fenced only on a passing pause test, for this class and resource, younger than a year.
function fencedNeedsPauseTest({ spec, namespace, name }: LockClassDraft, context: ClassRuleContext): FieldProblem[] {
  if (spec.enforcement !== 'fenced' || spec.resource === undefined || context.skipPauseTestRule === true) return [];
  const resource = spec.resource;
  const ageDays = (test: PauseTestResult): number => context.todayDays - (parseRanAt(test.ranAt)?.days ?? Number.NEGATIVE_INFINITY);
  const forClass = context.pauseTests.filter((test) => test.namespace === namespace && test.class === name);
  const forResource = forClass.filter((test) => test.resource === resource);
  const passing = forResource.filter((test) => test.passed);
  const current = passing.filter((test) => ageDays(test) >= 0 && ageDays(test) < PAUSE_TEST_VALID_DAYS);
  if (current.length > 0) return [];
  const kit = `run the pause test kit against ${resource} and check its PauseTestResult (namespace ${namespace}, spec.class: ${name}) together with this class`;
  const problem = (message: string, fix: string): FieldProblem[] => [{ field: 'spec.enforcement', message: `is fenced, but ${message} (ADR-17)`, fix }];
  // A result that is itself invalid has its own problems reported; the class must say it relies on an
  // invalid one, not that it has none, or the owner goes looking for a missing file.
  const invalid = context.invalidPauseTests.filter((test) => test.namespace === namespace && test.className === name);
  if (invalid.length > 0) {
    const which = invalid.map((test) => `${test.name} (${test.location})`).join(', ');
    return problem(`its PauseTestResult ${which} ${invalid.length === 1 ? 'is' : 'are'} invalid, so cannot back it`, `fix the problems reported for ${invalid.length === 1 ? 'that result' : 'those results'} and check again`);
  }
  if (forClass.length === 0) {
    return problem(`no PauseTestResult for class ${namespace}/${name} is among the documents checked`, `${kit}, or declare enforcement: advisory`);
  }
  if (forResource.length === 0) {
    const tested = [...new Set(forClass.map((test) => test.resource))].join(', ');
    return problem(`its pause tests ran against ${tested}, not against ${resource}`, `${kit}, or correct spec.resource if the class guards ${tested}`);
  }
  if (passing.length === 0) {
    const latest = newestFirst(forResource)[0]!;
    return problem(`its pause test ${latest.name} failed on ${latest.ranAt}: the resource accepted a stale write`, 'fix the resource fence (see the reference fence), rerun the kit, or declare enforcement: advisory');
  }
  const newest = newestFirst(passing)[0]!;
  return problem(
    `its newest passing pause test ${newest.name} ran on ${newest.ranAt}, ${ageDays(newest)} days before today; results count for ${PAUSE_TEST_VALID_DAYS} days`,
    `rerun the pause test kit against ${resource} and check in its new result`,
  );
}

function newestFirst(tests: readonly PauseTestResult[]): PauseTestResult[] {
  return [...tests].sort((a, b) => newerFirst(a.ranAt, b.ranAt) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The validated class, once a draft has no problems left. */
export function lockClassFromDraft(draft: LockClassDraft): LockClass | undefined {
  const { spec } = draft;
  if (spec.purpose === undefined || spec.enforcement === undefined || spec.ttlSeconds === undefined || spec.tier === undefined) return undefined;
  if (spec.onQuorumLoss === undefined || spec.fairness === undefined) return undefined;
  return {
    namespace: draft.namespace,
    name: draft.name,
    purpose: spec.purpose,
    enforcement: spec.enforcement,
    ...(spec.resource === undefined ? {} : { resource: spec.resource }),
    ...(spec.riskOwner === undefined ? {} : { riskOwner: spec.riskOwner }),
    ...(spec.waiverExpires === undefined ? {} : { waiverExpires: spec.waiverExpires }),
    ttlSeconds: spec.ttlSeconds,
    tier: spec.tier,
    onQuorumLoss: spec.onQuorumLoss,
    fairness: spec.fairness,
  };
}
