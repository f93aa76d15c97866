// ADR-17: the rules for a PauseTestResult document on its own. Whether it is young enough to back a
// fenced class is judged against that class (class-rules.ts); here only its date must be believable:
// not after today (a timestamp counts by its UTC day, as today is a UTC date).
import { formatCivilDate } from './civil-date.js';
import type { FieldProblem } from './fields.js';
import type { PauseTestResult } from './model.js';
import { parseRanAt } from './ran-at.js';
import type { PauseTestDraft } from './read-document.js';

export function pauseTestRuleProblems(draft: PauseTestDraft, todayDays: number): FieldProblem[] {
  const ranAt = draft.spec.ranAt;
  const ranAtDays = ranAt === undefined ? undefined : parseRanAt(ranAt)?.days;
  if (ranAtDays === undefined || ranAtDays <= todayDays) return [];
  return [{
    field: 'spec.ranAt',
    message: `is ${ranAt}, after today (${formatCivilDate(todayDays)}); a result cannot come from a run that has not happened`,
    fix: 'set ranAt to the date the kit ran, as its report shows',
  }];
}

export function pauseTestFromDraft(draft: PauseTestDraft): PauseTestResult | undefined {
  const { class: className, resource, passed, ranAt } = draft.spec;
  if (className === undefined || resource === undefined || passed === undefined || ranAt === undefined) return undefined;
  return { namespace: draft.namespace, name: draft.name, class: className, resource, passed, ranAt };
}
