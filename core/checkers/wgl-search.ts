// The Wing & Gong linearizability search with Lowe's state cache, as Porcupine's checker.go runs it,
// on the operations of one partition. Call and return entries of the completed operations sit in one
// doubly linked list in time order (a call before a return at equal times, so ties count as
// concurrent). The search walks the list: at a call it tries to let that operation take effect now; at
// a return it has found an operation that should have taken effect already, so it is stuck there: it
// tries the operations with unknown outcome invoked by then (pending-pool.ts), then backtracks. A (set
// of operations taken effect, state) pair is never explored twice. Operations with unknown outcome
// never have to take effect: the search succeeds once every completed operation has.
import type { Model, Operation } from './model.js';
import { PendingPool } from './pending-pool.js';
import { EntryList, type Snapshot, TakenSet, remember } from './wgl-structures.js';

export type Verdict = 'ok' | 'illegal' | 'unknown';

export interface SearchResult<S> {
  readonly verdict: Verdict;
  /** Loop iterations spent; deterministic, and what the budget counts. */
  readonly steps: number;
  /**
   * ok: a linearization of every completed operation. illegal: the legal prefix with which the search
   * got furthest in time (the latest deadline it got stuck at; the longest such prefix). unknown: the
   * longest prefix found. Local indices.
   */
  readonly linearization: readonly number[];
  /** The state after each operation of `linearization`. */
  readonly states: readonly S[];
}

type Frame<S> = {
  readonly op: number;
  readonly before: S;
  readonly after: S;
  readonly successors: readonly S[];
  readonly alternative: number;
  /** For an operation with unknown outcome: its pending group, and the deadline of the node it was tried at. */
  readonly group: number;
  readonly deadline: number;
  readonly parent: Frame<S> | undefined;
  readonly depth: number;
};

export function searchLinearization<S, I, O>(model: Model<S, I, O>, ops: readonly Operation<I, O>[], stepBudget: number): SearchResult<S> {
  const pool = new PendingPool(ops);
  const list = new EntryList(ops, (op) => pool.groupOf(op) < 0);
  const taken = new TakenSet(ops.length);
  const cache = new Map<string, Snapshot[]>();
  let remaining = ops.filter((op) => op.returnTime !== Number.POSITIVE_INFINITY).length;
  let state = model.init();
  let top: Frame<S> | undefined;
  let deepest: Frame<S> | undefined;
  // Where the search got stuck furthest in time: the explanation of an illegal verdict starts there.
  let stuck: { frame: Frame<S> | undefined; reach: number; depth: number } | undefined;
  let steps = 0;

  // Lets `op` take effect with its first successor (from `alternative` on) not already explored.
  const takeEffect = (op: number, successors: readonly S[], alternative: number, before: S, deadline: number): boolean => {
    for (let k = alternative; k < successors.length; k += 1) {
      const after = successors[k] as S;
      taken.toggle(op);
      if (!remember(cache, `${taken.hash}:${model.stateKey(after)}`, taken)) {
        taken.toggle(op);
        continue;
      }
      const group = pool.groupOf(op);
      top = { op, before, after, successors, alternative: k, group, deadline, parent: top, depth: (top?.depth ?? 0) + 1 };
      if (deepest === undefined || top.depth > deepest.depth) deepest = top;
      state = after;
      if (group < 0) {
        list.lift(op);
        remaining -= 1;
      } else pool.take(group);
      return true;
    }
    return false;
  };

  // At a node stuck at `deadline`: the operations with unknown outcome invoked by then, from group `from` on.
  const tryPending = (from: number, deadline: number): boolean => {
    for (let g = from; g < pool.groupCount; g += 1) {
      const op = pool.next(g);
      if (op === undefined || (ops[op] as Operation<I, O>).callTime > deadline) continue;
      steps += 1;
      if (takeEffect(op, model.step(state, ops[op] as Operation<I, O>), 0, state, deadline)) return true;
    }
    return false;
  };

  // Undoes operations until one can be replaced by its next alternative. Returns the entry to go on
  // from, or undefined when the search is exhausted.
  const backtrack = (): number | undefined => {
    for (;;) {
      const frame = top;
      if (frame === undefined) return undefined;
      top = frame.parent;
      taken.toggle(frame.op);
      state = frame.before;
      if (frame.group < 0) {
        list.unlift(frame.op);
        remaining += 1;
      } else pool.untake(frame.group);
      if (takeEffect(frame.op, frame.successors, frame.alternative + 1, frame.before, frame.deadline)) return list.first();
      if (frame.group < 0) return list.next(frame.op);
      if (tryPending(frame.group + 1, frame.deadline)) return list.first();
    }
  };

  let entry: number | undefined = list.first();
  for (;;) {
    if (remaining === 0) return result('ok', steps, top);
    if (steps >= stepBudget) return result('unknown', steps, deepest);
    steps += 1;
    if (list.isCall(entry)) {
      const op = ops[entry] as Operation<I, O>;
      entry = takeEffect(entry, model.step(state, op), 0, state, Number.NaN) ? list.first() : list.next(entry);
      continue;
    }
    const deadline: number = (ops[list.operationOf(entry)] as Operation<I, O>).returnTime;
    const depth = top?.depth ?? 0;
    if (stuck === undefined || deadline > stuck.reach || (deadline === stuck.reach && depth > stuck.depth)) stuck = { frame: top, reach: deadline, depth };
    entry = tryPending(0, deadline) ? list.first() : backtrack();
    if (entry === undefined) return result('illegal', steps, stuck.frame);
  }
}

function result<S>(verdict: Verdict, steps: number, frame: Frame<S> | undefined): SearchResult<S> {
  const linearization: number[] = [];
  const states: S[] = [];
  for (let f = frame; f !== undefined; f = f.parent) {
    linearization.push(f.op);
    states.push(f.after);
  }
  return { verdict, steps, linearization: linearization.reverse(), states: states.reverse() };
}

