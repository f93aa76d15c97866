// etcd's Txn as apply runs it (etcdserver/apply.go Txn l.355-391, applyCompare l.450-518, applyTxn
// l.520-570): compares against the store as it was before the txn, one branch, lease checks before any
// write, and all writes in one write txn, so at most one new revision. The member adds the header; its
// revision is the store's current revision after this returns.
import { type Compare, type KeyValue, type RequestOp, type ResponseOp, type TxnRequest, isReadOnlyTxn } from '../../core/ports/lock-log.js';
import { NO_LEASE, type LeaseId } from '../../core/units.js';
import { compareKeys } from './key-order.js';
import type { MvccStore, RangeOptions, RangeResult } from './mvcc-store.js';
import { failWith, succeed, type Outcome } from './outcome.js';

/** etcd's TxnResponse without the header. */
export interface TxnResult {
  readonly succeeded: boolean;
  readonly responses: readonly ResponseOp[];
}

/** What a txn needs of the lessor: whether a lease exists (checkRequestPut uses lessor.Lookup). */
export interface LeaseLookup {
  has(id: LeaseId): boolean;
}

export function executeTxn(store: MvccStore, leases: LeaseLookup, request: TxnRequest): Outcome<TxnResult> {
  const succeeded = request.compare.every((compare) => applyCompare(store, compare));
  const ops = succeeded ? request.success : request.failure;
  // isTxnReadonly (etcdserver/v3_server.go): the rule is core's, as the arbiter's gateway reads it.
  if (isReadOnlyTxn(request)) {
    return succeed({ succeeded, responses: ops.map((op) => rangeResponse(store, op)) });
  }
  // checkRequestPut (apply.go l.933-955): a put on a missing lease fails the whole txn before it starts.
  for (const op of ops) {
    if (op.type === 'put' && op.lease !== undefined && op.lease !== NO_LEASE && !leases.has(op.lease)) {
      return failWith('lease-not-found', `lease ${op.lease} not found`);
    }
  }
  const txn = store.write();
  // The txn itself is the reader (no closure per op: under tsx's keep-names transform each costs a
  // defineProperty).
  const read: Reader = txn;
  const responses = ops.map((op): ResponseOp => {
    switch (op.type) {
      case 'range':
        return rangeResponse(read, op);
      case 'put': {
        const prevKv = op.prevKv === true ? rangeOf(read, { key: op.key }).kvs[0] : undefined;
        txn.put(op.key, op.value, op.lease ?? NO_LEASE);
        return prevKv === undefined ? { type: 'put' } : { type: 'put', prevKv };
      }
      case 'delete': {
        const range = op.prefix === true ? { key: op.key, prefix: true } : { key: op.key };
        const prevKvs = op.prevKv === true ? rangeOf(read, range).kvs : [];
        return { type: 'delete', deleted: txn.deleteRange(range), prevKvs };
      }
    }
  });
  txn.end();
  return succeed({ succeeded, responses });
}

/**
 * applyCompare: a missing key compares as create = mod = version = lease = 0, except that any VALUE
 * compare on a missing key fails, whatever the operator ("no way to represent missing value").
 */
export function applyCompare(store: MvccStore, compare: Compare): boolean {
  const read = store.range({ key: compare.key });
  if (!read.ok) return false;
  const kv = read.value.kvs[0];
  if (kv === undefined && compare.target === 'value') return false;
  const order = compareTarget(kv, compare);
  switch (compare.op) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
  }
}

/** compareKV: -1, 0 or 1 as the key's field compares with the compare's value (bytes for values). */
function compareTarget(kv: KeyValue | undefined, compare: Compare): number {
  if (compare.target === 'value') return compareKeys(kv?.value ?? '', compare.value);
  const actual = kv === undefined ? 0n : fieldOf(kv, compare.target);
  return actual < compare.value ? -1 : actual > compare.value ? 1 : 0;
}

function fieldOf(kv: KeyValue, target: 'create' | 'mod' | 'version' | 'lease'): bigint {
  switch (target) {
    case 'create':
      return kv.createRevision;
    case 'mod':
      return kv.modRevision;
    case 'version':
      return kv.version;
    case 'lease':
      return kv.lease;
  }
}

/** What a txn reads through: the store (a read-only txn) or the open write txn (its own writes visible). */
interface Reader {
  range(options: RangeOptions): Outcome<RangeResult>;
}

function rangeResponse(read: Reader, op: RequestOp): ResponseOp {
  const options: RangeOptions = {
    key: op.key,
    ...(op.type !== 'put' && op.prefix === true ? { prefix: true } : {}),
    ...(op.type === 'range' && op.limit !== undefined ? { limit: op.limit } : {}),
  };
  const result = rangeOf(read, options);
  return { type: 'range', kvs: result.kvs, count: result.count, more: result.more };
}

/** A range inside a txn has no revision, so it cannot fail; etcd panics if it does (applyTxn). */
function rangeOf(read: Reader, options: RangeOptions): RangeResult {
  const result = read.range(options);
  if (!result.ok) throw new Error(`unexpected error during txn: ${result.error.message}`);
  return result.value;
}
