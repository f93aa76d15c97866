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
  return new WglSearch(model, ops).run(stepBudget);
}

/** One search's state: the entry list, the set taken effect, the cache, and the stack of frames (`top`). */
class WglSearch<S, I, O> {
  private readonly pool: PendingPool;
  private readonly list: EntryList;
  private readonly taken: TakenSet;
  private readonly cache = new Map<string, Snapshot[]>();
  private remaining: number;
  private state: S;
  private top: Frame<S> | undefined;
  private deepest: Frame<S> | undefined;
  private steps = 0;

  constructor(private readonly model: Model<S, I, O>, private readonly ops: readonly Operation<I, O>[]) {
    this.pool = new PendingPool(ops);
    this.list = new EntryList(ops, (op) => this.pool.groupOf(op) < 0);
    this.taken = new TakenSet(ops.length);
    this.remaining = ops.filter((op) => op.returnTime !== Number.POSITIVE_INFINITY).length;
    this.state = model.init();
  }

  run(stepBudget: number): SearchResult<S> {
    const { list, ops } = this;
    // Where the search got stuck furthest in time: the explanation of an illegal verdict starts there.
    let stuck: { frame: Frame<S> | undefined; reach: number; depth: number } | undefined;
    let entry: number | undefined = list.first();
    for (;;) {
      if (this.remaining === 0) return result('ok', this.steps, this.top);
      if (this.steps >= stepBudget) return result('unknown', this.steps, this.deepest);
      this.steps += 1;
      if (list.isCall(entry)) {
        const op = ops[entry] as Operation<I, O>;
        entry = this.takeEffect(entry, this.model.step(this.state, op), 0, this.state, Number.NaN) ? list.first() : list.next(entry);
        continue;
      }
      const deadline: number = (ops[list.operationOf(entry)] as Operation<I, O>).returnTime;
      const depth = this.top?.depth ?? 0;
      if (stuck === undefined || deadline > stuck.reach || (deadline === stuck.reach && depth > stuck.depth)) stuck = { frame: this.top, reach: deadline, depth };
      entry = this.tryPending(0, deadline) ? list.first() : this.backtrack();
      if (entry === undefined) return result('illegal', this.steps, stuck.frame);
    }
  }

  // Lets `op` take effect with its first successor (from `alternative` on) not already explored.
  private takeEffect(op: number, successors: readonly S[], alternative: number, before: S, deadline: number): boolean {
    const { taken } = this;
    for (let k = alternative; k < successors.length; k += 1) {
      const after = successors[k] as S;
      taken.toggle(op);
      if (!remember(this.cache, `${taken.hash}:${this.model.stateKey(after)}`, taken)) {
        taken.toggle(op);
        continue;
      }
      const group = this.pool.groupOf(op);
      const top: Frame<S> = { op, before, after, successors, alternative: k, group, deadline, parent: this.top, depth: (this.top?.depth ?? 0) + 1 };
      this.top = top;
      if (this.deepest === undefined || top.depth > this.deepest.depth) this.deepest = top;
      this.state = after;
      if (group < 0) {
        this.list.lift(op);
        this.remaining -= 1;
      } else this.pool.take(group);
      return true;
    }
    return false;
  }

  // At a node stuck at `deadline`: the operations with unknown outcome invoked by then, from group `from` on.
  private tryPending(from: number, deadline: number): boolean {
    const { pool, ops } = this;
    for (let g = from; g < pool.groupCount; g += 1) {
      const op = pool.next(g);
      if (op === undefined || (ops[op] as Operation<I, O>).callTime > deadline) continue;
      this.steps += 1;
      if (this.takeEffect(op, this.model.step(this.state, ops[op] as Operation<I, O>), 0, this.state, deadline)) return true;
    }
    return false;
  }

  // Undoes operations until one can be replaced by its next alternative. Returns the entry to go on
  // from, or undefined when the search is exhausted.
  private backtrack(): number | undefined {
    for (;;) {
      const frame = this.top;
      if (frame === undefined) return undefined;
      this.top = frame.parent;
      this.taken.toggle(frame.op);
      this.state = frame.before;
      if (frame.group < 0) {
        this.list.unlift(frame.op);
        this.remaining += 1;
      } else this.pool.untake(frame.group);
      if (this.takeEffect(frame.op, frame.successors, frame.alternative + 1, frame.before, frame.deadline)) return this.list.first();
      if (frame.group < 0) return this.list.next(frame.op);
      if (this.tryPending(frame.group + 1, frame.deadline)) return this.list.first();
    }
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

