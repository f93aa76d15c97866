// A Porcupine-style linearizability checker (ADR-23): the history is partitioned per key, each key is
// searched on its own (wgl-search.ts) with a deterministic step budget, and the verdict is ok, illegal
// or unknown (the budget ran out). An illegal key comes with its explanation: the longest linearizable
// prefix the search found, and, after it, every operation that could come next with the reason the
// model gives for refusing it. Nothing here reads a clock: the budget counts search steps.
//
// Which prefix: the search gets stuck at many points; the one shown is where it got furthest in time
// (the latest deadline), since every order dies at or before the operation that breaks the history,
// and the order that follows the true one gets exactly there.
import type { Model, Operation } from './model.js';
import { signatureOf } from './pending-pool.js';
import { type Verdict, searchLinearization } from './wgl-search.js';

export type { Verdict } from './wgl-search.js';

/** Steps per key before a key is `unknown`: enough for a key with thousands of operations at modest concurrency. */
export const DEFAULT_STEPS_PER_KEY = 1_000_000;

export interface LinearizabilityOptions {
  /** The search budget per key, in steps; the verdict of a key that runs out is `unknown`. */
  readonly stepsPerKey?: number;
}

export interface BlockedOperation<I, O> {
  readonly operation: Operation<I, O>;
  /** The model's reason, e.g. "the key is held by token 5, and an acquire needs it free". */
  readonly reason: string;
  /** How many more operations with unknown outcome, alike in function, input and output, are left out of the list. */
  readonly alike: number;
}

export interface LinearizationFailure<I, O> {
  /** The longest linearizable prefix found, in the order the operations took effect, with the state after each. */
  readonly prefix: readonly { readonly operation: Operation<I, O>; readonly stateAfter: string }[];
  readonly stateAfterPrefix: string;
  /** The operation, not in the prefix, that returned first: something must take effect before it returned. */
  readonly deadline: Operation<I, O>;
  /** Every operation that could take effect next (invoked before the deadline returned), with why it cannot. */
  readonly blocked: readonly BlockedOperation<I, O>[];
}

export interface KeyResult<I, O> {
  readonly key: string;
  readonly verdict: Verdict;
  /** Operations of this key that the search had to place. */
  readonly operations: number;
  readonly steps: number;
  /** Present when the verdict is `illegal`. */
  readonly failure?: LinearizationFailure<I, O>;
}

export interface LinearizabilityResult<I, O> {
  readonly model: string;
  /** illegal if any key is; else unknown if any key is; else ok. */
  readonly verdict: Verdict;
  readonly operations: number;
  /** One result per key, in key order. */
  readonly keys: readonly KeyResult<I, O>[];
}

export function checkLinearizability<S, I, O>(model: Model<S, I, O>, operations: readonly Operation<I, O>[], options: LinearizabilityOptions = {}): LinearizabilityResult<I, O> {
  const budget = options.stepsPerKey ?? DEFAULT_STEPS_PER_KEY;
  if (!Number.isInteger(budget) || budget < 1) throw new RangeError(`stepsPerKey is ${budget}; give a positive integer`);
  const keys = [...partitionByKey(operations)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, ops]) => checkKey(model, key, ops, budget));
  const verdict: Verdict = keys.some((k) => k.verdict === 'illegal') ? 'illegal' : keys.some((k) => k.verdict === 'unknown') ? 'unknown' : 'ok';
  return { model: model.name, verdict, operations: operations.length, keys };
}

/** Operations per key, each list in the order given. */
export function partitionByKey<T extends { readonly key: string }>(operations: readonly T[]): Map<string, T[]> {
  const byKey = new Map<string, T[]>();
  for (const op of operations) {
    const list = byKey.get(op.key);
    if (list === undefined) byKey.set(op.key, [op]);
    else list.push(op);
  }
  return byKey;
}

function checkKey<S, I, O>(model: Model<S, I, O>, key: string, ops: readonly Operation<I, O>[], budget: number): KeyResult<I, O> {
  const search = searchLinearization(model, ops, budget);
  const base = { key, verdict: search.verdict, operations: ops.length, steps: search.steps };
  if (search.verdict !== 'illegal') return base;
  return { ...base, failure: explainFailure(model, ops, search.linearization, search.states) };
}

/**
 * At a point where an exhaustive search got stuck, every candidate was tried: the model refused it, or
 * it led only to states already explored and found dead. The first kind has a reason the model states.
 */
function explainFailure<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[], prefix: readonly number[], states: readonly S[]): LinearizationFailure<I, O> {
  const state = states.at(-1) ?? model.init();
  const inPrefix = new Set(prefix);
  const rest = ops.filter((_, i) => !inPrefix.has(i));
  const completed = rest.filter((op) => op.returnTime !== Number.POSITIVE_INFINITY);
  const deadline = completed.reduce((first, op) => (op.returnTime < first.returnTime ? op : first), completed[0] as Operation<I, O>);
  if (deadline === undefined) throw new Error('wgl: an illegal verdict with every completed operation linearized');
  // Calls before returns at equal times: an operation invoked when the deadline returned could still come first.
  const blocked: { operation: Operation<I, O>; reason: string; alike: number }[] = [];
  const listed = new Map<string, { alike: number }>();
  for (const operation of rest.filter((op) => op.callTime <= deadline.returnTime)) {
    // Thousands of timed-out acquires read better as one line and a count.
    const signature = operation.returnTime === Number.POSITIVE_INFINITY ? signatureOf(operation as Operation<unknown, unknown>) : undefined;
    const same = signature === undefined ? undefined : listed.get(signature);
    if (same !== undefined) {
      same.alike += 1;
      continue;
    }
    const possible = model.step(state, operation).length > 0;
    const reason = possible ? 'it can take effect here, but no order of the operations after it is legal' : model.explain(state, operation);
    const entry = { operation, reason, alike: 0 };
    blocked.push(entry);
    if (signature !== undefined) listed.set(signature, entry);
  }
  return {
    prefix: prefix.map((i, at) => ({ operation: ops[i] as Operation<I, O>, stateAfter: model.describeState(states[at] as S) })),
    stateAfterPrefix: model.describeState(state),
    deadline,
    blocked,
  };
}
