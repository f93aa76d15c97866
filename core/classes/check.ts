// checkDocuments: judges a set of documents together, because some rules cross documents and files: a
// fenced class needs a pause-test result that may sit in another file (ADR-17), and a class name may be
// defined only once (ADR-24). Only documents without problems come back as classes, tests and grants.
import { LockError } from '../lock-error.js';
import { parseCivilDate } from './civil-date.js';
import { type InvalidPauseTest, classRuleProblems, lockClassFromDraft } from './class-rules.js';
import type { FieldProblem } from './fields.js';
import { grantRuleProblems, lockGrantFromDraft } from './grant-rules.js';
import type { LockClass, LockGrant, PauseTestResult, Problem, SourcedDocument } from './model.js';
import { pauseTestFromDraft, pauseTestRuleProblems } from './pause-test-rules.js';
import { type DocumentDraft, type PauseTestDraft, readDocument } from './read-document.js';
import { isMapping } from './fields.js';

export type CheckOptions = {
  /** Today's date, `YYYY-MM-DD`: waivers and pause-test ages are measured against it. */
  today: string;
  /**
   * For the pause test kit only (`lockstep pause-test`), which reads a fenced class before it has the
   * result the kit is about to produce: the rule that a fenced class needs one is not applied.
   */
  skipPauseTestRule?: boolean;
  /** For the risk register (`lockstep class register`), which lists a passed waiver as expired rather than dropping its class. */
  skipWaiverExpiry?: boolean;
};

export type CheckResult = {
  classes: LockClass[];
  pauseTests: PauseTestResult[];
  grants: LockGrant[];
  /** In document order, and by line within a document. */
  problems: Problem[];
};

export function checkDocuments(documents: readonly SourcedDocument[], options: CheckOptions): CheckResult {
  const todayDays = parseCivilDate(options.today);
  if (todayDays === undefined) {
    throw new LockError('invalid-argument', `today ${JSON.stringify(options.today)} is not a calendar date YYYY-MM-DD`);
  }
  const drafts = documents.map(readDocument);
  addDuplicateProblems(drafts);
  for (const draft of drafts) {
    if (draft.kind === 'PauseTestResult') draft.problems.push(...pauseTestRuleProblems(draft, todayDays));
    if (draft.kind === 'LockGrant') draft.problems.push(...grantRuleProblems(draft));
  }
  // Only a sound pause-test document may back a fenced class.
  const pauseTests = drafts.flatMap((d) => (d.kind === 'PauseTestResult' && d.problems.length === 0 ? optional(pauseTestFromDraft(d)) : []));
  const invalidPauseTests = drafts.flatMap((d) => (d.kind === 'PauseTestResult' && d.problems.length > 0 ? [invalidPauseTest(d)] : []));
  const context = { todayDays, pauseTests, invalidPauseTests, ...(options.skipPauseTestRule === true ? { skipPauseTestRule: true } : {}), ...(options.skipWaiverExpiry === true ? { skipWaiverExpiry: true } : {}) };
  for (const draft of drafts) {
    if (draft.kind === 'LockClass') draft.problems.push(...classRuleProblems(draft, context));
  }
  const valid = drafts.filter((d) => d.problems.length === 0);
  return {
    classes: valid.flatMap((d) => (d.kind === 'LockClass' ? optional(lockClassFromDraft(d)) : [])),
    pauseTests,
    grants: valid.flatMap((d) => (d.kind === 'LockGrant' ? optional(lockGrantFromDraft(d)) : [])),
    problems: drafts.flatMap(problemsOf),
  };
}

// ADR-24: one (kind, namespace, name) is one object, as in Kubernetes. Which copy the arbiter would
// serve is unknowable, so every copy is a problem and none is returned.
function addDuplicateProblems(drafts: readonly DocumentDraft[]): void {
  const byKey = new Map<string, DocumentDraft[]>();
  for (const draft of drafts) {
    if (draft.kind === undefined || !draft.named) continue;
    const key = `${draft.kind}/${draft.namespace}/${draft.name}`;
    byKey.set(key, [...(byKey.get(key) ?? []), draft]);
  }
  for (const copies of byKey.values()) {
    if (copies.length < 2) continue;
    for (const draft of copies) {
      const others = copies.filter((other) => other !== draft).map((other) => location(other.document));
      draft.problems.push({
        field: 'metadata.name',
        message: `${draft.kind} ${draft.namespace}/${draft.name} is defined ${copies.length} times (also at ${others.join(', ')}); a namespace and name identify one object (ADR-24)`,
        fix: 'keep one definition: remove the copy or rename one of them',
      });
    }
  }
}

/** The class an invalid result names, read from the raw document when its spec.class was the wrong part. */
function invalidPauseTest(draft: PauseTestDraft): InvalidPauseTest {
  const value = draft.document.value;
  const spec = isMapping(value) && isMapping(value['spec']) ? value['spec'] : {};
  const raw = spec['class'];
  return { namespace: draft.namespace, name: draft.name, className: draft.spec.class ?? (typeof raw === 'string' ? raw : undefined), location: location(draft.document) };
}

function problemsOf(draft: DocumentDraft): Problem[] {
  const withLines = draft.problems.map((problem, order) => ({ problem, order, line: lineOf(draft.document, problem) }));
  withLines.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.order - b.order);
  return withLines.map(({ problem, line }) => ({
    source: draft.document.source,
    ...(line === undefined ? {} : { line }),
    namespace: draft.namespace,
    name: draft.name,
    field: problem.field,
    message: problem.message,
    fix: problem.fix,
  }));
}

/** The line of the field, or of its nearest enclosing field that is in the file, or of the document. */
function lineOf(document: SourcedDocument, problem: FieldProblem): number | undefined {
  const segments = problem.field.split('.');
  while (segments.length > 0) {
    const line = document.fieldLines?.get(segments.join('.'));
    if (line !== undefined) return line;
    segments.pop();
  }
  return document.line;
}

function location(document: SourcedDocument): string {
  const line = document.fieldLines?.get('metadata.name') ?? document.line;
  return line === undefined ? `${document.source} document ${document.index + 1}` : `${document.source}:${line}`;
}

function optional<T>(value: T | undefined): T[] {
  return value === undefined ? [] : [value];
}
