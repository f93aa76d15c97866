// Operations with unknown outcome, kept out of the WGL entry list. They never have to take effect, so
// the search tries them only where it is stuck: at the first return among the completed operations
// (every candidate of a node is still tried, only later). And operations with equal function, input
// and output are interchangeable: of those, only the one invoked first that has not taken effect is
// tried, because any order using a later one works with the earlier one in its place. Without this, a
// key with thousands of timed-out acquires costs thousands of steps at every node.
import type { Operation } from './model.js';

export class PendingPool {
  /** Per group, its operations in invoke order. */
  readonly #groups: (readonly number[])[];
  /** Per group, how many of its operations have taken effect: always the first ones. */
  readonly #taken: Int32Array;
  /** Per operation, its group; -1 for a completed operation. */
  readonly #groupOf: Int32Array;

  constructor(ops: readonly Operation<unknown, unknown>[]) {
    const bySignature = new Map<string, number[]>();
    const pending = ops.map((op, index) => ({ op, index })).filter(({ op }) => op.returnTime === Number.POSITIVE_INFINITY);
    pending.sort((a, b) => a.op.callTime - b.op.callTime || a.index - b.index);
    for (const { op, index } of pending) {
      const signature = signatureOf(op);
      const group = bySignature.get(signature);
      if (group === undefined) bySignature.set(signature, [index]);
      else group.push(index);
    }
    this.#groups = [...bySignature.values()];
    this.#taken = new Int32Array(this.#groups.length);
    this.#groupOf = new Int32Array(ops.length).fill(-1);
    this.#groups.forEach((group, g) => group.forEach((op) => (this.#groupOf[op] = g)));
  }

  get groupCount(): number {
    return this.#groups.length;
  }

  /** The group of an operation with unknown outcome; -1 for a completed one. */
  groupOf(op: number): number {
    return this.#groupOf[op] as number;
  }

  /** The operation of group `g` to try next, or undefined when all of them have taken effect. */
  next(g: number): number | undefined {
    return (this.#groups[g] as readonly number[])[this.#taken[g] as number];
  }

  take(g: number): void {
    this.#taken[g] = (this.#taken[g] as number) + 1;
  }

  untake(g: number): void {
    this.#taken[g] = (this.#taken[g] as number) - 1;
  }
}

/** Operations with equal signatures are interchangeable to a model (Model.step). */
export function signatureOf(op: Operation<unknown, unknown>): string {
  const text = (value: unknown): string => JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)) ?? 'undefined';
  return `${op.f}\u0000${text(op.input)}\u0000${text(op.output)}`;
}
