// The PauseTestResult a passing kit run leaves (ADR-17): the document `lockstep class check` accepts for
// the class and resource it names, committed beside the class. Its spec holds only what the check reads
// (class, resource, passed, ranAt); what the run showed goes above it as comments, for the reviewer.
import { stringify } from 'yaml';
import { API_VERSION, type LockClass } from '../classes/index.js';
import { DNS_LABEL } from '../classes/fields.js';
import type { PauseTestReport } from './procedure.js';

export interface ResultDocumentInput {
  readonly lockClass: LockClass;
  /** The resource the kit wrote to; must be the class's own (ADR-17: a fence is proven per resource). */
  readonly resource: string;
  /** RFC 3339, UTC, to the second: `2026-11-01T12:00:00Z`. */
  readonly ranAt: string;
  readonly report: PauseTestReport;
  /** The write under test, for the comments: `PostgreSQL reference fence ...`. */
  readonly write: string;
  /** metadata.name; default `<class>-<date of the run>`. */
  readonly name?: string;
}

const MAX_NAME_LENGTH = 63;

/** `ledger-writes-2026-11-01`: the class name cut so the whole stays a DNS label. */
export function defaultResultName(className: string, ranAt: string): string {
  const date = ranAt.slice(0, 10);
  return `${className.slice(0, MAX_NAME_LENGTH - date.length - 1).replace(/-+$/, '')}-${date}`;
}

export function pauseTestResultYaml(input: ResultDocumentInput): string {
  const { lockClass, report } = input;
  // Only a passing run writes a result: a caller that gets here with a failing one has a bug.
  if (!report.passed) throw new Error('pauseTestResultYaml: the run did not pass; a failing run writes no PauseTestResult');
  const name = input.name ?? defaultResultName(lockClass.name, input.ranAt);
  if (!DNS_LABEL.test(name)) throw new Error(`pauseTestResultYaml: name ${JSON.stringify(name)} is not a DNS label`);
  const document = {
    apiVersion: API_VERSION,
    kind: 'PauseTestResult',
    metadata: { name, namespace: lockClass.namespace },
    spec: { class: lockClass.name, resource: input.resource, passed: true, ranAt: input.ranAt },
  };
  const comments = [
    `Written by lockstep pause-test (ADR-17) at ${input.ranAt}, in ${(report.durationMs / 1000).toFixed(1)} s. It counts for 365 days:`,
    'rerun the kit and replace this document before then, or when the write path changes.',
    `Write under test: ${input.write}.`,
    ...report.trials.map((t) => `Trial ${t.number}, paused at ${JSON.stringify(t.point)}: ${t.verdict}: ${t.reason} (first holder token ${t.firstToken}, second ${t.secondToken}).`),
    `Verdict: ${report.summary}.`,
  ];
  return `${comments.map((line) => `# ${line}`).join('\n')}\n${stringify(document, { defaultStringType: 'QUOTE_DOUBLE', defaultKeyType: 'PLAIN' })}`;
}
