// Explaining a linearizability verdict to a person: for an illegal key, the end of the longest
// linearizable order found, the state it leaves, the operation that had to take effect by its return,
// and each operation that could have come next with the model's reason it cannot.
import { type CheckResult, type Involved, type Violation, checkResult, plural } from './check-result.js';
import type { KeyResult, LinearizabilityResult } from './linearizability.js';
import type { Operation } from './model.js';

/** Where an operation is in its source: `lines 3-5`, `events 3-5`. */
export type Locate = (operation: Operation<unknown, unknown>) => string;

export interface Describer<I, O> {
  readonly name: string;
  describeOperation(operation: Operation<I, O>): string;
}

/** The explanation's length: the last `prefixShown` operations of the prefix are listed. */
export const PREFIX_SHOWN = 8;

export const locateByEvent: Locate = (op) => {
  const first = op.invokeEvent + 1;
  if (op.completionEvent === undefined) return `event ${first} (never completed)`;
  const last = op.completionEvent + 1;
  return first === last ? `event ${first}` : `events ${first}-${last}`;
};

export function explainKey<I, O>(model: Describer<I, O>, key: KeyResult<I, O>, locate: Locate = locateByEvent, prefixShown = PREFIX_SHOWN): string[] {
  const failure = key.failure;
  if (failure === undefined) return [`key ${JSON.stringify(key.key)}: ${key.verdict}`];
  const line = (op: Operation<I, O>): string => `${locate(op as Operation<unknown, unknown>)}: ${op.process} ${model.describeOperation(op)} [${op.callTime}, ${finite(op.returnTime)}]`;
  const lines = [`key ${JSON.stringify(key.key)} is not linearizable under the ${model.name} model`];
  const shown = failure.prefix.slice(-prefixShown);
  const skipped = failure.prefix.length - shown.length;
  lines.push(
    failure.prefix.length === 0
      ? '  no operation can take effect first'
      : `  the search got furthest with this legal order of ${failure.prefix.length} of ${plural(key.operations, 'operation')}${skipped > 0 ? ` (the last ${shown.length} shown)` : ''}:`,
  );
  shown.forEach(({ operation, stateAfter }, i) => lines.push(`    ${skipped + i + 1}. ${line(operation)} → ${stateAfter}`));
  if (failure.prefix.length > 0) lines.push(`  then the state is: ${failure.stateAfterPrefix}`);
  const deadline = failure.deadline;
  lines.push(`  ${locate(deadline as Operation<unknown, unknown>)} (${deadline.process} ${model.describeOperation(deadline)}) returned at ${deadline.returnTime}, so something must take effect by then, but nothing can:`);
  for (const { operation, reason, alike } of failure.blocked) lines.push(`    - ${line(operation)}: ${reason}${alike > 0 ? ` (and ${alike} more alike, outcome unknown)` : ''}`);
  return lines;
}

/** The verdict as a CheckResult for a run artifact: one violation per illegal key. */
export function linearizabilityCheckResult<I, O>(model: Describer<I, O>, result: LinearizabilityResult<I, O>, locate: Locate = locateByEvent): CheckResult {
  const checked = `${plural(result.operations, 'operation')} on ${plural(result.keys.length, 'key')} under the ${result.model} model`;
  const illegal = result.keys.filter((k) => k.verdict === 'illegal');
  if (illegal.length > 0) return checkResult('linearizability', illegal.map((k) => keyViolation(model, k, locate)), checked);
  const unknown = result.keys.filter((k) => k.verdict === 'unknown');
  if (unknown.length === 0) return checkResult('linearizability', [], checked);
  const detail = `unknown: the search budget ran out on ${plural(unknown.length, 'key')} (${unknown.map((k) => JSON.stringify(k.key)).join(', ')}); ${checked}`;
  return { name: 'linearizability', ok: false, verdict: 'unknown', detail, violations: [] };
}

function keyViolation<I, O>(model: Describer<I, O>, key: KeyResult<I, O>, locate: Locate): Violation {
  const involved: Involved[] = [];
  for (const { operation } of key.failure?.blocked ?? []) {
    if (!involved.some((i) => i.holder === operation.process)) involved.push({ holder: operation.process });
  }
  return { kind: 'not-linearizable', key: key.key, message: explainKey(model, key, locate).join('\n'), involved };
}

function finite(time: number): string {
  return time === Number.POSITIVE_INFINITY ? '∞' : String(time);
}
