// From events to a verdict: pair the events into operations, let the model decode them, search. Bad
// input (a line the pairing or the model cannot read) is returned as problems naming the event, never
// judged: a checker that guesses at malformed input is not one you can trust.
import type { HistoryEvent } from './history.js';
import { type LinearizabilityOptions, type LinearizabilityResult, checkLinearizability } from './linearizability.js';
import { type Model, decodeOperations } from './model.js';
import { type HistoryProblem, pairOperations } from './operations.js';

export type HistoryCheck<I, O> =
  | { readonly kind: 'bad-input'; readonly problems: readonly HistoryProblem[] }
  | {
      readonly kind: 'checked';
      readonly result: LinearizabilityResult<I, O>;
      /** Operations left out because they certainly had no effect and say nothing (a failed acquire). */
      readonly noEffect: number;
      /** Operations whose outcome is unknown (`info`, or never completed). */
      readonly unknownOutcomes: number;
    };

export function checkHistory<S, I, O>(model: Model<S, I, O>, events: readonly HistoryEvent[], options: LinearizabilityOptions = {}): HistoryCheck<I, O> {
  const pairing = pairOperations(events);
  if (pairing.problems.length > 0) return { kind: 'bad-input', problems: pairing.problems };
  const decoded = decodeOperations(model, pairing.operations);
  if (decoded.problems.length > 0) {
    const problems = decoded.problems.map(({ operation, message, at }) => {
      const event = at === 'completion' && operation.completionEvent !== undefined ? operation.completionEvent : operation.invokeEvent;
      return { event, message };
    });
    return { kind: 'bad-input', problems: problems.sort((a, b) => a.event - b.event) };
  }
  const result = checkLinearizability(model, decoded.operations, options);
  const unknownOutcomes = decoded.operations.filter((op) => op.returnTime === Number.POSITIVE_INFINITY).length;
  return { kind: 'checked', result, noEffect: decoded.skipped, unknownOutcomes };
}
