// The etcd KV model, cut down to what a lock service's history needs: one register per key, with put,
// get, delete and a compare-and-swap on the value (an etcd txn comparing the value, then putting).
// Versions and mod revisions are out of scope; keys are independent, so the history is partitioned
// per key. Values are any JSON value compared by content; null is "no value". docs/history-format.md.
import { show } from './history.js';
import type { Decoded, Model, Operation } from './model.js';
import type { RawOperation } from './operations.js';
import { field } from './values.js';

export type KvFunction = 'put' | 'get' | 'delete' | 'cas';

/** Values are kept as canonical JSON text ("null" = absent), so equal values compare equal as strings. */
export interface KvInput {
  readonly f: KvFunction;
  /** put: the value; cas: the value to write. */
  readonly value: string;
  /** cas: the value compared against. */
  readonly from: string;
}
/** get: the value read. */
export type KvOutput = string;
/** The register's value, as canonical JSON text. */
export type KvState = string;
export type KvOperation = Operation<KvInput, KvOutput>;

const ABSENT = 'null';

export function kvModel(): Model<KvState, KvInput, KvOutput> {
  return {
    name: 'kv (a register per key)',
    decode: decodeKvOperation,
    init: () => ABSENT,
    step: (state, op) => {
      const next = kvStep(state, op);
      return typeof next === 'string' ? [next] : [];
    },
    explain: (state, op) => {
      const next = kvStep(state, op);
      return typeof next === 'string' ? 'it can take effect here' : next.why;
    },
    stateKey: (state) => state,
    describeState: (state) => (state === ABSENT ? 'no value' : `value ${state}`),
    describeOperation: describeKvOperation,
  };
}

/** The register after `op`, or why `op` cannot take effect on `state`. */
function kvStep(state: KvState, op: KvOperation): KvState | { why: string } {
  const { f, value, from } = op.input;
  switch (f) {
    case 'put':
      return value;
    case 'delete':
      return ABSENT;
    case 'get':
      return op.output === state ? state : { why: `it read ${op.output}, but the register holds ${state}` };
    case 'cas':
      if (op.outcome === 'fail') return from !== state ? state : { why: `the compare failed, but the register holds ${from}, which it compared against` };
      return from === state ? value : { why: `the compare needs ${from}, but the register holds ${state}` };
  }
}

export function decodeKvOperation(op: RawOperation): Decoded<KvInput, KvOutput> {
  const input = (f: KvFunction, value: unknown = null, from: unknown = null): KvInput => ({ f, value: canonicalJson(value), from: canonicalJson(from) });
  switch (op.f) {
    case 'put':
      return op.outcome === 'fail' ? { kind: 'no-effect' } : { kind: 'operation', input: input('put', op.input), output: ABSENT };
    case 'delete':
      return op.outcome === 'fail' ? { kind: 'no-effect' } : { kind: 'operation', input: input('delete'), output: ABSENT };
    case 'get':
      // A read that failed or whose answer is unknown changes nothing and tells nothing.
      return op.outcome === 'ok' ? { kind: 'operation', input: input('get'), output: canonicalJson(op.output) } : { kind: 'no-effect' };
    case 'cas': {
      const from = field(op.input, 'from');
      const to = field(op.input, 'to');
      if (from === undefined || to === undefined) return { kind: 'bad', message: `cas by ${op.process}: the invoke's value must be {"from": <value>, "to": <value>}; it is ${show(op.input)}` };
      return { kind: 'operation', input: input('cas', to, from), output: ABSENT };
    }
    default:
      return { kind: 'bad', message: `"f" is ${JSON.stringify(op.f)}; the kv model knows "put", "get", "delete" and "cas"` };
  }
}

export function describeKvOperation(op: KvOperation): string {
  const outcome = op.outcome === 'info' ? 'unknown' : op.outcome;
  switch (op.input.f) {
    case 'put':
      return `put ${op.input.value} → ${outcome}`;
    case 'delete':
      return `delete → ${outcome}`;
    case 'get':
      return `get → ${op.output}`;
    case 'cas':
      return `cas ${op.input.from} → ${op.input.value}: ${op.outcome === 'info' ? 'unknown' : op.outcome === 'ok' ? 'swapped' : 'compare failed'}`;
  }
}

/** JSON text with object keys sorted, so `{"a":1,"b":2}` and `{"b":2,"a":1}` are one value. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}
