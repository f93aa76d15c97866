// A sequential specification, as Porcupine's model.go has it (STYLE.md): pure `init` and `step`, a
// canonical key for equal states (the search caches on it), and descriptions for people. Two things
// differ from Porcupine: `step` returns every state the operation can leave behind (an empty list:
// it cannot take effect here), so a model may be nondeterministic without a power-set state; and a
// model decodes the raw JSON values once, up front, so a malformed line is reported as bad input
// with its line number rather than as a violation.
import type { Outcome, RawOperation } from './operations.js';

/** An operation whose input and output a model has decoded. */
export interface Operation<I, O> {
  readonly id: number;
  readonly process: string;
  readonly f: string;
  readonly key: string;
  readonly input: I;
  readonly outcome: Outcome;
  readonly output: O;
  readonly callTime: number;
  /** Infinity when the outcome is unknown (`info`, or no completion). */
  readonly returnTime: number;
  readonly invokeEvent: number;
  readonly completionEvent: number | undefined;
}

export type Decoded<I, O> =
  /** The operation constrains or changes the state: the search must place it. */
  | { readonly kind: 'operation'; readonly input: I; readonly output: O }
  /** It certainly had no effect and says nothing about the state (a failed put): left out of the search. */
  | { readonly kind: 'no-effect' }
  /** The line does not fit the model; `message` says what and how to fix it. */
  | { readonly kind: 'bad'; readonly message: string; readonly at?: 'invoke' | 'completion' };

export interface Model<S, I, O> {
  /** `lock (fenced resource)`, `kv`: shown in reports. */
  readonly name: string;
  decode(operation: RawOperation): Decoded<I, O>;
  init(): S;
  /**
   * Every state `operation` can leave behind when it takes effect in `state`; empty when it cannot
   * take effect there. For an operation with an unknown outcome, return only the states where it took
   * effect: the checker itself covers "it never took effect". It must depend only on the operation's
   * `f`, `input`, `outcome` and `output`: the search treats operations equal in those as interchangeable.
   */
  step(state: S, operation: Operation<I, O>): readonly S[];
  /** Why `step` returned no state, for a person. Called only when explaining a failure. */
  explain(state: S, operation: Operation<I, O>): string;
  /** Equal keys for equal states, different keys for different ones. */
  stateKey(state: S): string;
  describeState(state: S): string;
  describeOperation(operation: Operation<I, O>): string;
}

/** Applies a model's decode to raw operations: the decoded operations, and the problems by operation. */
export interface DecodeProblem {
  readonly operation: RawOperation;
  readonly message: string;
  /** Which line of the operation is at fault. */
  readonly at: 'invoke' | 'completion';
}

export function decodeOperations<S, I, O>(model: Model<S, I, O>, raw: readonly RawOperation[]): { operations: Operation<I, O>[]; skipped: number; problems: DecodeProblem[] } {
  const operations: Operation<I, O>[] = [];
  const problems: DecodeProblem[] = [];
  let skipped = 0;
  for (const op of raw) {
    const decoded = model.decode(op);
    if (decoded.kind === 'bad') problems.push({ operation: op, message: decoded.message, at: decoded.at ?? 'invoke' });
    else if (decoded.kind === 'no-effect') skipped += 1;
    else operations.push({ ...op, input: decoded.input, output: decoded.output });
  }
  return { operations, skipped, problems };
}
